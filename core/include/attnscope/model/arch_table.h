// Architecture knowledge as data: for each supported model_type, how config.json maps onto a
// ModelSpec and which checkpoint tensor fills which weight slot. One table per architecture in
// model/arch/*.cpp; the loader and the forward pass are shared.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "attnscope/io/json_file.h"
#include "attnscope/model/model_spec.h"

namespace attnscope::model {

// Which slot of Weights a tensor fills.
enum class Role {
    TokenEmbedding,
    PositionEmbedding,
    TokenTypeEmbedding,
    EmbeddingNormWeight,
    EmbeddingNormBias,
    QueryWeight,
    QueryBias,
    KeyWeight,
    KeyBias,
    ValueWeight,
    ValueBias,
    QkvWeight,
    QkvBias,  // fused query|key|value, split at load time
    OutputWeight,
    OutputBias,
    AttnNormWeight,
    AttnNormBias,
    FfnGateWeight,
    FfnGateBias,
    FfnUpWeight,
    FfnUpBias,
    FfnDownWeight,
    FfnDownBias,
    FfnNormWeight,
    FfnNormBias,
    FinalNormWeight,
    FinalNormBias,
    HeadTransformWeight,
    HeadTransformBias,
    HeadNormWeight,
    HeadNormBias,
    HeadDecoderWeight,
    HeadDecoderBias,
    FinalLogitsBias,  // BART's final_logits_bias, stored [1, vocab]
    RelativeBias,     // T5's [buckets, heads] relative position bias, in the first layer
    CrossQueryWeight,
    CrossQueryBias,
    CrossKeyWeight,
    CrossKeyBias,
    CrossValueWeight,
    CrossValueBias,
    CrossOutputWeight,
    CrossOutputBias,
    CrossNormWeight,
    CrossNormBias,
    // Later decoders: QK-norm weights (per head [headDimK] or whole [heads * headDimK]), the
    // norms on the sublayers' outputs (Gemma 2/3, OLMo-2), and Phi-3's fused gate|up
    // projection, split at load time. The bias roles are there for the pairs' sake.
    QueryNormWeight,
    QueryNormBias,
    KeyNormWeight,
    KeyNormBias,
    PostAttnNormWeight,
    PostAttnNormBias,
    PostFfnNormWeight,
    PostFfnNormBias,
    FfnGateUpWeight,
    FfnGateUpBias,
};

// nn.Linear stores [out, in]; GPT-2's Conv1D stores [in, out].
enum class Layout { Plain, LinearOutIn, Conv1DInOut };

struct TensorEntry {
    Role role;
    const char* name;  // "{}" stands for the layer index; without the task-head prefix
    Layout layout;
    // When the config says the tensor exists (e.g. Llama's attention_bias); null = always.
    bool (*needed)(const ModelSpec&) = nullptr;
};

// Where the prediction head's tensors live. Names are full checkpoint names (heads sit beside
// the "bert." / "model." prefix, not under it). The transform is all-or-nothing: a checkpoint
// without it (BertModel) has no MLM head. An absent decoder weight means "tied" when the
// config ties embeddings.
struct PredictionLayout {
    PredictionKind kind = PredictionKind::None;
    std::vector<TensorEntry> transform;  // dense weight/bias, norm weight/bias (MLM only)
    const char* decoderWeight = nullptr;
    const char* decoderBias = nullptr;  // optional in the checkpoint
    Role decoderBiasRole = Role::HeadDecoderBias;
};

struct ArchTable {
    const char* modelType;
    // Prefixes a task head adds ("bert." in BertForMaskedLM); "" is always tried too.
    std::vector<const char*> prefixes;
    std::vector<TensorEntry> tensors;
    // Tensors that are expected and deliberately unused (task heads, buffers); prefixes of names.
    std::vector<const char*> ignored;
    ModelSpec (*readConfig)(const io::JsonFile& config);
    PredictionLayout prediction = {};
    // Encoder-decoder models: this table is the encoder's, and `decoder` the decoder stack's
    // (read from the same config.json and checkpoint; its layers hold cross-attention too).
    const ArchTable* decoder = nullptr;
};

// All supported architectures, in the order `attnscope-cli info` lists them.
std::span<const ArchTable* const> archTables();

// The table for a model_type; UnsupportedModel listing the supported types otherwise.
const ArchTable& archTableFor(const std::string& modelType, const std::string& configFile);

std::string roleName(Role role);

}  // namespace attnscope::model
