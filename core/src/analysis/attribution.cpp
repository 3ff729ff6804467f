// The method table and the maps that need only the recorded attention: raw, rollout, flow
// (rules A3, A6–A8 of tests/reference/attribution_reference.py). The decomposing methods are in
// attribution_norm.cpp, attribution_alti.cpp and attribution_value_zeroing.cpp.
#include "attnscope/analysis/attribution.h"

#include <string>

#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"
#include "attribution_layers.h"

namespace attnscope::analysis {

namespace {

struct MethodInfo {
    AttributionMethod method;
    const char* name;
    const char* title;
};

constexpr MethodInfo kInfo[] = {
    {AttributionMethod::Raw, "raw", "Raw attention"},
    {AttributionMethod::Norm, "norm", "Norm-based ‖αf(x)‖"},
    {AttributionMethod::Rollout, "rollout", "Attention rollout"},
    {AttributionMethod::Flow, "flow", "Attention flow"},
    {AttributionMethod::Alti, "alti", "ALTI"},
    {AttributionMethod::ValueZeroing, "value-zeroing", "Value zeroing"},
};

const MethodInfo& info(AttributionMethod method) {
    for (const MethodInfo& i : kInfo) {
        if (i.method == method) {
            return i;
        }
    }
    throw InvalidArgument("attribution: unknown method");
}

// The pass's probabilities as float maps: its record copied at once, or each head recomputed
// when the map budget dropped them.
FloatBuffer headMaps(const model::Model& model, const forward::ForwardResult& pass,
                     const CancelToken& cancel) {
    if (pass.mapsRecorded) {
        return pass.probs;
    }
    const auto n = static_cast<std::size_t>(pass.nTokens);
    FloatBuffer out(static_cast<std::size_t>(pass.nLayers * pass.nHeads) * n * n);
    for (int l = 0; l < pass.nLayers; ++l) {
        for (int h = 0; h < pass.nHeads; ++h) {
            const forward::HeadRecord record = forward::recomputeHead(model, pass, {l, h}, cancel);
            const auto at = static_cast<std::size_t>(headIndex({l, h}, pass.nHeads)) * n * n;
            std::copy_n(record.probs.data(), n * n, out.data() + at);
        }
    }
    return out;
}

// Raw attention, rollout or flow: all from A6's mean over heads.
Attribution fromAttention(const model::Model& model, const forward::ForwardResult& pass,
                          AttributionMethod method, const AttributionOptions& options) {
    Attribution a = detail::emptyAttribution(method, pass);
    const auto cells = static_cast<std::size_t>(pass.nTokens) * pass.nTokens;
    if (method != AttributionMethod::Raw) {
        // Straight from the pass's record: only raw keeps a copy of every head.
        const LayerMaps residual = residualAttention(model, pass, options.cancel);
        if (method == AttributionMethod::Rollout) {
            a.layers = rollout(residual);
            return a;
        }
        a.perLayer = attentionFlowRaw(residual, options.cancel, options.progress);
        a.layers = rowNormalized(a.perLayer);  // rows > 0: the residual path always flows (A7)
        return a;
    }
    a.heads = headMaps(model, pass, options.cancel);
    // The layer map is the plain mean Ā: heads summed in order, as residualAttention does.
    for (int l = 0; l < a.nLayers; ++l) {
        double* out = a.layers.values.data() + static_cast<std::size_t>(l) * cells;
        for (int h = 0; h < a.nHeads; ++h) {
            const float* map = a.head(l, h);
            for (std::size_t c = 0; c < cells; ++c) {
                out[c] += static_cast<double>(map[c]);
            }
        }
        for (std::size_t c = 0; c < cells; ++c) {
            out[c] /= a.nHeads;
        }
    }
    return a;
}

void checkPass(const forward::ForwardResult& pass, AttributionMethod method) {
    const std::string what = "attribution (" + std::string(info(method).name) + ")";
    if (pass.nLayers < 1 || pass.nHeads < 1 || pass.nTokens < 1) {
        throw InvalidArgument(what + ": the forward pass is empty");
    }
    for (const auto& kind : pass.ablated) {
        if (kind) {
            throw InvalidArgument(what + ": the forward pass ablated heads; attribution " +
                                  "explains the model as it is");
        }
    }
    if (!pass.warnings.empty()) {  // A14
        throw Error(what + ": " + pass.warnings.front());
    }
    const bool needsStates = method == AttributionMethod::Norm ||
                             method == AttributionMethod::Alti ||
                             method == AttributionMethod::ValueZeroing;
    if (needsStates && pass.layerStates.size() != static_cast<std::size_t>(pass.nLayers)) {
        throw InvalidArgument(what + ": the forward pass kept no layer states " +
                              "(attributionPassOptions)");
    }
}

}  // namespace

std::string attributionMethodName(AttributionMethod method) {
    return info(method).name;
}

std::string attributionMethodTitle(AttributionMethod method) {
    return info(method).title;
}

std::optional<AttributionMethod> parseAttributionMethod(std::string_view name) {
    for (const MethodInfo& i : kInfo) {
        if (name == i.name) {
            return i.method;
        }
    }
    return std::nullopt;
}

bool hasHeadMaps(AttributionMethod method) {
    return method == AttributionMethod::Raw || method == AttributionMethod::Norm;
}

bool isCumulative(AttributionMethod method) {
    return method == AttributionMethod::Rollout || method == AttributionMethod::Flow ||
           method == AttributionMethod::Alti;
}

bool isSlow(AttributionMethod method) {
    return method == AttributionMethod::Flow || method == AttributionMethod::ValueZeroing;
}

forward::ForwardOptions attributionPassOptions(forward::ForwardOptions base) {
    base.keepLayerStates = true;
    return base;
}

Attribution detail::emptyAttribution(AttributionMethod method, const forward::ForwardResult& pass,
                                     bool withPerLayer) {
    Attribution a;
    a.method = method;
    a.nLayers = pass.nLayers;
    a.nHeads = pass.nHeads;
    a.nTokens = pass.nTokens;
    a.layers.nLayers = pass.nLayers;
    a.layers.nTokens = pass.nTokens;
    a.layers.values.assign(static_cast<std::size_t>(pass.nLayers) * pass.nTokens * pass.nTokens,
                           0.0);
    if (withPerLayer) {
        a.perLayer = a.layers;
    }
    return a;
}

// The decompositions of Norm and ALTI are written for pre- and post-norm layers with one
// mask; the later decoders' norms on the attention output (Gemma 2/3, OLMo-2), GPT-NeoX's
// parallel residual and per-layer masks (Gemma's local layers) are not in them.
void checkArchitecture(const model::Model& model, const forward::ForwardResult& pass,
                       AttributionMethod method) {
    const model::ModelSpec& spec = model.spec;
    const bool layerForms = spec.normPlacement == model::NormPlacement::Sandwich ||
                            spec.normPlacement == model::NormPlacement::Output ||
                            spec.parallelResidual;
    if ((layerForms && (method == AttributionMethod::Norm || method == AttributionMethod::Alti)) ||
        !pass.windowedLayers.empty()) {
        throw UnsupportedModel(
            "attribution (" + std::string(info(method).name) + "): not available for " +
            spec.modelType +
            (pass.windowedLayers.empty()
                 ? ": its layers norm the attention output or add the sublayers in parallel, "
                   "which this method's decomposition does not cover"
                 : ": its local and global layers use different masks"));
    }
}

Attribution computeAttribution(const model::Model& model, const forward::ForwardResult& pass,
                               AttributionMethod method, const AttributionOptions& options) {
    checkPass(pass, method);
    checkArchitecture(model, pass, method);
    switch (method) {
        case AttributionMethod::Norm:
            return detail::normBased(model, pass, options);
        case AttributionMethod::Alti:
            return detail::alti(model, pass, options);
        case AttributionMethod::ValueZeroing:
            return detail::valueZeroing(model, pass, options);
        default:
            return fromAttention(model, pass, method, options);
    }
}

}  // namespace attnscope::analysis
