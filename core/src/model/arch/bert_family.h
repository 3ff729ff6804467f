// The architecture tables (one .cpp each in this folder), which arch_table.cpp lists, the
// pieces they are built from (table_parts.cpp), and the BERT pieces that BERT, ELECTRA and
// RoBERTa share: they store the same tensor names and read the same config keys. Private to the
// model library.
#pragma once

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
// Encoder-decoder models (t5.cpp, bart.cpp): the encoder's tables, pointing to the decoder's.
extern const ArchTable kT5;
extern const ArchTable kBart;
extern const ArchTable kMBart;
extern const ArchTable kMarian;

}  // namespace attnscope::model::arch
