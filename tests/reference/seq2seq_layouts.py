"""config.json contents and state-dict layouts of the encoder-decoder models (issue 20): T5
(v1.0 and v1.1), BART, mBART and Marian, as `save_pretrained` (transformers 4.52) writes them for
T5ForConditionalGeneration / T5Model, BartForConditionalGeneration, MBartForConditionalGeneration
and MarianMTModel.

What is stored and what is not, copied from the HF classes:
- T5: "shared.weight" only; encoder/decoder embed_tokens are the same module and are dropped as
  tied. relative_attention_bias exists in block 0 of each stack only. lm_head.weight is stored
  only when tie_word_embeddings is false (v1.1); T5Model has no lm_head at all.
- BART/mBART/Marian: "model." prefix, "model.shared.weight", learned positions with BART's
  offset of 2 rows (BART, mBART), final_logits_bias [1, V] (a persistent buffer, so it is saved),
  lm_head.weight only when untied. Attention projections register k, v, q, out in that order.
- Marian: sinusoidal positions. MarianMTModel lists both embed_positions tables in
  _keys_to_ignore_on_save, so a checkpoint saved by current transformers has no table (the loader
  recomputes it), while older converted checkpoints carry it; the cases cover both.

Weights are random and far from HF's init (see hf_layouts.WeightMaker): query/key projections get
QK_GAIN so attention rows are peaked; T5, which does not scale q.k by head_dim^-0.5, gets its
query projection divided by sqrt(d_kv) instead, the way Mesh TensorFlow's init folds the scale in.
"""

import numpy as np
import torch

from hf_layouts import QK_GAIN, TORCH_DTYPE_NAME, TRANSFORMERS_VERSION, WeightMaker

# Special-token ids per family (no tokenizer files are written; the ids are what configs name).
T5_SPECIALS = {"pad": 0, "eos": 1, "unk": 2}
BART_SPECIALS = {"bos": 0, "pad": 1, "eos": 2, "unk": 3}


def marian_specials(vocab_size):
    """Marian: eos 0, unk 1, pad last; pad is also the decoder start token."""
    return {"eos": 0, "unk": 1, "pad": vocab_size - 1}


def specials_of(c):
    if c["arch"] == "t5":
        return dict(T5_SPECIALS)
    if c["arch"] == "marian":
        return marian_specials(c["vocab"])
    return dict(BART_SPECIALS)


def decoder_start_of(c):
    """T5 and Marian start decoding with pad; BART and mBART-50 with eos (bart-base's config)."""
    s = specials_of(c)
    return s["pad"] if c["arch"] in ("t5", "marian") else s["eos"]


def t5_config(c):
    """T5Config.to_diff_dict(): every T5-specific key, plus the PretrainedConfig keys that differ.
    dense_act_fn / is_gated_act are derived from feed_forward_proj ("gated-gelu" -> gelu_new)."""
    gated = c["ff"].startswith("gated-")
    act = c["ff"].split("-")[-1]
    if c["ff"] == "gated-gelu":
        act = "gelu_new"  # T5Config's backwards-compatibility rule
    s = specials_of(c)
    return {
        "architectures": [c["arch_class"]],
        "classifier_dropout": 0.0,
        "d_ff": c["d_ff"],
        "d_kv": c["d_kv"],
        "d_model": c["d_model"],
        "decoder_start_token_id": decoder_start_of(c),
        "dense_act_fn": act,
        "dropout_rate": 0.1,
        "eos_token_id": s["eos"],
        "feed_forward_proj": c["ff"],
        "initializer_factor": 1.0,
        "is_encoder_decoder": True,
        "is_gated_act": gated,
        "layer_norm_epsilon": 1e-06,
        "model_type": "t5",
        "num_decoder_layers": c["dec_layers"],
        "num_heads": c["heads"],
        "num_layers": c["enc_layers"],
        "pad_token_id": s["pad"],
        "relative_attention_max_distance": c["max_distance"],
        "relative_attention_num_buckets": c["buckets"],
        "tie_word_embeddings": c["tied"],
        "torch_dtype": TORCH_DTYPE_NAME[c["dtype"]],
        "transformers_version": TRANSFORMERS_VERSION,
        "use_cache": True,
        "vocab_size": c["vocab"],
    }


