"""config.json and state-dict layouts of the Llama family (Llama, Mistral, Qwen2) as
`save_pretrained` (transformers 4.52) writes them for LlamaForCausalLM / MistralForCausalLM /
Qwen2ForCausalLM: "model." prefix, q/k/v/o_proj, gate/up/down_proj, RMSNorm weights only,
lm_head.weight unless the embeddings are tied.

Cases choose the features under test: num_key_value_heads (GQA ratio 1, 2, 4 and MQA), an
explicit head_dim that differs from hidden/heads, partial_rotary_factor, rope_scaling (linear,
llama3), attention_bias / mlp_bias, Qwen2's q/k/v biases, Mistral's sliding_window, tied and
untied LM heads.
"""

import numpy as np
import torch

from hf_layouts import QK_GAIN, WeightMaker, hf_config


def llama_config(c, vocab_size, special):
    arch = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM",
            "qwen2": "Qwen2ForCausalLM"}[c["arch"]]
    cfg = hf_config(c, vocab_size, c["arch"], arch,
                    hidden_size=c["hidden"], intermediate_size=c["ffn"],
                    num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"],
                    num_hidden_layers=c["layers"], max_position_embeddings=c["max_pos"],
                    bos_token_id=special["bos"], eos_token_id=special["eos"],
                    hidden_act="silu", attention_dropout=0.0,
                    rms_norm_eps=1e-06 if c["arch"] != "llama" else 1e-05,
                    rope_scaling=c.get("rope_scaling"), rope_theta=c.get("rope_theta", 10000.0),
                    tie_word_embeddings=c.get("tied", False), use_cache=True)
    if "head_dim" in c:
        cfg["head_dim"] = c["head_dim"]
    if "partial_rotary_factor" in c:
        cfg["partial_rotary_factor"] = c["partial_rotary_factor"]
    if c["arch"] == "llama":
        cfg.update(attention_bias=c.get("attention_bias", False),
                   mlp_bias=c.get("mlp_bias", False), pretraining_tp=1)
    if c["arch"] == "mistral":
        cfg["sliding_window"] = c.get("sliding_window")
    if c["arch"] == "qwen2":
        cfg.update(use_sliding_window=False, sliding_window=c["max_pos"],
                   max_window_layers=c["layers"])
    return cfg


def _head_dim(c):
    return c.get("head_dim", c["hidden"] // c["heads"])


def _linear(m, name, out_dim, in_dim, bias, std_gain=1.0):
    m.normal(name + ".weight", (out_dim, in_dim), std_gain / np.sqrt(in_dim))
    if bias:
        m.normal(name + ".bias", (out_dim,), 0.1)


def _rms_norm(m, name, dim):
    m.tensors[name + ".weight"] = torch.from_numpy(
        (1.0 + 0.1 * m.rng.standard_normal(dim)).astype(np.float32))


def llama_weights(c, vocab_size, config):
    """Random weights in module registration order (embed, layers, norm, lm_head)."""
    m, h, f, d = WeightMaker(c["seed"]), c["hidden"], c["ffn"], _head_dim(c)
    q_out, kv_out = c["heads"] * d, c["kv_heads"] * d
    qkv_bias = c["arch"] == "qwen2" or c.get("attention_bias", False)
    o_bias = c["arch"] == "llama" and c.get("attention_bias", False)
    mlp_bias = c["arch"] == "llama" and c.get("mlp_bias", False)
    m.normal("model.embed_tokens.weight", (vocab_size, h), 1.0)
    for i in range(c["layers"]):
        p = f"model.layers.{i}."
        _linear(m, p + "self_attn.q_proj", q_out, h, qkv_bias, QK_GAIN)
        _linear(m, p + "self_attn.k_proj", kv_out, h, qkv_bias, QK_GAIN)
        _linear(m, p + "self_attn.v_proj", kv_out, h, qkv_bias)
        _linear(m, p + "self_attn.o_proj", h, q_out, o_bias)
        _linear(m, p + "mlp.gate_proj", f, h, mlp_bias)
        _linear(m, p + "mlp.up_proj", f, h, mlp_bias)
        _linear(m, p + "mlp.down_proj", h, f, mlp_bias)
        _rms_norm(m, p + "input_layernorm", h)
        _rms_norm(m, p + "post_attention_layernorm", h)
    _rms_norm(m, "model.norm", h)
    if not c.get("tied", False):
        m.normal("lm_head.weight", (vocab_size, h), 1.0 / np.sqrt(h))
    return m.tensors
