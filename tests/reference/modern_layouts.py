"""config.json and state-dict layouts of Qwen3, OLMo-2, Phi-3 and GPT-NeoX as `save_pretrained`
(transformers 4.52) writes them for Qwen3ForCausalLM, Olmo2ForCausalLM, Phi3ForCausalLM and
GPTNeoXForCausalLM.

What a loader must get right here: Qwen3's per-head q_norm/k_norm ([head_dim]) against OLMo-2's
whole-projection ones ([heads * head_dim], [kv_heads * head_dim]); Phi-3's fused qkv_proj (all
q rows, then all k rows, then all v rows) and gate_up_proj (gate rows first); GPT-NeoX's fused
query_key_value, whose rows are grouped per head as [q_h | k_h | v_h], its gpt_neox. prefix,
LayerNorms with biases and the separate embed_out head.
"""

import math

import numpy as np
import torch

from decoder_parts import sliding_layers
from hf_layouts import QK_GAIN, WeightMaker, hf_config
from llama_layouts import _linear, _rms_norm


def _head_dim(c):
    return c.get("head_dim", c["hidden"] // c["heads"])


def _common(c, special):
    """Keys all four configs define (GPT-NeoX renames some; see gpt_neox_config)."""
    return dict(hidden_size=c["hidden"], intermediate_size=c["ffn"],
                num_attention_heads=c["heads"], num_hidden_layers=c["layers"],
                max_position_embeddings=c["max_pos"], attention_dropout=0.0,
                bos_token_id=special["bos"], eos_token_id=special["eos"],
                tie_word_embeddings=c.get("tied", False), use_cache=True,
                rope_scaling=c.get("rope_scaling"), initializer_range=0.02)


def qwen3_config(c, vocab_size, special):
    """Qwen3Config: explicit head_dim; sliding layers are those with index >= max_window_layers
    when use_sliding_window (4.52 keys), or as layer_types says (4.53+ writes it)."""
    sliding = c.get("sliding_window")
    keys = dict(_common(c, special), num_key_value_heads=c["kv_heads"], head_dim=_head_dim(c),
                hidden_act="silu", rms_norm_eps=1e-06, rope_theta=c.get("rope_theta", 1000000.0),
                attention_bias=False, use_sliding_window=sliding is not None,
                sliding_window=sliding, max_window_layers=c.get("max_window_layers",
                                                                c["layers"]))
    if c.get("layer_types_key"):
        first = keys["max_window_layers"]
        keys["layer_types"] = ["sliding_attention" if sliding and i >= first else
                               "full_attention" for i in range(c["layers"])]
    return hf_config(c, vocab_size, "qwen3", "Qwen3ForCausalLM", **keys)


def olmo2_config(c, vocab_size, special):
    """Olmo2Config has no head_dim key: head_dim = hidden_size / num_attention_heads."""
    keys = dict(_common(c, special), num_key_value_heads=c["kv_heads"], hidden_act="silu",
                rms_norm_eps=1e-06, rope_theta=c.get("rope_theta", 500000.0),
                attention_bias=False, pad_token_id=special["eos"])
    return hf_config(c, vocab_size, "olmo2", "Olmo2ForCausalLM", **keys)


def phi3_config(c, vocab_size, special):
    """Phi3Config: head_dim = hidden / heads; longrope's rope_scaling has exactly type,
    short_factor and long_factor (its validator insists), each of rotary_dims / 2 numbers."""
    keys = dict(_common(c, special), num_key_value_heads=c["kv_heads"], hidden_act="silu",
                rms_norm_eps=1e-05, rope_theta=c.get("rope_theta", 10000.0),
                original_max_position_embeddings=c["original_max_pos"],
                partial_rotary_factor=c.get("partial_rotary_factor", 1.0),
                sliding_window=c.get("sliding_window"), resid_pdrop=0.0, embd_pdrop=0.0,
                pad_token_id=special["eos"])
    return hf_config(c, vocab_size, "phi3", "Phi3ForCausalLM", **keys)


def gpt_neox_config(c, vocab_size, special):
    """GPTNeoXConfig writes rotary_pct and rotary_emb_base and (since 4.45) their copies
    partial_rotary_factor and rope_theta."""
    keys = dict(_common(c, special), hidden_act="gelu", rotary_pct=c["rotary_pct"],
                partial_rotary_factor=c["rotary_pct"],
                rotary_emb_base=c.get("rope_theta", 10000.0),
                rope_theta=c.get("rope_theta", 10000.0), layer_norm_eps=1e-05,
                use_parallel_residual=c["parallel"], attention_bias=True, hidden_dropout=0.0,
                classifier_dropout=0.1)
    return hf_config(c, vocab_size, "gpt_neox", "GPTNeoXForCausalLM", **keys)


def _norm_weight(m, name, dim, mean):
    m.tensors[name + ".weight"] = torch.from_numpy(
        (mean + 0.2 * m.rng.standard_normal(dim)).astype(np.float32))


def _llama_like_layer(m, c, lp, qk_norm):
    """q/k/v/o, optional q_norm/k_norm ("head": [head_dim], "whole": [count * head_dim]) whose
    weights average qk_norm_mean so that unit-RMS q and k still give peaked maps, then the SwiGLU
    MLP."""
    h, f, d = c["hidden"], c["ffn"], _head_dim(c)
    _linear(m, lp + "self_attn.q_proj", c["heads"] * d, h, False, QK_GAIN)
    _linear(m, lp + "self_attn.k_proj", c["kv_heads"] * d, h, False, QK_GAIN)
    _linear(m, lp + "self_attn.v_proj", c["kv_heads"] * d, h, False)
    _linear(m, lp + "self_attn.o_proj", h, c["heads"] * d, False)
    mean = c.get("qk_norm_mean", 1.6)
    if qk_norm == "head":
        _norm_weight(m, lp + "self_attn.q_norm", d, mean)
        _norm_weight(m, lp + "self_attn.k_norm", d, mean)
    elif qk_norm == "whole":
        _norm_weight(m, lp + "self_attn.q_norm", c["heads"] * d, mean)
        _norm_weight(m, lp + "self_attn.k_norm", c["kv_heads"] * d, mean)
    _linear(m, lp + "mlp.gate_proj", f, h, False)
    _linear(m, lp + "mlp.up_proj", f, h, False)
    _linear(m, lp + "mlp.down_proj", h, f, False)


def _lm_head(m, c, vocab_size, name="lm_head.weight"):
    if not c.get("tied", False):
        m.normal(name, (vocab_size, c["hidden"]), 1.0 / np.sqrt(c["hidden"]))


def _llama_like_model(c, vocab_size, qk_norm, layer_norms):
    """Embedding, then per layer the projections (_llama_like_layer) and the RMSNorms named in
    `layer_norms`, in that order, then the final norm and the LM head."""
    m, h = WeightMaker(c["seed"]), c["hidden"]
    m.normal("model.embed_tokens.weight", (vocab_size, h), 1.0)
    for i in range(c["layers"]):
        lp = f"model.layers.{i}."
        _llama_like_layer(m, c, lp, qk_norm)
        for norm in layer_norms:
            _rms_norm(m, lp + norm, h)
    _rms_norm(m, "model.norm", h)
    _lm_head(m, c, vocab_size)
    return m.tensors


def qwen3_weights(c, vocab_size, config):
    return _llama_like_model(c, vocab_size, "head",
                             ("input_layernorm", "post_attention_layernorm"))


def olmo2_weights(c, vocab_size, config):
    """No input_layernorm: post_attention_layernorm and post_feedforward_layernorm normalise
    each sublayer's output before its residual add."""
    return _llama_like_model(c, vocab_size, "whole",
                             ("post_attention_layernorm", "post_feedforward_layernorm"))


def phi3_weights(c, vocab_size, config):
    """Phi3Attention registers o_proj before qkv_proj; qkv_proj rows are [q; k; v]."""
    m, h, f, d = WeightMaker(c["seed"]), c["hidden"], c["ffn"], _head_dim(c)
    q_rows, kv_rows = c["heads"] * d, c["kv_heads"] * d
    m.normal("model.embed_tokens.weight", (vocab_size, h), 1.0)
    for i in range(c["layers"]):
        lp = f"model.layers.{i}."
        _linear(m, lp + "self_attn.o_proj", h, q_rows, False)
        gain = np.concatenate([np.full(q_rows + kv_rows, QK_GAIN), np.ones(kv_rows)])
        m.tensors[lp + "self_attn.qkv_proj.weight"] = torch.from_numpy(
            (m.rng.standard_normal((q_rows + 2 * kv_rows, h)) * gain[:, None] / np.sqrt(h))
            .astype(np.float32))
        _linear(m, lp + "mlp.gate_up_proj", 2 * f, h, False)
        _linear(m, lp + "mlp.down_proj", h, f, False)
        _rms_norm(m, lp + "input_layernorm", h)
        _rms_norm(m, lp + "post_attention_layernorm", h)
    _rms_norm(m, "model.norm", h)
    _lm_head(m, c, vocab_size)
    return m.tensors


def _neox_qkv(m, name, heads, d, h):
    """query_key_value: weight [3 * hidden, hidden] whose rows come per head as q_h, k_h, v_h
    (q and k rows with the larger std), and a bias."""
    gain = np.tile(np.concatenate([np.full(2 * d, QK_GAIN), np.ones(d)]), heads)
    m.tensors[name + ".weight"] = torch.from_numpy(
        (m.rng.standard_normal((3 * heads * d, h)) * gain[:, None] / np.sqrt(h))
        .astype(np.float32))
    m.normal(name + ".bias", (3 * heads * d,), 0.1)


def gpt_neox_weights(c, vocab_size, config):
    m, h, f = WeightMaker(c["seed"]), c["hidden"], c["ffn"]
    m.normal("gpt_neox.embed_in.weight", (vocab_size, h), 1.0)
    for i in range(c["layers"]):
        lp = f"gpt_neox.layers.{i}."
        m.layer_norm(lp + "input_layernorm", h)
        m.layer_norm(lp + "post_attention_layernorm", h)
        _neox_qkv(m, lp + "attention.query_key_value", c["heads"], h // c["heads"], h)
        m.linear(lp + "attention.dense", h, h)
        m.linear(lp + "mlp.dense_h_to_4h", f, h)
        m.linear(lp + "mlp.dense_4h_to_h", h, f)
    m.layer_norm("gpt_neox.final_layer_norm", h)
    _lm_head(m, c, vocab_size, "embed_out.weight")
    return m.tensors


def _rotary_dims(cfg, head_dim):
    return int(head_dim * cfg.get("partial_rotary_factor", 1.0))


def modern_features(c, config):
    """The manifest's "features" entry (see gemma_layouts.gemma_features)."""
    mt, heads = config["model_type"], config["num_attention_heads"]
    d = config.get("head_dim") or config["hidden_size"] // heads
    kv = config.get("num_key_value_heads", heads)
    scaling = config.get("rope_scaling") or {}
    local = {"qwen3": lambda: sliding_layers(config),
             "phi3": lambda: list(range(config["num_hidden_layers"]))
             if config.get("sliding_window") else []}.get(mt, lambda: [])()
    out = {
        "norm": "layer_norm" if mt == "gpt_neox" else "rms",
        "norm_placement": {"olmo2": "post_only"}.get(mt, "pre"),
        "qk_norm": {"qwen3": "per_head", "olmo2": "whole_projection"}.get(mt, "none"),
        "scale": d ** -0.5, "scale_from": "head_dim", "softcap": None, "final_softcap": None,
        "window": config.get("sliding_window") if local else None, "local_layers": local,
        "rope": scaling.get("rope_type", scaling.get("type", "default")),
        "rotary_dims": _rotary_dims(config, d), "tied": bool(config.get("tie_word_embeddings")),
        "gqa_group": heads // kv,
        "fused_qkv": {"phi3": "rows_q_k_v", "gpt_neox": "per_head_q_k_v"}.get(mt),
        "fused_gate_up": mt == "phi3",
        "activation": "gelu" if mt == "gpt_neox" else "silu",
    }
    if mt == "gpt_neox":
        out["parallel_residual"] = config["use_parallel_residual"]
    if out["rope"] == "longrope":
        orig, longest = config["original_max_position_embeddings"], config[
            "max_position_embeddings"]
        factor = longest / orig
        out["longrope"] = {
            "original_max_position_embeddings": orig,
            "attention_factor": math.sqrt(1 + math.log(factor) / math.log(orig)),
            "long_inputs": [k for k, n in enumerate(c["lengths"]) if n > orig]}
    return out
