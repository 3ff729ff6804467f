// The shared forward pass. Architecture differences arrive only as ModelSpec flags
// (norm placement, activation, position scheme, default mask); the math is written once.
#include "attnscope/forward/forward_pass.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

#include <omp.h>

#include "attnscope/base/error.h"
#include "attnscope/base/head_id.h"
#include "attnscope/base/threads.h"
#include "attnscope/forward/layer_block.h"
#include "attnscope/ops/attention.h"
#include "attnscope/ops/half_matrix.h"
#include "attnscope/ops/layer_ops.h"
#include "attnscope/ops/rope.h"
#include "head_ablation.h"
#include "layer_attention.h"
#include "pass_parts.h"

namespace attnscope::forward {

using model::ModelSpec;

namespace {

// Edge of a head's preview when the full maps are not kept: enough for a grid thumbnail.
constexpr int kPreviewSize = 48;

void checkInput(const ModelSpec& spec, const ForwardInput& input) {
    const auto n = input.tokenIds.size();
    if (n == 0) {
        throw InvalidArgument("forward pass: no tokens");
    }
    if (n > static_cast<std::size_t>(spec.maxTokens())) {
        throw InvalidArgument("forward pass: " + std::to_string(n) + " tokens exceed the " +
                              std::to_string(spec.maxTokens()) +
                              " positions this model has (max_position_embeddings)");
    }
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t id = input.tokenIds[i];
        if (id < 0 || id >= spec.vocabSize) {
            throw InvalidArgument("forward pass: token " + std::to_string(i) + ": id " +
                                  std::to_string(id) + " is outside the vocabulary [0, " +
                                  std::to_string(spec.vocabSize) + ")");
        }
    }
    if (!input.tokenTypeIds.empty() && input.tokenTypeIds.size() != n) {
        throw InvalidArgument("forward pass: " + std::to_string(input.tokenTypeIds.size()) +
                              " token type ids for " + std::to_string(n) + " tokens");
    }
    for (std::int32_t t : input.tokenTypeIds) {
        if (t < 0 || t >= std::max(spec.typeVocabSize, 1)) {
            throw InvalidArgument("forward pass: token type id " + std::to_string(t) +
                                  " is outside [0, " + std::to_string(spec.typeVocabSize) + ")");
        }
    }
}

}  // namespace

namespace detail {

Matrix embed(const model::Model& m, const ForwardInput& input, const std::vector<int>& pos) {
    const ModelSpec& spec = m.spec;
    const auto n = static_cast<Eigen::Index>(input.tokenIds.size());
    // Only the sentence's rows are widened when the embedding stayed half precision.
    Matrix x = ops::weightRows(m.weights.tokenEmbedding, input.tokenIds);  // [n, dModel]
    if (spec.embeddingScale != 1.0f) {
        x *= spec.embeddingScale;
    }
    for (Eigen::Index i = 0; i < n; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        if (spec.learnedPositions) {
            x.row(i) += m.weights.positionEmbedding.row(pos[ui]);
        }
        if (spec.typeVocabSize > 0) {
            const int type = input.tokenTypeIds.empty() ? 0 : input.tokenTypeIds[ui];
            x.row(i) += m.weights.tokenTypeEmbedding.row(type);
        }
    }
    if (spec.embeddingNorm) {
        x = ops::layerNorm(x, m.weights.embeddingNorm, spec.normEps);
    }
    return x;
}

}  // namespace detail

