// The saturation lab's what-ifs (issue 33; methods.md §13): changes to every layer's attention
// that a forward pass applies as it goes, so each changes the maps of every layer above it,
// like an ablation.
//  - QK-norm: the model's own (Qwen3, Gemma 3 per head; OLMo-2 over the whole projection), off
//    (the raw projections), or a unit-weight RMSNorm over each head's features with the model's
//    epsilon, before RoPE, in place of whatever the model has — ViT-22B's repair applied after
//    the fact to a model trained without it.
//  - Soft-cap: the model's own (Gemma 2's attn_logit_softcapping), none, or c > 0:
//    tanh(s / c) · c on the scaled scores, before the mask.
//  - The scale is ForwardOptions::scale (forward_pass.h), which already overrides every layer's.
// Plain values; no model needed to build one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attnscope/model/model_spec.h"

namespace attnscope::forward {

enum class QkNormChoice : std::uint8_t { Model, Off, Unit };

struct AttentionWhatIf {
    QkNormChoice qkNorm = QkNormChoice::Model;
    std::optional<float> softcap;  // nullopt: the model's own; 0: none; > 0: that cap

    // True when nothing is changed: the model as it is.
    bool isModel() const { return qkNorm == QkNormChoice::Model && !softcap; }

    bool operator==(const AttentionWhatIf&) const = default;
};

// "model", "off", "unit".
std::string_view qkNormChoiceName(QkNormChoice choice);

// The QK-norm a layer of `spec` applies under `w`: the model's, None, or PerHead (unit).
model::QkNorm effectiveQkNorm(const model::ModelSpec& spec, const AttentionWhatIf& w);

// The soft-cap `spec`'s layers apply under `w` (0: none).
float effectiveSoftcap(const model::ModelSpec& spec, const AttentionWhatIf& w);

// A what-if and a scale override, as the CLI takes them: comma-separated KEY=VALUE items,
//   qk-norm=model|off|unit   softcap=model|off|C (C > 0)   scale=model|inv-sqrt-dk|S (S > 0)
// "inv-sqrt-dk" is 1/sqrt(head_dim), so `headDimK` must be given. Throws InvalidArgument naming
// the item for an unknown key, a bad value or a key given twice.
struct WhatIfSetting {
    AttentionWhatIf attention;
    std::optional<float> scale;  // nullopt: each layer's own
};

WhatIfSetting parseWhatIf(std::string_view text, int headDimK);

// "qk-norm=off, softcap=2.5, scale=0.125"; "none" when `s` changes nothing. For exports and
// window titles.
std::string describe(const WhatIfSetting& s);

// Throws InvalidArgument when the soft-cap is negative or not a finite number.
void checkWhatIf(const AttentionWhatIf& w);

}  // namespace attnscope::forward
