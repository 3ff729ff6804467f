// The architecture tables (one .cpp each in this folder), which arch_table.cpp lists, the
// pieces they are built from (table_parts.cpp), and the BERT pieces that BERT, ELECTRA and
// RoBERTa share: they store the same tensor names and read the same config keys. Private to the
// model library.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attnscope/model/arch_table.h"

namespace attnscope::model::arch {

// Table building. Names with "{}" (the layer) or built from a stack's prefix are kept for the
// life of the program: the tables hold const char*.
const char* keptName(const std::string& name);

using Needed = bool (*)(const ModelSpec&);

// A projection under `base`: base.weight (nn.Linear's [out, in] unless `layout` says
// otherwise) and base.bias, the bias only where `biasNeeded` says (null: always).
void addLinear(std::vector<TensorEntry>& e, Role weight, Role bias, const std::string& base,
               Needed biasNeeded = nullptr, Layout layout = Layout::LinearOutIn);
// A LayerNorm under `base`: base.weight and base.bias, both only where `needed` says.
void addNorm(std::vector<TensorEntry>& e, Role weight, Role bias, const std::string& base,
             Needed needed = nullptr);

// Where a biased, LayerNorm'd attention or feed-forward block keeps its tensors, under the
// layer's prefix: projections and norms, each with .weight and .bias.
struct AttentionNames {
    const char* query;
    const char* key;
    const char* value;
    const char* output;
    const char* norm;  // the norm that goes with the block (after it post-norm, before it pre-norm)
};

struct FeedForwardNames {
    const char* up;
    const char* down;
    const char* norm;
};

// Self-attention's roles, or with `cross` cross-attention's.
void addAttention(std::vector<TensorEntry>& e, const std::string& layer, const AttentionNames& n,
                  bool cross = false);
void addFeedForward(std::vector<TensorEntry>& e, const std::string& layer,
                    const FeedForwardNames& n);

// A BERT-style masked-LM head: dense and LayerNorm transform under `dense` and `norm`, then the
// vocabulary projection's weight and (optional) bias.
PredictionLayout maskedLmHead(const std::string& dense, const std::string& norm,
                              const char* decoderWeight, const char* decoderBias);

// The config's names for the model's sizes (BertConfig: hidden_size, num_attention_heads,
// num_hidden_layers, intermediate_size).
struct SizeKeys {
    const char* width;
    const char* heads;
    const char* layers;
    const char* ffn;
};

// dModel, nHeads, nLayers, dFfn and vocabSize ("vocab_size"), read in that order.
void readSizes(const io::JsonFile& config, const SizeKeys& keys, ModelSpec& spec);

// headDimK = headDimV = dModel / nHeads; FormatError naming the config's two keys (and
// `orElse`, what would have served instead) when the heads do not divide the width.
void setHeadDims(ModelSpec& spec, const std::string& file, const std::string& widthKey,
                 const std::string& headsKey, const std::string& orElse = "");

std::vector<TensorEntry> bertTensorEntries();

// The Llama family's shape (pre-norm causal decoder, RMSNorm, SwiGLU, rotary positions only,
// a final norm): the flags its Hugging Face config and its GGUF metadata both imply.
void setLlamaFamilyFlags(ModelSpec& spec);

// The Llama family's tensor names ("model." prefix) and the later decoders' variations on them:
// where the layer norms sit (Pre: input_layernorm and post_attention_layernorm before each
// sublayer; Sandwich, Gemma 2/3: those plus pre_/post_feedforward_layernorm, with
// post_attention_layernorm on the attention's output; Output, OLMo-2: only the norms on the
// outputs), and q_norm / k_norm. Biases as spec.qkvBias / outputBias / ffnBias say.
std::vector<TensorEntry> llamaTensorEntries(NormPlacement norms, bool qkNorm = false);

// What the Llama family's checkpoints hold that AttnScope does not use (rotary buffers, a
// classification head), and its LM head, lm_head.weight (tied when absent).
std::vector<const char*> llamaIgnored();
PredictionLayout causalLmHead();

// Qwen2/Qwen3's window: with use_sliding_window, the layers from max_window_layers on (or as
// layer_types lists them).
void readQwenWindow(const io::JsonFile& config, ModelSpec& spec);

// LlamaConfig's keys (sizes, head_dim, rms_norm_eps, hidden_act, biases, tied head, RoPE with
// its scaling), which the later decoders (Gemma, Qwen3, OLMo-2, Phi-3) keep.
ModelSpec readLlamaFamilyConfig(const io::JsonFile& config);

// A positive number at `key`, `fallback` when it is absent; FormatError naming the key otherwise.
double positiveNumber(const io::JsonFile& config, const std::string& key, double fallback);

// A soft-cap value (Gemma 2's attn_logit_softcapping, final_logit_softcapping): `fallback`
// when absent, 0 (no cap) when null, else a positive number.
float softcap(const io::JsonFile& config, const std::string& key, double fallback);

// spec.slidingLayers from config.json's `layer_types` ("sliding_attention" / "full_attention",
// one a layer) when it lists them, else from the model's own rule `local(layer)`.
void readLayerTypes(const io::JsonFile& config, ModelSpec& spec,
                    const std::function<bool(int layer)>& local);

// hidden_size, num_attention_heads, ... as BertConfig spells them.
ModelSpec readBertConfig(const io::JsonFile& config);

// Whether config.json's "architectures" lists only base models ("T5Model", "BartModel"), none
// with a task head ("...ForConditionalGeneration", "MarianMTModel"); false when it is absent.
bool namesOnlyBaseModel(const io::JsonFile& config);

// Defined in bert.cpp (BERT, ELECTRA), roberta.cpp, distilbert.cpp, gpt2.cpp and llama.cpp
// (Llama, Mistral, Qwen2).
extern const ArchTable kBert;
extern const ArchTable kElectra;
extern const ArchTable kRoberta;
extern const ArchTable kDistilBert;
extern const ArchTable kGpt2;
extern const ArchTable kLlama;
extern const ArchTable kMistral;
extern const ArchTable kQwen2;
// The decoders of 2024-2025 (gemma.cpp, qwen3_olmo2.cpp, phi3.cpp, gpt_neox.cpp).
extern const ArchTable kGemma;
extern const ArchTable kGemma2;
extern const ArchTable kGemma3Text;
extern const ArchTable kGemma3;
extern const ArchTable kQwen3;
extern const ArchTable kOlmo2;
extern const ArchTable kPhi3;
extern const ArchTable kGptNeox;
// Encoder-decoder models (t5.cpp, bart.cpp): the encoder's tables, pointing to the decoder's.
extern const ArchTable kT5;
extern const ArchTable kBart;
extern const ArchTable kMBart;
extern const ArchTable kMarian;

}  // namespace attnscope::model::arch
