// Reading a GGUF file's tensors into the typed weight slots (weight_slots.h): names mapped
// through the architecture (gguf_arch.h), shapes checked against the spec, llama's interleaved
// q/k rows put back in Hugging Face's order, quantized matrices kept as ggml blocks and
// F16/BF16 ones as half precision unless fp32 is asked for. Internal to attnscope_core.
#pragma once

#include "attnscope/io/gguf.h"
#include "attnscope/model/model.h"
#include "gguf_arch.h"

namespace attnscope::model::gguf {

// Fills model.weights (and the spec's prediction and rope factors) from `file`; the spec is
// read already. Adds warnings for tensors it does not use.
void readGgufWeights(const io::GgufFile& file, const GgufArch& arch, Model& model,
                     const LoadOptions& options);

// "Q4_K×98 + Q6_K×17 + F32×65": the tensor types in the file, most frequent first.
std::string tensorTypeMix(const io::GgufFile& file);

}  // namespace attnscope::model::gguf
