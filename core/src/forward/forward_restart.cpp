// runForwardFrom: a pass that reuses a clean pass below its first ablated or patched layer
// (ablation, importance, activation patching), so each variant costs only the layers it changes.
#include <algorithm>
#include <string>

#include "attnscope/base/error.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_pass.h"
#include "pass_parts.h"

namespace attnscope::forward {

using model::ModelSpec;

namespace {

[[noreturn]] void fail(const std::string& why) {
    throw InvalidArgument("forward pass from a clean result: " + why);
}

// What the layers below `first` of `clean` must share with the pass asked for.
void checkBelow(const ModelSpec& spec, const ForwardResult& clean, const ForwardOptions& options,
                int first) {
    for (int layer = 0; layer < first; ++layer) {
        if (clean.scales[static_cast<std::size_t>(layer)] !=
            options.scale.value_or(spec.defaultScale(layer))) {
            fail("layer " + std::to_string(layer) + " used another scale");
        }
        for (int head = 0; head < spec.nHeads; ++head) {
            if (const auto kind = clean.ablationOf({layer, head})) {
                fail("head " + HeadId{layer, head}.toString() + " is ablated in it (" +
                     ablationKindName(*kind) + ")");
            }
        }
    }
    for (const ActivationPatch& p : clean.patches.items) {
        // A residual patch at `first` is inside the state the restart starts from.
        if (p.layer < first || (p.layer == first && p.site == PatchSite::Residual)) {
            fail("it was patched below layer " + std::to_string(first) + " (" + describe(p) + ")");
        }
    }
    if (options.recordActivations && first > 0 &&
        clean.layerAttnOut.size() != static_cast<std::size_t>(spec.nLayers)) {
        fail("it recorded no activations (ForwardOptions::recordActivations)");
    }
}

void checkRestart(const ModelSpec& spec, const ForwardResult& clean, const ForwardResult& r,
                  const ForwardOptions& options, int first) {
    if (clean.layerStates.size() != static_cast<std::size_t>(spec.nLayers)) {
        fail("it kept no layer states (ForwardOptions::keepLayerStates)");
    }
    if (clean.tokenIds != r.tokenIds) {
        fail("it ran on other tokens");
    }
    if (clean.maskKind != r.maskKind || clean.allowed != r.allowed ||
        clean.windowedLayers != r.windowedLayers || clean.windowedAllowed != r.windowedAllowed) {
        fail("it used another mask (" + clean.maskKind + ")");
    }
    if (clean.mapsRecorded != r.mapsRecorded) {
        fail("it recorded maps in another mode (map budget)");
    }
    if (clean.whatIf != r.whatIf) {
        fail("it ran with other QK-norm or soft-cap what-ifs");
    }
    if (clean.rowMaxAbsUnnormed.size() != r.rowMaxAbsUnnormed.size()) {
        fail("it recorded the unnormed logits' maxima in another mode");
    }
    checkBelow(spec, clean, options, first);
}

template <class V>
void copyPrefix(const V& from, V& to, std::size_t count) {
    std::copy_n(from.data(), count, to.data());
}

template <class T>
void assignPrefix(const std::vector<T>& from, std::vector<T>& to, int first) {
    to.assign(from.begin(), from.begin() + first);
}

// Everything the layers below `first` recorded, from `clean` into `r`.
void reuseBelow(const ForwardResult& clean, ForwardResult& r, int first,
                const ForwardOptions& options) {
    const auto heads = static_cast<std::size_t>(first) * static_cast<std::size_t>(r.nHeads);
    const auto n = static_cast<std::size_t>(r.nTokens);
    if (r.mapsRecorded) {
        copyPrefix(clean.logits, r.logits, heads * n * n);
        copyPrefix(clean.probs, r.probs, heads * n * n);
        copyPrefix(clean.context, r.context, heads * n * static_cast<std::size_t>(r.headDimV));
    } else {
        copyPrefix(clean.previews, r.previews,
                   heads * static_cast<std::size_t>(r.previewSize * r.previewSize));
        assignPrefix(clean.layerInputs, r.layerInputs, first);
    }
    copyPrefix(clean.entropy, r.entropy, heads * n);
    copyPrefix(clean.rowMax, r.rowMax, heads * n);
    copyPrefix(clean.rowMaxAbsLogit, r.rowMaxAbsLogit, heads * n);
    copyPrefix(clean.rowMaxAbsScaled, r.rowMaxAbsScaled, heads * n);
    copyPrefix(clean.rowMaxAbsUnnormed, r.rowMaxAbsUnnormed,
               r.rowMaxAbsUnnormed.empty() ? 0 : heads * n);
    copyPrefix(clean.maxAbsLogit, r.maxAbsLogit, heads);
    copyPrefix(clean.scales, r.scales, static_cast<std::size_t>(first));
    r.fullyMaskedRows = clean.fullyMaskedRows;
    if (detail::keepsStates(options)) {
        assignPrefix(clean.layerStates, r.layerStates, first);
        assignPrefix(clean.layerValues, r.layerValues, first);
    }
    if (options.recordActivations && first > 0) {
        assignPrefix(clean.layerQueries, r.layerQueries, first);
        assignPrefix(clean.layerKeys, r.layerKeys, first);
        assignPrefix(clean.layerHeadOutputs, r.layerHeadOutputs, first);
        assignPrefix(clean.layerAttnOut, r.layerAttnOut, first);
        assignPrefix(clean.layerMlpOut, r.layerMlpOut, first);
    }
    // The same warning the full pass would have written for those layers.
    for (int layer = 0; layer < first && layer + 1 < r.nLayers; ++layer) {
        detail::noteNonFinite(r, clean.layerStates[static_cast<std::size_t>(layer) + 1], layer);
    }
}

}  // namespace

ForwardResult runForwardFrom(const model::Model& m, const ForwardResult& clean,
                             const ForwardInput& input, const ForwardOptions& options) {
    detail::Pass pass;
    ForwardResult r = detail::prepare(m, input, options, pass);
    const int first = std::min(firstAblatedLayer(r.ablated, r.nLayers, r.nHeads),
                               r.patches.firstLayer(r.nLayers));
    checkRestart(m.spec, clean, r, options, first);
    reuseBelow(clean, r, first, options);
    if (first == r.nLayers) {  // nothing ablated or patched: the clean pass is the answer
        r.warnings = clean.warnings;
        r.hidden = clean.hidden;
        if (detail::keepsStates(options)) {
            r.finalResidual = clean.finalResidual;
        }
        return r;
    }
    detail::runLayers(m, options, pass, first, clean.layerStates[static_cast<std::size_t>(first)],
                      r);
    return r;
}

}  // namespace attnscope::forward
