// GPT-2 and BERT from GGUF files (llama.cpp's LLM_ARCH_GPT2 and LLM_ARCH_BERT), read onto the
// same tables as their safetensors folders (model/arch/gpt2.cpp, bert.cpp). Written from
// llama.cpp's converter (conversion/gpt2.py GPT2Model, conversion/bert.py BertModel,
// TextModel.set_gguf_parameters), gguf-py's constants.py / tensor_mapping.py, and
// src/models/gpt2.cpp and bert.cpp (which keys and tensors llama.cpp requires).
//
// What the files hold, and what AttnScope makes of it:
//   * GPT-2: the converter transposes the Conv1D weights (c_attn, c_proj, c_fc), so every
//     matrix is stored as nn.Linear's [out, in] (ne = [in, out]); attn_qkv keeps q|k|v fused
//     along the output rows and is split at load, as the safetensors path splits c_attn. The
//     LM head is output.weight, else the token embedding (tied). The activation is GELU's tanh
//     approximation (gelu_new, ggml_gelu), which GPT-2's config names; the file does not say.
//   * BERT: separate attn_q/k/v, post-norm, token_embd_norm after the embeddings; token types
//     from token_types.weight when present (tokenizer.ggml.token_type_count rows). The
//     converter drops the masked-LM head (cls.predictions.*), so the model has no prediction
//     head: attention and hidden states work, token predictions are refused. The activation is
//     exact (erf) GELU, what BERT's hidden_act "gelu" means and what the converted Hugging Face
//     model computes; llama.cpp itself runs ggml_gelu's tanh approximation (a difference below
//     5e-4 per activation). A BERT that used another hidden_act cannot be told from the file.
//   * Both: llama.cpp's <arch>.attention.causal defaults to true when absent (the BERT
//     converter always writes false); attention.layer_norm_epsilon is required, as there.
#include "../arch/bert_family.h"
#include "attnscope/base/error.h"
#include "gguf_arch.h"

namespace attnscope::model::gguf {

namespace {

// The GPT-2 table's names (h.{}.attn.c_attn, ...) and their GGUF spelling.
constexpr GgufName kGpt2Names[] = {
    {"wte.weight", "token_embd.weight"},
    {"wpe.weight", "position_embd.weight"},
    {"h.{}.ln_1.", "blk.{}.attn_norm."},
    {"h.{}.attn.c_attn.", "blk.{}.attn_qkv."},
    {"h.{}.attn.c_proj.", "blk.{}.attn_output."},
    {"h.{}.ln_2.", "blk.{}.ffn_norm."},
    {"h.{}.mlp.c_fc.", "blk.{}.ffn_up."},
    {"h.{}.mlp.c_proj.", "blk.{}.ffn_down."},
    {"ln_f.", "output_norm."},
};

// The BERT table's names (embeddings.*, encoder.layer.{}.*) and their GGUF spelling.
constexpr GgufName kBertNames[] = {
    {"embeddings.word_embeddings.weight", "token_embd.weight"},
    {"embeddings.position_embeddings.weight", "position_embd.weight"},
    {"embeddings.token_type_embeddings.weight", "token_types.weight"},
    {"embeddings.LayerNorm.", "token_embd_norm."},
    {"encoder.layer.{}.attention.self.query.", "blk.{}.attn_q."},
    {"encoder.layer.{}.attention.self.key.", "blk.{}.attn_k."},
    {"encoder.layer.{}.attention.self.value.", "blk.{}.attn_v."},
    {"encoder.layer.{}.attention.output.dense.", "blk.{}.attn_output."},
    {"encoder.layer.{}.attention.output.LayerNorm.", "blk.{}.attn_output_norm."},
    {"encoder.layer.{}.intermediate.dense.", "blk.{}.ffn_up."},
    {"encoder.layer.{}.output.dense.", "blk.{}.ffn_down."},
    {"encoder.layer.{}.output.LayerNorm.", "blk.{}.layer_output_norm."},
};

// llama.cpp's BERT sequence-classification head (cls.weight, cls.output.weight, biases).
constexpr std::string_view kBertIgnored[] = {"cls."};

// What GPT-2 and BERT read the same way: the block shape, LayerNorm's epsilon, the vocabulary
// and the mask.
void readSizes(const io::GgufFile& f, const std::string& a, ModelSpec& spec) {
    readBlockShape(f, a, spec);
    spec.normEps = requiredEpsilon(f, a + ".attention.layer_norm_epsilon");
    spec.vocabSize = embeddingRows(f);
    spec.defaultMask = f.boolAt(a + ".attention.causal").value_or(true)
                           ? DefaultMask::Causal
                           : DefaultMask::Bidirectional;
}

// GPT-2 (llama_model_gpt2): pre-norm, learned positions, fused q|k|v, a final norm.
ModelSpec readGpt2Spec(const io::GgufFile& f, const GgufArch& arch) {
    ModelSpec spec;
    readSizes(f, arch.name, spec);
    spec.typeVocabSize = 0;
    spec.activation = Activation::GeluTanh;
    spec.normPlacement = NormPlacement::Pre;
    spec.embeddingNorm = false;
    spec.finalNorm = true;
    spec.tieWordEmbeddings = f.tensor(kOutputTensor) == nullptr;
    return spec;
}

// BERT (llama_model_bert): post-norm, learned positions and token types, no head.
ModelSpec readBertSpec(const io::GgufFile& f, const GgufArch& arch) {
    ModelSpec spec;
    readSizes(f, arch.name, spec);
    if (const io::GgufTensor* types = f.tensor("token_types.weight")) {
        // Its rows are tokenizer.ggml.token_type_count (the shape check compares them).
        spec.typeVocabSize =
            types->ne.size() == 2 && types->ne[1] > 0 && types->ne[1] <= kMaxModelWidth
                ? static_cast<int>(types->ne[1])
                : 1;
        spec.typeVocabSize = metadataSize(f, "tokenizer.ggml.token_type_count", spec.typeVocabSize);
    }
    spec.activation = Activation::Gelu;
    spec.headActivation = Activation::Gelu;
    spec.normPlacement = NormPlacement::Post;
    spec.embeddingNorm = true;
    spec.finalNorm = false;
    return spec;
}

}  // namespace

const GgufArch kGpt2Arch = {"gpt2",       &arch::kGpt2, false,
                            readGpt2Spec, kGpt2Names,   PredictionKind::CausalLm};
const GgufArch kBertArch = {"bert",     &arch::kBert,         false,       readBertSpec,
                            kBertNames, PredictionKind::None, kBertIgnored};

}  // namespace attnscope::model::gguf
