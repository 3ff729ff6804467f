// Where each checkpoint tensor goes among the typed weight slots (fp32 or kept half
// precision), and the shape it must have there; split out of loader.cpp. Internal to
// attnscope_core.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/model/arch_table.h"
#include "attnscope/model/model.h"
#include "attnscope/model/weights.h"

namespace attnscope::model::detail {

// The [rows, cols] a role must have, in nn.Linear [out, in] terms; cols == 0 for vectors.
std::pair<int, int> expectedShape(Role role, const ModelSpec& s);

void assignLayerSlot(Role role, Matrix m, const ModelSpec& spec, LayerWeights& l);
void assignModelSlot(Role role, Matrix m, Weights& w);

// The matrices that may stay as stored, half precision or ggml blocks (the bulk of every
// model): the per-layer projections, the token embedding and the prediction decoder.
bool halfEligible(Role role);
// `stored` holds its matrix in `half` or `blocks` (Linear::isStored), nothing else.
void assignStoredSlot(Role role, Linear stored, const ModelSpec& s, LayerWeights& l);
void assignStoredModelSlot(Role role, Linear stored, Weights& w);

// Gemma's (1 + w) norms (spec.normPlusOne): adds 1 to every norm weight a Hugging Face
// checkpoint held, once all are read.
void addOneToNormWeights(Weights& w);

// A tensor name pattern with "{}" replaced by the layer number.
std::string layerName(std::string pattern, int layer);

// "[768, 3072]", for messages.
std::string shapeText(const std::vector<std::int64_t>& shape);

// The load warnings every file format gives, in the same words, appended to `warnings`:
// weights holding NaN or Inf ("N weight tensor(s) hold NaN or Inf: t (k values), ...;
// attention computed from them is not a number", three named) and tensors the model does not
// use ("ignored N unknown tensor(s): a, b, ...", five named). An empty list adds nothing.
void addWeightWarnings(const std::vector<std::string>& nonFinite,
                       const std::vector<std::string>& unknown, std::vector<std::string>& warnings);

// Whether F16/BF16 matrices stay half precision: asked for, or Auto and their fp32 copy
// (`floats` values in all) would pass kAutoHalfBytes. The same rule for every file format.
bool keepHalfWeights(std::size_t floats, WeightPrecision precision);

}  // namespace attnscope::model::detail