namespace {

// One head is always computed in these aligned buffers, then copied into the record when maps
// are kept. Eigen's vectorised reductions (the softmax sum) peel differently for differently
// aligned rows, so computing in place at arbitrary offsets of the record would make a head's
// bits depend on where it is stored — and recomputeHead could not reproduce them exactly.
struct HeadSink {
    Matrix logits;
    Matrix probs;
    Matrix context;
};

void keep(ForwardResult& r, std::ptrdiff_t index, const HeadSink& s) {
    const Eigen::Index n = r.nTokens;
    const Eigen::Index keys = r.keyCount();
    const Eigen::Index dv = r.headDimV;
    MatrixMap(r.logits.data() + index * n * keys, n, keys) = s.logits;
    MatrixMap(r.probs.data() + index * n * keys, n, keys) = s.probs;
    MatrixMap(r.context.data() + index * n * dv, n, dv) = s.context;
}

// The per-head summaries kept in every mode: row maxima and the largest |logit| of an
// allowed cell (what headStats needs, so it never has to read a map); without maps, also the
// pooled preview.
void summarize(ForwardResult& r, HeadId h, std::ptrdiff_t index, const HeadSink& v) {
    r.summarizeHead(h, v.probs, v.logits);
    const Eigen::Index n = r.nTokens;
    if (r.mapsRecorded) {
        return;
    }
    // Mean pooling keeps each preview row a distribution over (pooled) keys.
    const int p = r.previewSize;
    MatrixMap preview(r.previews.data() + index * p * p, p, p);
    for (int i = 0; i < p; ++i) {
        const Eigen::Index r0 = i * n / p;
        const Eigen::Index r1 = (i + 1) * n / p;
        for (int j = 0; j < p; ++j) {
            const Eigen::Index c0 = j * n / p;
            const Eigen::Index c1 = (j + 1) * n / p;
            preview(i, j) = v.probs.block(r0, c0, r1 - r0, c1 - c0).mean();
        }
    }
}

}  // namespace

// Heads are independent, so they run in parallel over the compute threads, each thread with
// its own scratch; softmax and entropy then scale with the threads, not only the products.
Matrix detail::attendHeads(const ModelSpec& spec, const Projections& p, int layer,
                           const AttentionContext& ctx, float scale, ForwardResult& r) {
    const Eigen::Index n = p.q.rows();
    const Eigen::Index keys = p.k.rows();
    const int dv = spec.headDimV;
    Matrix concat(n, spec.nHeads * dv);  // [n, nHeads * headDimV]
    std::vector<int> fullyMasked;        // the same for every head: the bias is shared
    std::exception_ptr failure;          // an exception may not leave an OpenMP region
    const int team = std::clamp(omp_get_max_threads(), 1, spec.nHeads);
#pragma omp parallel num_threads(team)
    {
        HeadSink s{Matrix(n, keys), Matrix(n, keys), Matrix(n, dv)};
#pragma omp for schedule(static)
        for (int head = 0; head < spec.nHeads; ++head) {
            try {
                const std::ptrdiff_t index = headIndex({layer, head}, spec.nHeads);
                Eigen::Map<Vector> entropy(r.entropy.data() + index * n, n);
                Eigen::Map<Vector> scaledRows(r.rowMaxAbsScaled.data() + index * n, n);
                std::vector<int> masked =
                    detail::attendHead(spec, p, head, scale, ctx,
                                       {s.logits, s.probs, s.context, entropy}, scaledRows.data());
                if (const auto kind = r.ablationOf({layer, head})) {
                    detail::ablateHead(spec, p, {layer, head}, *kind, r.interventions.means.get(),
                                       {s.logits, s.probs, s.context, entropy});
                }
                if (!r.patches.empty()) {
                    detail::applyPatches(r.patches, PatchSite::HeadOutput, layer, spec, head,
                                         s.context);
                }
                summarize(r, {layer, head}, index, s);
                if (!detail::capsLogits(spec, ctx)) {  // no cap: the scaled ones are the logits
                    scaledRows = r.rowsOf(r.rowMaxAbsLogit, {layer, head});
                }
                if (r.mapsRecorded) {
                    keep(r, index, s);
                }
                concat.middleCols(head * dv, dv) = s.context;
                if (head == 0) {
                    fullyMasked = std::move(masked);
                }
            } catch (...) {
#pragma omp critical(attnscope_attend_failure)
                failure = std::current_exception();
            }
        }
    }
    if (failure) {
        std::rethrow_exception(failure);
    }
    r.fullyMaskedRows = std::move(fullyMasked);
    return concat;
}

