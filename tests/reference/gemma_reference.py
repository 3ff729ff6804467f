"""Independent PyTorch forward passes of Gemma, Gemma 2 and Gemma 3 (text-only, and the text
model inside Gemma3ForConditionalGeneration), for torch_reference.py.

Written from Hugging Face transformers' modeling_gemma.py / modeling_gemma2.py /
modeling_gemma3.py (4.52-4.55) and methods.md §13, with torch.nn.functional only:
  * embeddings times sqrt(hidden_size); the normaliser is rounded to the pass's compute dtype
    (4.52's GemmaModel: torch.tensor(hidden_size ** 0.5, dtype=hidden_states.dtype); Gemma 3's
    embed_scale.to(weight dtype) is the same thing), so exactly float32(sqrt(h)) here;
  * every RMSNorm multiplies by (1 + w), Gemma 3's per-head q_norm/k_norm included;
  * GeGLU with tanh GELU: Gemma 1 reads hidden_act (4.48+; 4.38-4.47 read hidden_activation and
    fell back to tanh GELU when it was null), Gemma 2/3 read hidden_activation;
  * Gemma 1 scales scores by head_dim^-0.5 (head_dim from the config), Gemma 2/3 by
    query_pre_attn_scalar^-0.5;
  * Gemma 2 wraps each sublayer in a pre-norm and a post-norm, soft-caps the scaled scores
    (tanh(s / cap) * cap) before the mask, and alternates local (sliding window, even layers)
    and global layers; its final logits get their own cap (lm_heads.py);
  * Gemma 3 applies QK-norm before RoPE, no attention soft-cap, and picks the layer kind from
    layer_types (4.53+) or sliding_window_pattern (global iff (i + 1) % pattern == 0); local
    layers use default RoPE at rope_local_base_freq, global ones rope_theta and rope_scaling.
Sliding window W: key j is visible from query i iff i - W < j <= i.
The knobs (qk_norm, softcap, scale, record) are described in decoder_parts.py.
"""

import math

import torch
import torch.nn.functional as F

from decoder_parts import (GEMMA3_TEXT_DEFAULTS, Pass, layer_kinds, one_plus_rms_norm,
                           rope_tables)
from llama_reference import no_patch, rope_inverse_frequencies

ACTIVATIONS = {"gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
               "gelu_new": lambda x: F.gelu(x, approximate="tanh"), "gelu": F.gelu}


def text_config(cfg):
    """The language model's config: Gemma3Config's text_config over Gemma3TextConfig's defaults
    (save_pretrained leaves default values out of it), or cfg itself."""
    if "text_config" not in cfg:
        return cfg
    return dict(GEMMA3_TEXT_DEFAULTS, **cfg["text_config"])


def _activation(cfg):
    if cfg["model_type"] == "gemma":
        return ACTIVATIONS[cfg.get("hidden_act") or "gelu_pytorch_tanh"]
    return ACTIVATIONS[cfg.get("hidden_activation") or "gelu_pytorch_tanh"]


def _rope_by_kind(cfg, d, n, dtype):
    """{"global": (cos, sin), "local": (cos, sin)}. Gemma 1/2 use one table (rope_theta and any
    rope_scaling) everywhere; Gemma 3's local layers use default RoPE at rope_local_base_freq."""
    global_table = rope_tables(rope_inverse_frequencies(cfg, d), n, dtype)
    if cfg["model_type"] != "gemma3_text":
        return {"global": global_table, "local": global_table}
    local_cfg = {"rope_theta": cfg.get("rope_local_base_freq", 10000.0)}
    return {"global": global_table,
            "local": rope_tables(rope_inverse_frequencies(local_cfg, d), n, dtype)}


