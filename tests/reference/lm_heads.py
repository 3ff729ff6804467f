"""Vocabulary logits from the final hidden states: the MLM heads of BERT, RoBERTa and
DistilBERT (dense, activation, LayerNorm, tied decoder plus bias) and the causal LM heads of
GPT-2 and the Llama family (tied or separate lm_head). Head tensors sit outside the base model's
prefix. Returns None for a checkpoint without a head (BertModel)."""

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
             "qwen2": "embed_tokens.weight"}


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
    tied = cfg.get("tie_word_embeddings", mt == "gpt2")
    if "lm_head.weight" in raw:
        return hidden @ t("lm_head.weight").T
    return hidden @ embedding.T if tied else None