namespace {

// Multi-head self-attention of one layer; records every head into `r`. Returns [n, dModel],
// the output projection's result (the attention output activation patches name). With
// grouped-query attention several query heads read the same key/value head.
Matrix attendLayer(const model::Model& m, int layer, const Matrix& h,
                   const detail::AttentionContext& ctx, float scale, const ForwardOptions& options,
                   ForwardResult& r) {
    if (!r.mapsRecorded) {
        r.layerInputs.push_back(h);  // for recomputeHead
    }
    detail::Projections p = detail::project(m, layer, h, ctx);
    if (!r.patches.empty()) {
        detail::applyPatches(r.patches, PatchSite::Query, layer, m.spec, p.firstHead, p.q);
        detail::applyPatches(r.patches, PatchSite::Key, layer, m.spec, p.firstKvHead, p.k);
        detail::applyPatches(r.patches, PatchSite::Value, layer, m.spec, p.firstKvHead, p.v);
    }
    Matrix concat = detail::attendHeads(m.spec, p, layer, ctx, scale, r);
    if (!r.rowMaxAbsUnnormed.empty()) {
        detail::recordUnnormed(m.spec, layer, p, ctx, scale, r);
    }
    if (detail::keepsStates(options)) {
        r.layerValues.push_back(std::move(p.v));  // moved, not copied: the pass is done with it
    }
    Matrix out = ops::linear(concat, m.weights.layers[static_cast<std::size_t>(layer)].output);
    if (!r.patches.empty()) {
        detail::applyPatches(r.patches, PatchSite::AttnOut, layer, m.spec, 0, out);
    }
    if (options.recordActivations) {
        r.layerQueries.push_back(std::move(p.q));
        r.layerKeys.push_back(std::move(p.k));
        r.layerHeadOutputs.push_back(std::move(concat));
        r.layerAttnOut.push_back(out);
    }
    return out;
}

void allocate(ForwardResult& r, const ModelSpec& spec, const ForwardInput& input,
              const ForwardOptions& options) {
    const auto nTokens = static_cast<int>(input.tokenIds.size());
    r.mapsRecorded =
        !options.mapBudgetBytes || fullRecordBytes(spec, nTokens) <= *options.mapBudgetBytes;
    detail::sizeRecord(r, spec, input.tokenIds, 0, r.mapsRecorded);
    if (options.recordUnnormed) {
        r.rowMaxAbsUnnormed.resize(r.rowMaxAbsScaled.size());
    }
    if (!r.mapsRecorded) {
        const auto heads =
            static_cast<std::size_t>(spec.nLayers) * static_cast<std::size_t>(spec.nHeads);
        r.previewSize = std::min(r.nTokens, kPreviewSize);
        r.previews.resize(heads * static_cast<std::size_t>(r.previewSize * r.previewSize));
    }
}

}  // namespace

void detail::sizeRecord(ForwardResult& r, const ModelSpec& spec,
                        const std::vector<std::int32_t>& queryIds, int nKeys, bool withMaps) {
    r.nLayers = spec.nLayers;
    r.nHeads = spec.nHeads;
    r.nKvHeads = spec.nKvHeads;
    r.nTokens = static_cast<int>(queryIds.size());
    r.nKeys = nKeys;
    r.headDimV = spec.headDimV;
    r.tokenIds = queryIds;
    const auto heads =
        static_cast<std::size_t>(spec.nLayers) * static_cast<std::size_t>(spec.nHeads);
    const auto rows = static_cast<std::size_t>(r.nTokens);
    const auto keys = static_cast<std::size_t>(r.keyCount());
    if (withMaps) {
        r.logits.resize(heads * rows * keys);
        r.probs.resize(heads * rows * keys);
        r.context.resize(heads * rows * static_cast<std::size_t>(spec.headDimV));
    }
    r.entropy.resize(heads * rows);
    r.rowMax.resize(heads * rows);
    r.rowMaxAbsLogit.resize(heads * rows);
    r.rowMaxAbsScaled.resize(heads * rows);
    r.maxAbsLogit.resize(heads);
    r.scales.resize(static_cast<std::size_t>(spec.nLayers));
}

std::size_t fullRecordBytes(const ModelSpec& spec, int nTokens) {
    const auto n = static_cast<std::size_t>(nTokens);
    const auto heads =
        static_cast<std::size_t>(spec.nLayers) * static_cast<std::size_t>(spec.nHeads);
    return heads * (2 * n * n + n * static_cast<std::size_t>(spec.headDimV)) * sizeof(float);
}