def bart_family_config(c):
    """BartConfig / MBartConfig / MarianConfig keys as save_pretrained writes them."""
    s = specials_of(c)
    cfg = {
        "activation_dropout": 0.0,
        "activation_function": c["act"],
        "architectures": [c["arch_class"]],
        "attention_dropout": 0.0,
        "classifier_dropout": 0.0,
        "d_model": c["d_model"],
        "decoder_attention_heads": c["dec_heads"],
        "decoder_ffn_dim": c["dec_ffn"],
        "decoder_layerdrop": 0.0,
        "decoder_layers": c["dec_layers"],
        "decoder_start_token_id": decoder_start_of(c),
        "dropout": 0.1,
        "encoder_attention_heads": c["enc_heads"],
        "encoder_ffn_dim": c["enc_ffn"],
        "encoder_layerdrop": 0.0,
        "encoder_layers": c["enc_layers"],
        "eos_token_id": s["eos"],
        "forced_eos_token_id": s["eos"],
        "init_std": 0.02,
        "is_encoder_decoder": True,
        "max_position_embeddings": c["max_pos"],
        "model_type": c["arch"],
        "num_hidden_layers": c["enc_layers"],
        "pad_token_id": s["pad"],
        "scale_embedding": c["scale_embedding"],
        "tie_word_embeddings": c["tied"],
        "torch_dtype": TORCH_DTYPE_NAME[c["dtype"]],
        "transformers_version": TRANSFORMERS_VERSION,
        "use_cache": True,
        "vocab_size": c["vocab"],
    }
    if c["arch"] in ("bart", "mbart"):
        cfg["bos_token_id"] = s["bos"]
    if c["arch"] == "bart":  # BartConfig defaults num_labels to 3, so real configs carry these
        cfg["id2label"] = {str(i): f"LABEL_{i}" for i in range(3)}
        cfg["label2id"] = {f"LABEL_{i}": i for i in range(3)}
    if c["arch"] == "marian":
        cfg.update(decoder_vocab_size=c["vocab"], share_encoder_decoder_embeddings=True)
    return cfg


def _rms_weight(m, name, dim):
    m.tensors[name + ".weight"] = torch.from_numpy(
        (1.0 + 0.1 * m.rng.standard_normal(dim)).astype(np.float32))


def _t5_block(m, p, c, decoder, first):
    d, inner = c["d_model"], c["heads"] * c["d_kv"]

    def attention(name, relative):
        # Mesh TF folds 1/sqrt(d_kv) into q's init; so do we (T5 scores are not rescaled).
        m.normal(name + ".q.weight", (inner, d), QK_GAIN / np.sqrt(d * c["d_kv"]))
        m.normal(name + ".k.weight", (inner, d), QK_GAIN / np.sqrt(d))
        m.normal(name + ".v.weight", (inner, d), 1.0 / np.sqrt(d))
        m.normal(name + ".o.weight", (d, inner), 1.0 / np.sqrt(inner))
        if relative:
            m.normal(name + ".relative_attention_bias.weight", (c["buckets"], c["heads"]), 1.0)

    attention(p + "layer.0.SelfAttention", first)
    _rms_weight(m, p + "layer.0.layer_norm", d)
    ff = p + ("layer.2." if decoder else "layer.1.")
    if decoder:
        attention(p + "layer.1.EncDecAttention", False)
        _rms_weight(m, p + "layer.1.layer_norm", d)
    if c["ff"].startswith("gated-"):
        m.normal(ff + "DenseReluDense.wi_0.weight", (c["d_ff"], d), 1.0 / np.sqrt(d))
        m.normal(ff + "DenseReluDense.wi_1.weight", (c["d_ff"], d), 1.0 / np.sqrt(d))
    else:
        m.normal(ff + "DenseReluDense.wi.weight", (c["d_ff"], d), 1.0 / np.sqrt(d))
    m.normal(ff + "DenseReluDense.wo.weight", (d, c["d_ff"]), 1.0 / np.sqrt(c["d_ff"]))
    _rms_weight(m, ff + "layer_norm", d)


