#include "attnscope/forward/head_record.h"

#include "attnscope/base/error.h"
#include "attnscope/base/threads.h"
#include "attnscope/ops/mask.h"
#include "head_ablation.h"
#include "layer_attention.h"

namespace attnscope::forward {

HeadRecord recomputeHead(const model::Model& m, const ForwardResult& r, HeadId head,
                         const CancelToken& cancel) {
    if (head.layer < 0 || head.layer >= r.nLayers || head.head < 0 || head.head >= r.nHeads) {
        throw InvalidArgument("recompute: head " + std::to_string(head.layer) + "." +
                              std::to_string(head.head) + " is outside the model's " +
                              std::to_string(r.nLayers) + " x " + std::to_string(r.nHeads));
    }
    if (r.layerInputs.size() != static_cast<std::size_t>(r.nLayers)) {
        throw InvalidArgument("recompute: the forward result kept no layer inputs");
    }
    cancel.throwIfCancelled();
    // The pass's bias holds only 0 and -inf (masks here are boolean), so `allowed` rebuilds
    // it exactly.
    detail::AttentionContext ctx;
    ops::MaskSpec mask;
    mask.allowed = r.allowedFor(head.layer);
    ctx.bias = ops::buildBias(mask, r.nTokens, r.nTokens);
    detail::addRelativeBias(m, ctx);
    detail::setWhatIf(m.spec, r.whatIf, ctx);
    if (m.spec.rope.dims > 0) {
        ctx.rope =
            ops::ropeTable(m.spec.ropeOf(head.layer), detail::positionIds(m.spec, r.tokenIds));
    }
    applyComputeThreads();
    cancel.throwIfCancelled();
    const Matrix& h = r.layerInputs[static_cast<std::size_t>(head.layer)];
    // Checked on both sides: the projections are usually the longest step.
    detail::Projections p = detail::projectHead(m, head.layer, head.head, h, ctx);
    if (!r.patches.empty()) {  // as the pass patched them (forward_pass.cpp attendLayer)
        detail::applyPatches(r.patches, PatchSite::Query, head.layer, m.spec, p.firstHead, p.q);
        detail::applyPatches(r.patches, PatchSite::Key, head.layer, m.spec, p.firstKvHead, p.k);
        detail::applyPatches(r.patches, PatchSite::Value, head.layer, m.spec, p.firstKvHead, p.v);
    }
    cancel.throwIfCancelled();
    const Eigen::Index n = r.nTokens;
    HeadRecord rec{Matrix(n, n), Matrix(n, n), Matrix(n, r.headDimV), Vector(n)};
    detail::attendHead(m.spec, p, head.head, r.scales[static_cast<std::size_t>(head.layer)], ctx,
                       {rec.logits, rec.probs, rec.context, rec.entropy});
    if (const auto kind = r.ablationOf(head)) {
        detail::ablateHead(m.spec, p, head, *kind, r.interventions.means.get(),
                           {rec.logits, rec.probs, rec.context, rec.entropy});
    }
    detail::applyPatches(r.patches, PatchSite::HeadOutput, head.layer, m.spec, head.head,
                         rec.context);
    return rec;
}

HeadRecord headRecord(const model::Model& m, const ForwardResult& r, HeadId head,
                      const CancelToken& cancel) {
    if (!r.mapsRecorded) {
        return recomputeHead(m, r, head, cancel);
    }
    return {r.logitsOf(head), r.attention(head), r.contextOf(head), r.entropyOf(head)};
}

}  // namespace attnscope::forward