bool layersDifferInMask(const ModelSpec& spec, const MaskChoice& choice) {
    const bool causal =
        choice.kind == MaskKind::Causal ||
        (choice.kind == MaskKind::ModelDefault && spec.defaultMask == model::DefaultMask::Causal);
    return causal && choice.modelWindow && spec.mixedWindows();
}

ops::MaskSpec maskSpecFor(const ModelSpec& spec, const MaskChoice& choice, int nTokens, int layer) {
    ops::MaskSpec mask;
    MaskKind kind = choice.kind;
    if (kind == MaskKind::ModelDefault) {
        kind = spec.defaultMask == model::DefaultMask::Causal ? MaskKind::Causal
                                                              : MaskKind::Bidirectional;
    }
    if (kind == MaskKind::Causal) {
        mask.causal = true;
        mask.causalOffset = choice.causalOffset;
        if (spec.windowed(layer) && choice.modelWindow) {
            mask.window = spec.slidingWindow;
        }
    }
    if (kind == MaskKind::Custom) {
        if (!choice.custom) {
            throw InvalidArgument("forward pass: a custom mask needs a matrix of allowed keys");
        }
        mask.allowed = *choice.custom;
    }
    if (choice.paddingTokens < 0 || choice.paddingTokens > nTokens) {
        throw InvalidArgument("forward pass: " + std::to_string(choice.paddingTokens) +
                              " padding tokens for a sequence of " + std::to_string(nTokens));
    }
    if (choice.paddingTokens > 0) {
        BoolMatrix allowed = mask.allowed.value_or(BoolMatrix::Ones(nTokens, nTokens));
        allowed.rightCols(choice.paddingTokens).setZero();
        mask.allowed = std::move(allowed);
    }
    return mask;
}

std::string maskKindName(const ModelSpec& spec, const MaskChoice& choice) {
    std::string name;
    switch (choice.kind) {
        case MaskKind::ModelDefault:
            name = spec.defaultMask == model::DefaultMask::Causal ? "causal" : "none";
            break;
        case MaskKind::Bidirectional:
            name = "none";
            break;
        case MaskKind::Causal:
            name = choice.causalOffset == 0
                       ? "causal"
                       : "causal (offset " + std::to_string(choice.causalOffset) + ")";
            break;
        case MaskKind::Custom:
            name = "custom";
            break;
    }
    if (name.starts_with("causal") && spec.slidingWindow && choice.modelWindow) {
        name += " + window " + std::to_string(*spec.slidingWindow);
        if (spec.mixedWindows()) {
            name += " in local layers";
        }
    }
    if (choice.paddingTokens > 0) {
        name += " + " + std::to_string(choice.paddingTokens) + " padding";
    }
    return name;
}

void detail::noteNonFinite(ForwardResult& r, const Matrix& x, int layer) {
    if (r.warnings.empty() && !x.allFinite()) {
        r.warnings.push_back("layer " + std::to_string(layer) +
                             " produced NaN or Inf (non-finite weights, or values too large "
                             "for fp32); its maps and all later ones are not numbers");
    }
}