def _attention(P, cfg, layer, x, kind, tables, masks):
    """One self-attention sublayer on the normed input x; returns o_proj's output."""
    heads, kv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    d, eps, p = cfg["head_dim"], cfg["rms_norm_eps"], f"layers.{layer}.self_attn."
    q = P.heads(P.lin(p + "q_proj", x), heads, d)
    k = P.heads(P.lin(p + "k_proj", x), kv, d)
    v = P.heads(P.lin(p + "v_proj", x), kv, d)
    own = None
    if cfg["model_type"] == "gemma3_text":
        def own(q, k):
            return (one_plus_rms_norm(q, P.w(p + "q_norm.weight"), eps),
                    one_plus_rms_norm(k, P.w(p + "k_norm.weight"), eps))
    q, k = P.qk(q, k, eps, own)
    q, k = P.rotate(q, k, *tables[kind], d)
    qpas = cfg.get("query_pre_attn_scalar")
    scale = (qpas if cfg["model_type"] != "gemma" else d) ** -0.5
    cap = cfg.get("attn_logit_softcapping") if cfg["model_type"] == "gemma2" else None
    ctx = P.attend(layer, q, k, v, masks[kind], scale, cap, kind)
    return P.lin(p + "o_proj", ctx)


def _decoder(cfg, w, ids, interventions, observe, knobs, record, patch):
    """The Gemma 1/2/3 text decoder; cfg is the text model's config. The patch hook's attn_out
    and mlp_out are o_proj's and down_proj's outputs, before Gemma 2/3's post-norms."""
    P = Pass(w, ids, interventions, observe, knobs, patch)
    mt, hidden, eps = cfg["model_type"], cfg["hidden_size"], cfg["rms_norm_eps"]
    act = _activation(cfg)
    kinds = layer_kinds(cfg)
    tables = _rope_by_kind(cfg, cfg["head_dim"], P.n, w.dtype)
    masks = P.masks(cfg.get("sliding_window"))

    def norm(name, t):
        return one_plus_rms_norm(t, w(name + ".weight"), eps)

    x = w("embed_tokens.weight")[ids] * torch.tensor(math.sqrt(hidden), dtype=w.dtype)
    for layer, kind in enumerate(kinds):
        p = f"layers.{layer}."
        x = patch(layer, "resid_pre", x)
        P.observe(layer, "block_in", x)
        a = _attention(P, cfg, layer, norm(p + "input_layernorm", x), kind, tables, masks)
        a = patch(layer, "attn_out", a)
        x = x + (a if mt == "gemma" else norm(p + "post_attention_layernorm", a))
        P.observe(layer, "attn_out", x)
        h = norm(p + ("post_attention_layernorm" if mt == "gemma" else
                      "pre_feedforward_layernorm"), x)
        m = patch(layer, "mlp_out", P.lin(p + "mlp.down_proj", act(P.lin(p + "mlp.gate_proj", h))
                                          * P.lin(p + "mlp.up_proj", h)))
        x = x + (m if mt == "gemma" else norm(p + "post_feedforward_layernorm", m))
        P.observe(layer, "block_out", x)
    return P.result(norm("norm", x), record)


def gemma(cfg, w, ids, interventions=None, observe=None, qk_norm="model", softcap="model",
          scale=None, record=None, patch=no_patch):
    """Gemma 1, 2 and 3 text models (model_type gemma, gemma2, gemma3_text).
    Returns (probs [L,H,n,n], logits [L,H,n,n], hidden [n,d] after the final norm, positions).
    interventions / observe: see torch_reference.forward (observe stages block_in, attn_out =
    the residual after the attention sublayer, block_out); qk_norm / softcap / scale / record:
    see decoder_parts.py; patch: see torch_reference.forward."""
    knobs = dict(qk_norm=qk_norm, softcap=softcap, scale=scale)
    return _decoder(cfg, w, ids, interventions, observe, knobs, record, patch)


def gemma3_multimodal(cfg, w, ids, **kwargs):
    """Gemma3ForConditionalGeneration on text only: its language model (text_config over the
    defaults) with the weights under model.language_model.; the vision tower never runs (a
    text-only input has no image tokens, so the mask stays causal)."""
    return gemma(text_config(cfg), w, ids, **kwargs)
