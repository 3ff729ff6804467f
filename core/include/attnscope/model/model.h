// A loaded model: its spec, its weights (fp32, or F16/BF16 as stored) and (when the folder has
// one) its tokenizer.
//
// Immutable after loading and shared as std::shared_ptr<const Model>, so any number of
// threads may run forward passes on it at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/model/model_spec.h"
#include "attnscope/model/weights.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::model {

struct Model {
    std::filesystem::path dir;
    ModelSpec spec;
    Weights weights;
    std::unique_ptr<const tokenize::Tokenizer> tokenizer;  // null: the folder has none
    std::string storedDtypes;                              // "F16", "F32+BF16", ...
    std::string tensorPrefix;                              // "bert.", "" ...
    std::int64_t parameterCount = 0;                       // weights used by the forward pass
    bool halfWeights = false;           // big matrices kept in F16/BF16 (LoadOptions::weights)
    std::vector<std::string> warnings;  // recoverable oddities found loading
};

// How F16/BF16 weights are held in memory: the layer matrices, the token embedding and an untied
// prediction decoder. Float32 widens them once at load (fastest products); AsStored keeps them
// half precision and widens per block inside each product, and only the sentence's rows of the
// embedding (half the memory, same numbers: widening is exact). Auto keeps them as stored when
// the fp32 copy would pass kAutoHalfBytes.
enum class WeightPrecision { Auto, Float32, AsStored };

inline constexpr std::size_t kAutoHalfBytes = std::size_t{8} << 30;  // 8 GiB

struct LoadOptions {
    CancelToken cancel;
    ProgressFn progress;  // fraction of the checkpoint's tensor bytes read; may be empty
    WeightPrecision weights = WeightPrecision::Auto;
};

// Loads a Hugging Face model folder (config.json + safetensors weights + tokenizer files).
// Throws FormatError / UnsupportedModel naming the file and the tensor or key, and Cancelled.
std::shared_ptr<const Model> loadModel(const std::filesystem::path& dir,
                                       const LoadOptions& options = {});

}  // namespace attnscope::model