namespace detail {

void buildContext(const model::Model& m, const MaskChoice& mask, const std::vector<int>& pos,
                  int layer, AttentionContext& ctx) {
    const auto n = static_cast<int>(pos.size());
    ctx.bias = ops::buildBias(maskSpecFor(m.spec, mask, n, layer), n, n);
    detail::addRelativeBias(m, ctx);
    if (m.spec.rope.dims > 0) {
        ctx.rope = ops::ropeTable(m.spec.ropeOf(layer), pos);
    }
}

ForwardResult prepare(const model::Model& m, const ForwardInput& input,
                      const ForwardOptions& options, Pass& pass) {
    const ModelSpec& spec = m.spec;
    checkInput(spec, input);
    if (options.scale && !std::isfinite(*options.scale)) {
        throw InvalidArgument("forward pass: scale " + std::to_string(*options.scale) +
                              " is not a finite number");
    }
    checkWhatIf(options.whatIf);
    ForwardResult r;
    r.whatIf = options.whatIf;
    r.ablated = resolveAblations(options.interventions, spec.nLayers, spec.nHeads, spec.nKvHeads,
                                 spec.headDimV);
    r.interventions = options.interventions;
    checkPatches(options.patches, spec, static_cast<int>(input.tokenIds.size()));
    r.patches = options.patches;
    applyComputeThreads();
    allocate(r, spec, input, options);
    pass.pos = detail::positionIds(spec, input.tokenIds);
    // Layers differ when some are windowed and others not: in their masks (unless the window
    // is switched off) and in Gemma 3's rope. Then each kind gets its context, built from its
    // first layer; otherwise layer 0's serves all.
    const bool maskDiffers = layersDifferInMask(spec, options.mask);
    const bool split = maskDiffers || (spec.localRope && spec.mixedWindows());
    const auto firstOfKind = [&](std::uint8_t windowed) {
        const auto& kinds = spec.slidingLayers;
        return static_cast<int>(std::find(kinds.begin(), kinds.end(), windowed) - kinds.begin());
    };
    buildContext(m, options.mask, pass.pos, split ? firstOfKind(0) : 0, pass.ctx);
    r.allowed = ops::allowedFromBias(pass.ctx.bias);
    if (split) {
        pass.windowed = spec.slidingLayers;
        buildContext(m, options.mask, pass.pos, firstOfKind(1), pass.windowedCtx);
        if (maskDiffers) {
            r.windowedLayers = pass.windowed;
            r.windowedAllowed = ops::allowedFromBias(pass.windowedCtx.bias);
        }
    }
    setWhatIf(spec, options.whatIf, pass.ctx);
    setWhatIf(spec, options.whatIf, pass.windowedCtx);
    pass.ctx.keepUnnormed = options.recordUnnormed;
    pass.windowedCtx.keepUnnormed = options.recordUnnormed;
    r.maskKind = maskKindName(spec, options.mask);
    return r;
}

void runLayers(const model::Model& m, const ForwardOptions& options, const Pass& pass, int first,
               Matrix x, ForwardResult& r) {
    const ModelSpec& spec = m.spec;
    const bool keepStates = keepsStates(options);
    // Records, and replaces where patched, the feed-forward output of the layer being run.
    int current = first;
    const auto onFfn = [&](Matrix& f) {
        applyPatches(r.patches, PatchSite::MlpOut, current, spec, 0, f);
        if (options.recordActivations) {
            r.layerMlpOut.push_back(f);
        }
    };
    const bool hookFfn = !r.patches.empty() || options.recordActivations;
    for (int layer = first; layer < spec.nLayers; ++layer) {
        options.cancel.throwIfCancelled();
        current = layer;
        if (!r.patches.empty()) {
            applyPatches(r.patches, PatchSite::Residual, layer, spec, 0, x);
        }
        if (keepStates) {
            r.layerStates.push_back(x);
        }
        const float scale = options.scale.value_or(spec.defaultScale(layer));
        r.scales[static_cast<std::size_t>(layer)] = scale;
        const Matrix attention = attendLayer(m, layer, attentionInput(m, layer, x),
                                             pass.ctxFor(layer), scale, options, r);
        Matrix y = attentionResidual(m, layer, x, attention);
        if (pass.cross) {
            y = pass.cross(layer, std::move(y));
        }
        x = hookFfn ? finishLayer(m, layer, x, std::move(y), onFfn)
                    : finishLayer(m, layer, x, std::move(y));
        noteNonFinite(r, x, layer);
        if (options.progress) {
            options.progress(static_cast<double>(layer + 1 - first) / (spec.nLayers - first));
        }
    }
    if (spec.finalNorm) {
        if (keepStates) {
            r.finalResidual = x;
        }
        x = ops::normalize(x, m.weights.finalNorm, spec.normKind, spec.normEps);
    }
    r.hidden = std::move(x);
}

}  // namespace detail

ForwardResult runForward(const model::Model& m, const ForwardInput& input,
                         const ForwardOptions& options) {
    detail::Pass pass;
    ForwardResult r = detail::prepare(m, input, options, pass);
    detail::runLayers(m, options, pass, 0, detail::embed(m, input, pass.pos), r);
    return r;
}

}  // namespace attnscope::forward
