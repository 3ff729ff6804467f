// Token × token attribution maps of one sentence beyond raw attention (issue 19): norm-based
// ‖αf(x)‖ (Kobayashi et al. 2020), rollout and flow (Abnar & Zuidema 2020), ALTI (Ferrando et
// al. 2022) and value zeroing (Mohebbi et al. 2023). The rules are A1–A15 of
// tests/reference/attribution_reference.py, the independent reference this code is checked
// against (tests/core/analysis/attribution_parity_test.cpp); the code cites them by number.
//
// Every method starts from one forward pass (attributionPassOptions) and reads its recorded maps
// and the residual stream entering each layer. Rows are query (receiving) positions, columns key
// (source) positions; every position, special tokens included, is a row and a column (A1).
// Thread-safe on a const Model and a const ForwardResult. No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/analysis/attention_flow.h"
#include "attnscope/base/cancel.h"
#include "attnscope/base/uninitialized_vector.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

enum class AttributionMethod : std::uint8_t { Raw, Norm, Rollout, Flow, Alti, ValueZeroing };

inline constexpr AttributionMethod kAttributionMethods[] = {
    AttributionMethod::Raw,  AttributionMethod::Norm, AttributionMethod::Rollout,
    AttributionMethod::Flow, AttributionMethod::Alti, AttributionMethod::ValueZeroing};

// "raw", "norm", "rollout", "flow", "alti", "value-zeroing": the CLI's --method names and the
// exports' method attribute.
std::string attributionMethodName(AttributionMethod method);
// "Raw attention", "Norm-based ‖αf(x)‖", "Attention rollout", "Attention flow", "ALTI",
// "Value zeroing": what menus and titles show.
std::string attributionMethodTitle(AttributionMethod method);
// The method of a name above; nullopt for anything else.
std::optional<AttributionMethod> parseAttributionMethod(std::string_view name);

// Raw and Norm have a map per head as well as per layer; the others only per layer.
bool hasHeadMaps(AttributionMethod method);
// Rollout, flow and ALTI accumulate over layers: map l is the mixing after layers 0..l.
bool isCumulative(AttributionMethod method);
// Flow and value zeroing are the slow ones (L·n² max-flow problems; n forward blocks per layer).
bool isSlow(AttributionMethod method);

struct Attribution {
    AttributionMethod method = AttributionMethod::Raw;
    int nLayers = 0;
    int nHeads = 0;
    int nTokens = 0;
    // The map each layer gets, [nLayers, n, n]: raw: the mean of the layer's heads (A6's Ā);
    // norm: norm_layer (A5); rollout: R_l (A6); flow: row-normalised flow (A7); ALTI: the rollout
    // of the layers' contributions (A11 alti); value zeroing: layer l's own map (A13), the last
    // layer's compared after the model's final norm where it has one (A12, as inseq does).
    LayerMaps layers;
    // [nLayers, nHeads, n, n]: raw: the probabilities; norm: norm_head (A5). Empty otherwise.
    FloatBuffer heads;  // sized without zeroing: every method that has head maps writes them all
    // Norm: ‖f^h(x_j)‖ (A5 transformed_norm), [nLayers, nHeads, n]. Empty otherwise.
    std::vector<double> transformedNorm;
    // Flow: flow_raw, the max-flow values before row normalisation (A7); ALTI: alti_layer, each
    // layer's own contributions C_l (A11); value zeroing: value_zeroing_raw, 1 − cos before A13.
    // Empty (nLayers 0) for the other methods.
    LayerMaps perLayer;
    // ALTI: each layer's reconstruction error (A10), max |ŷ − y| over tokens and features.
    std::vector<double> reconstructionError;

    const double* layer(int l) const { return layers.layer(l); }

    // Head h of layer l, [n, n] row-major; only when hasHeadMaps(method).
    const float* head(int l, int h) const {
        const auto n = static_cast<std::size_t>(nTokens);
        return heads.data() + (static_cast<std::size_t>(l) * static_cast<std::size_t>(nHeads) +
                               static_cast<std::size_t>(h)) *
                                  n * n;
    }
};

struct AttributionOptions {
    CancelToken cancel;
    // Fraction done; per layer for norm, ALTI and value zeroing, per max-flow layer for flow.
    ProgressFn progress;
};

// `base` with what every method needs from its forward pass: the residual stream entering each
// layer kept. Mask, scale and map budget stay as given: the maps are those of the pass the user
// sees, and heads whose maps the budget dropped are recomputed exactly (head_record.h).
forward::ForwardOptions attributionPassOptions(forward::ForwardOptions base);

// The method's maps for the sentence of `pass`. InvalidArgument when the pass kept no layer
// states (norm, ALTI, value zeroing need them), ablated a head, or when flow gets n >
// kFlowMaxTokens (A8); Error naming layer, token and feature when ALTI's reconstruction check
// fails (A10), and naming the layer when an activation is not finite (A14); Cancelled once
// options.cancel is set
// (checked per layer, and per key inside value zeroing and flow).
Attribution computeAttribution(const model::Model& model, const forward::ForwardResult& pass,
                               AttributionMethod method, const AttributionOptions& options = {});

}  // namespace attnscope::analysis
