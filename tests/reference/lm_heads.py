"""Vocabulary logits from the final hidden states: the MLM heads of BERT, RoBERTa and
DistilBERT (dense, activation, LayerNorm, tied decoder plus bias) and the causal LM heads of
GPT-2, the Llama family and the issue-33 decoders (tied or separate lm_head; GPT-NeoX's
embed_out; Gemma 2's final_logit_softcapping tanh(x / cap) * cap). Head tensors sit outside the
base model's prefix. Returns None for a checkpoint without a head (BertModel)."""

import torch
import torch.nn.functional as F

# model_type -> (dense, norm, decoder weight, decoder bias); None = causal LM head
MLM_HEADS = {
    "bert": ("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
             "cls.predictions.decoder.weight", "cls.predictions.bias"),
    "roberta": ("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder.weight", "lm_head.bias"),
    "distilbert": ("vocab_transform", "vocab_layer_norm", "vocab_projector.weight",
                   "vocab_projector.bias"),
}
EMBEDDING = {"bert": "embeddings.word_embeddings.weight",
             "roberta": "embeddings.word_embeddings.weight",
             "distilbert": "embeddings.word_embeddings.weight", "gpt2": "wte.weight",
             "llama": "embed_tokens.weight", "mistral": "embed_tokens.weight",
             "qwen2": "embed_tokens.weight", "gemma": "embed_tokens.weight",
             "gemma2": "embed_tokens.weight", "gemma3_text": "embed_tokens.weight",
             "gemma3": "embed_tokens.weight", "qwen3": "embed_tokens.weight",
             "olmo2": "embed_tokens.weight", "phi3": "embed_tokens.weight",
             "gpt_neox": "embed_in.weight"}
# Causal heads not called lm_head.weight, and the model types whose config class ties the head
# unless tie_word_embeddings says otherwise (save_pretrained omits the key when it is default).
HEAD_WEIGHT = {"gpt_neox": "embed_out.weight"}
TIED_BY_DEFAULT = ("gpt2", "gemma", "gemma2", "gemma3_text", "gemma3")


def _mlm_activation_and_eps(cfg, activations):
    """BERT uses hidden_act, RoBERTa always exact gelu, DistilBERT its activation and 1e-12."""
    if cfg["model_type"] == "bert":
        return activations[cfg["hidden_act"]], cfg["layer_norm_eps"]
    if cfg["model_type"] == "roberta":
        return F.gelu, cfg["layer_norm_eps"]
    return activations[cfg["activation"]], 1e-12


def prediction_logits(cfg, w, hidden, activations):
    """w: the reference's Weights (prefixed lookups); head tensors are looked up unprefixed.
    activations: name -> function, the reference's one table."""
    mt = cfg["model_type"]
    raw = w.tensors

    def t(name):
        return raw[name].to(w.dtype)

    embedding = w(EMBEDDING[mt])
    if mt in MLM_HEADS:
        dense, norm, decoder, bias = MLM_HEADS[mt]
        if dense + ".weight" not in raw:
            return None
        act, eps = _mlm_activation_and_eps(cfg, activations)
        x = act(F.linear(hidden, t(dense + ".weight"), t(dense + ".bias")))
        x = F.layer_norm(x, (x.shape[-1],), t(norm + ".weight"), t(norm + ".bias"), eps)
        weight = t(decoder) if decoder in raw else embedding
        return x @ weight.T + t(bias)
    # Gemma3ForConditionalGeneration: the head follows the text config (tie, final soft-cap).
    head_cfg = dict({"tie_word_embeddings": True}, **cfg["text_config"]) \
        if "text_config" in cfg else cfg
    tied = head_cfg.get("tie_word_embeddings", mt in TIED_BY_DEFAULT)
    head = HEAD_WEIGHT.get(mt, "lm_head.weight")
    if head in raw:
        logits = hidden @ t(head).T
    elif tied:
        logits = hidden @ embedding.T
    else:
        return None
    cap = head_cfg.get("final_logit_softcapping")
    return logits if cap is None else torch.tanh(logits / cap) * cap
