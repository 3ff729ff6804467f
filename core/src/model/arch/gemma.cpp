// Gemma 1, 2 and 3 (text): the Llama family's tensor names with Gemma's changes
// (methods.md §13, transformers' modeling_gemma/gemma2/gemma3): RMSNorm scaling by (1 + w),
// embeddings times sqrt(hidden), a tanh-GELU gated feed-forward, a tied head. Gemma 2 adds a
// norm after each sublayer, soft-capped attention and final logits, the scale
// query_pre_attn_scalar^-0.5 and alternating local (sliding window) and global layers; Gemma 3
// drops the attention cap for per-head QK-norm and gives local layers their own rope base.
#include <cmath>

#include "attnscope/base/error.h"
#include "attnscope/io/json_access.h"
#include "bert_family.h"

namespace attnscope::model::arch {

namespace {

// Gemma 1, and what Gemma 2 and 3 share with it, on top of the Llama family's reading.
ModelSpec readGemmaConfig(const io::JsonFile& config) {
    ModelSpec spec = readLlamaFamilyConfig(config);
    spec.normPlusOne = true;
    spec.tieWordEmbeddings = config.boolean("tie_word_embeddings", true);
    spec.qkvBias = spec.outputBias = config.boolean("attention_bias", false);
    spec.ffnBias = false;
    // GemmaModel multiplies the embeddings by sqrt(hidden_size) cast to the dtype it runs in;
    // AttnScope runs in float32, where the cast changes nothing (README: Gemma).
    spec.embeddingScale = static_cast<float>(std::sqrt(static_cast<double>(spec.dModel)));
    // The first Gemma configs name exact "gelu" in hidden_act and tanh GELU in
    // hidden_activation; the model was trained with tanh GELU, which transformers before 4.48 ran
    // (README: Gemma). hidden_activation when given, else hidden_act.
    const std::string key = config.has("hidden_activation") ? "hidden_activation" : "hidden_act";
    spec.activation =
        parseActivation(config.string(key, "gelu_pytorch_tanh"), config.fileName(), key);
    return spec;
}

// What Gemma 2 and 3 add to Gemma 1: the norms on the sublayers' outputs, the scale
// query_pre_attn_scalar^-0.5, the soft-caps (their config classes' defaults when absent, null
// switching a cap off) and the window of the local layers.
ModelSpec readGemmaSandwich(const io::JsonFile& config, double attnCap, double finalCap) {
    ModelSpec spec = readGemmaConfig(config);
    spec.normPlacement = NormPlacement::Sandwich;
    spec.queryPreAttnScalar = positiveNumber(config, "query_pre_attn_scalar", 256.0);
    spec.attnSoftcap = softcap(config, "attn_logit_softcapping", attnCap);
    spec.finalLogitSoftcap = softcap(config, "final_logit_softcapping", finalCap);
    spec.slidingWindow = config.has("sliding_window") ? config.positiveInt("sliding_window") : 4096;
    return spec;
}

ModelSpec readGemma2Config(const io::JsonFile& config) {
    ModelSpec spec = readGemmaSandwich(config, 50.0, 30.0);
    // Gemma2DecoderLayer: even layers slide, odd ones see everything.
    readLayerTypes(config, spec, [](int layer) { return layer % 2 == 0; });
    return spec;
}

ModelSpec readGemma3Text(const io::JsonFile& config) {
    ModelSpec spec = readGemmaSandwich(config, 0.0, 0.0);
    spec.qkNorm = QkNorm::PerHead;
    // Gemma3TextConfig's defaults, which a multimodal config's text_config leaves out.
    if (!config.has("max_position_embeddings")) {
        spec.maxPositions = 131072;
    }
    if (!config.root().contains("rope_parameters")) {
        spec.rope.theta = positiveNumber(config, "rope_theta", 1000000.0);
    }
    const int pattern = config.optionalInt("sliding_window_pattern").value_or(6);
    if (pattern <= 0) {
        throw FormatError(config.fileName() + ": sliding_window_pattern must be positive");
    }
    // Gemma3: a layer is global when (layer + 1) % pattern == 0.
    readLayerTypes(config, spec, [pattern](int layer) { return (layer + 1) % pattern != 0; });
    // Local layers rotate with rope_local_base_freq and no scaling; global ones keep the
    // rope_theta and rope_scaling readLlamaFamilyConfig read.
    RopeSpec local = spec.rope;
    local.scaling = RopeScaling::None;
    local.factor = 1.0;
    local.theta = positiveNumber(config, "rope_local_base_freq", 10000.0);
    spec.localRope = local;
    return spec;
}

// Gemma3ForConditionalGeneration: the language model's settings sit in text_config.
ModelSpec readGemma3Config(const io::JsonFile& config) {
    const io::JsonAt at = config.at();
    const io::Json* text = io::optionalObject(config.root(), at, "text_config");
    if (text == nullptr) {
        throw FormatError(config.fileName() +
                          ": text_config: missing (a Gemma 3 multimodal config keeps the language "
                          "model's settings there)");
    }
    ModelSpec spec = readGemma3Text(io::JsonFile(*text, config.fileName() + ": text_config"));
    spec.modelType = "gemma3";
    spec.tieWordEmbeddings = config.boolean("tie_word_embeddings", spec.tieWordEmbeddings);
    return spec;
}

// The vision tower and its projector: AttnScope opens the language model of a multimodal
// checkpoint. transformers 4.52+ saves "model.language_model.*"; earlier versions
// "language_model.model.*".
const std::vector<const char*> kGemma3Ignored = {
    "model.vision_tower.", "model.multi_modal_projector.", "vision_tower.",
    "multi_modal_projector.", "layers.{}.self_attn.rotary_emb.",
    // Gemma 3 ties its head; a copy saved under the old name is the embedding again.
    "language_model.lm_head."};

}  // namespace

const ArchTable kGemma = {"gemma",        {"model."},      llamaTensorEntries(NormPlacement::Pre),
                          llamaIgnored(), readGemmaConfig, causalLmHead()};

const ArchTable kGemma2 = {
    "gemma2",       {"model."},       llamaTensorEntries(NormPlacement::Sandwich),
    llamaIgnored(), readGemma2Config, causalLmHead()};

const ArchTable kGemma3Text = {
    "gemma3_text",  {"model."},     llamaTensorEntries(NormPlacement::Sandwich, true),
    llamaIgnored(), readGemma3Text, causalLmHead()};

const ArchTable kGemma3 = {"gemma3",
                           {"model.language_model.", "language_model.model."},
                           llamaTensorEntries(NormPlacement::Sandwich, true),
                           kGemma3Ignored,
                           readGemma3Config,
                           causalLmHead()};

}  // namespace attnscope::model::arch
