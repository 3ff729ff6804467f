// A loaded model: its spec, its weights (fp32, or F16/BF16 as stored) and (when the folder has
// one) its tokenizer, or, when only token ids will be run, just its vocabulary.
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
    // Null when the folder has none, or with TokenizerLoading::VocabularyOnly.
    std::unique_ptr<const tokenize::Tokenizer> tokenizer;
    // TokenizerLoading::VocabularyOnly: the pieces and special tokens alone; else null.
    std::unique_ptr<const tokenize::TokenVocabulary> vocabularyOnly;
    std::string storedDtypes;           // "F16", "F32+BF16", ...
    std::string tensorPrefix;           // "bert.", "" ...
    std::int64_t parameterCount = 0;    // weights used by the forward pass
    bool halfWeights = false;           // big matrices kept in F16/BF16 (LoadOptions::weights)
    bool blockWeights = false;          // quantized GGUF matrices kept as ggml blocks
    bool int8Activations = false;       // some of them multiplied with 8-bit activations
    std::vector<std::string> warnings;  // recoverable oddities found loading
    // Encoder-decoder models (T5, BART, Marian): `spec` and `weights` above are the encoder's, and
    // this is the decoder stack (its own spec: layers, heads, causal mask, cross-attention; its
    // own weights, with the LM head). Null for encoder-only and decoder-only models.
    std::unique_ptr<const Model> decoder;
    // Marian: the target side's tokenizer (its own SentencePiece model, the same vocabulary).
    // Null when `tokenizer` serves both sides.
    std::unique_ptr<const tokenize::Tokenizer> targetTokenizer;

    bool isEncoderDecoder() const { return decoder != nullptr; }

    // The tokenizer for decoder text: the target one when the model has its own, else the one.
    const tokenize::Tokenizer* targetTextTokenizer() const {
        return targetTokenizer ? targetTokenizer.get() : tokenizer.get();
    }

    // What token ids mean (labels, [MASK], padding): the tokenizer, else the vocabulary read
    // alone; null when the folder has neither.
    const tokenize::TokenVocabulary* vocabulary() const {
        return tokenizer ? tokenizer.get() : vocabularyOnly.get();
    }
};

// How F16/BF16 weights are held in memory: the layer matrices, the token embedding and an untied
// prediction decoder. Float32 widens them once at load (fastest products); AsStored keeps them
// half precision and widens per block inside each product, and only the sentence's rows of the
// embedding (half the memory, same numbers: widening is exact). Auto keeps them as stored when
// the fp32 copy would pass kAutoHalfBytes.
enum class WeightPrecision { Auto, Float32, AsStored };

inline constexpr std::size_t kAutoHalfBytes = std::size_t{8} << 30;  // 8 GiB

// Full loads the tokenizer, so text can be run (a tokenizer AttnScope cannot run is an error).
// VocabularyOnly is for token ids given as such: the tokenizer is not loaded, only its pieces and
// special tokens are read to label the ids (tokenize/token_vocabulary.h), and a problem with
// them is a warning, the ids then labelled by their numbers.
enum class TokenizerLoading { Full, VocabularyOnly };

// How a quantized GGUF matrix (ggml blocks) is multiplied. Exact: its weights dequantized as ggml
// does, times fp32 activations, the meaning of the model. Int8: as llama.cpp does on a CPU, each
// row of activations quantized to 8 bits per block first (ops/q8_product.h): 2–3× faster
// products, about 1–3 % off the exact ones; types the 8-bit product does not take (Q4_1, Q5_1,
// Q8_K, the float types) stay exact.
enum class ActivationPrecision { Exact, Int8 };

struct LoadOptions {
    CancelToken cancel;
    ProgressFn progress;  // fraction of the checkpoint's tensor bytes read; may be empty
    WeightPrecision weights = WeightPrecision::Auto;
    TokenizerLoading tokenizer = TokenizerLoading::Full;
    ActivationPrecision activations = ActivationPrecision::Exact;
};

// Loads a Hugging Face model folder (config.json + safetensors weights + tokenizer files), or a
// GGUF file of llama.cpp / Ollama (a path to a *.gguf file; `dir` is then that file).
// Throws FormatError / UnsupportedModel naming the file and the tensor or key (with
// TokenizerLoading::Full, also for tokenizer files it cannot run), and Cancelled.
std::shared_ptr<const Model> loadModel(const std::filesystem::path& dir,
                                       const LoadOptions& options = {});

// The tokenizer alone of a model folder (its tokenizer files; config.json's model_type when
// there is one) or of a .gguf file (its tokenizer.ggml.* keys); nullptr when there is none.
// Errors as loadModel's, naming the folder or file.
std::unique_ptr<const tokenize::Tokenizer> loadModelTokenizer(const std::filesystem::path& path);

}  // namespace attnscope::model