def t5_weights(c):
    """T5ForConditionalGeneration / T5Model state dict in registration order."""
    m, d = WeightMaker(c["seed"]), c["d_model"]
    m.normal("shared.weight", (c["vocab"], d), 1.0)
    for stack, layers, decoder in (("encoder", c["enc_layers"], False),
                                   ("decoder", c["dec_layers"], True)):
        for i in range(layers):
            _t5_block(m, f"{stack}.block.{i}.", c, decoder, i == 0)
        _rms_weight(m, f"{stack}.final_layer_norm", d)
    if c["arch_class"] == "T5ForConditionalGeneration" and not c["tied"]:
        m.normal("lm_head.weight", (c["vocab"], d), 1.0 / np.sqrt(d))
    return m.tensors


def marian_sinusoidal_table(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: angle pos / 10000^(2*(j//2)/dim) in
    float64; sin of the even columns fills the first ceil(dim/2) features, cos of the odd ones the
    rest (not interleaved); then rounded to float32 (torch.FloatTensor)."""
    j = np.arange(dim)
    angles = np.arange(n_pos)[:, None] / np.power(10000, 2 * (j // 2) / dim)[None, :]
    sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out = np.empty((n_pos, dim), dtype=np.float64)
    out[:, :sentinel] = np.sin(angles[:, 0::2])
    out[:, sentinel:] = np.cos(angles[:, 1::2])
    return torch.from_numpy(out.astype(np.float32))


def _bart_attention(m, name, d):
    m.linear(name + ".k_proj", d, d, QK_GAIN)
    m.linear(name + ".v_proj", d, d)
    m.linear(name + ".q_proj", d, d, QK_GAIN)
    m.linear(name + ".out_proj", d, d)


def _bart_stack(m, c, stack):
    """One BartEncoder/BartDecoder (or MBart/Marian) in registration order."""
    d, arch = c["d_model"], c["arch"]
    p = f"model.{stack}."
    if arch == "marian":
        if c["stored_table"]:
            m.tensors[p + "embed_positions.weight"] = marian_sinusoidal_table(c["max_pos"], d)
    else:
        m.normal(p + "embed_positions.weight", (c["max_pos"] + 2, d), 0.5)
    decoder = stack == "decoder"
    ffn = c["dec_ffn"] if decoder else c["enc_ffn"]
    for i in range(c["dec_layers"] if decoder else c["enc_layers"]):
        layer = f"{p}layers.{i}."
        _bart_attention(m, layer + "self_attn", d)
        m.layer_norm(layer + "self_attn_layer_norm", d)
        if decoder:
            _bart_attention(m, layer + "encoder_attn", d)
            m.layer_norm(layer + "encoder_attn_layer_norm", d)
        m.linear(layer + "fc1", ffn, d)
        m.linear(layer + "fc2", d, ffn)
        m.layer_norm(layer + "final_layer_norm", d)
    if arch != "marian":
        m.layer_norm(p + "layernorm_embedding", d)
    if arch == "mbart":
        m.layer_norm(p + "layer_norm", d)


def bart_family_weights(c):
    """BartForConditionalGeneration / MBartForConditionalGeneration / MarianMTModel."""
    m, d = WeightMaker(c["seed"]), c["d_model"]
    m.normal("final_logits_bias", (1, c["vocab"]), 0.5)
    m.normal("model.shared.weight", (c["vocab"], d), c["embed_std"])
    _bart_stack(m, c, "encoder")
    _bart_stack(m, c, "decoder")
    if not c["tied"]:
        m.normal("lm_head.weight", (c["vocab"], d), 1.0 / np.sqrt(d))
    return m.tensors


def config_of(c):
    return t5_config(c) if c["arch"] == "t5" else bart_family_config(c)


def weights_of(c):
    return t5_weights(c) if c["arch"] == "t5" else bart_family_weights(c)
