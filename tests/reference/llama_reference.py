"""Independent PyTorch forward pass of the Llama family (Llama, Mistral, Qwen2).

Written from the published definitions (methods.md §6-7, Hugging Face modeling_llama.py's
math) with torch.nn.functional only: RMSNorm, rotary embeddings with rotate_half on the first
d_rot dimensions, grouped-query attention by repeating each key/value head for its group of
query heads, causal mask plus Mistral's sliding window, SwiGLU feed-forward, final RMSNorm.
"""

import math

import torch
import torch.nn.functional as F


def no_patch(layer, site, t):
    """The patch hook that changes nothing (torch_reference.forward describes the hook)."""
    return t


def rms_norm(x, weight, eps):
    """HF LlamaRMSNorm: x * rsqrt(mean(x^2) + eps), then the weight."""
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rope_inverse_frequencies(cfg, d_rot):
    """inv_freq in float32 as HF's _compute_default/linear/llama3_parameters do it."""
    base = cfg.get("rope_theta", 10000.0)
    inv = 1.0 / (base ** (torch.arange(0, d_rot, 2, dtype=torch.int64).float() / d_rot))
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "linear":
        inv = inv / scaling["factor"]
    elif kind == "llama3":
        factor, low, high = (scaling["factor"], scaling["low_freq_factor"],
                             scaling["high_freq_factor"])
        old_ctx = scaling["original_max_position_embeddings"]
        low_wavelen, high_wavelen = old_ctx / low, old_ctx / high
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > low_wavelen, inv / factor, inv)
        smooth = (old_ctx / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
        inv = torch.where(medium, smoothed, scaled)
    elif kind != "default":
        raise NotImplementedError(kind)
    return inv


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, cos, sin, d_rot):
    """x: [heads, n, head_dim]; rotates x[..., :d_rot], passes the rest through."""
    rot, rest = x[..., :d_rot], x[..., d_rot:]
    return torch.cat((rot * cos + rotate_half(rot) * sin, rest), dim=-1)


def sliding_causal_mask(n, window):
    """Query i sees key j iff j <= i and (no window or i - j < window)."""
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    allowed = j <= i
    if window is not None:
        allowed &= (i - j) < window
    return allowed


def window_of(cfg):
    if cfg["model_type"] == "mistral":
        return cfg.get("sliding_window", 4096)
    if cfg["model_type"] == "qwen2" and cfg.get("use_sliding_window"):
        raise NotImplementedError("qwen2 use_sliding_window")
    return None


def llama(cfg, w, ids, interventions=None, observe=None, patch=no_patch):
    """Returns (probs [L,H,n,n], logits [L,H,n,n], hidden [n,d], positions).
    interventions: see torch_reference.multi_head_attention; v is given per query head (after
    repeat_interleave), so a key/value group is the query heads h with h // group == g.
    observe: see torch_reference.gpt2 (block_in, attn_out, block_out).
    patch: see torch_reference.forward (q, k, v after RoPE and the GQA repeat)."""
    observe = observe or (lambda *_: None)
    heads, kv_heads = cfg["num_attention_heads"], cfg.get("num_key_value_heads",
                                                          cfg["num_attention_heads"])
    hidden = cfg["hidden_size"]
    d = cfg.get("head_dim") or hidden // heads
    d_rot = int(d * cfg.get("partial_rotary_factor", 1.0))
    eps = cfg["rms_norm_eps"]
    n = len(ids)
    pos = torch.arange(n)
    inv = rope_inverse_frequencies(cfg, d_rot)
    angles = pos.float()[:, None] * inv[None, :]  # float32 as in HF, whatever the compute dtype
    emb = torch.cat((angles, angles), dim=-1)
    cos, sin = emb.cos().to(w.dtype), emb.sin().to(w.dtype)
    allowed = sliding_causal_mask(n, window_of(cfg))
    group = heads // kv_heads

    def lin(name, t):
        bias_name = name + ".bias"
        bias = w(bias_name) if w.prefix + bias_name in w.tensors else None
        return F.linear(t, w(name + ".weight"), bias)

    x = w("embed_tokens.weight")[ids]
    probs_all, logits_all = [], []
    for layer in range(cfg["num_hidden_layers"]):
        p = f"layers.{layer}."
        x = patch(layer, "resid_pre", x)
        observe(layer, "block_in", x)
        h = rms_norm(x, w(p + "input_layernorm.weight"), eps)
        q = lin(p + "self_attn.q_proj", h).reshape(n, heads, d).transpose(0, 1)
        k = lin(p + "self_attn.k_proj", h).reshape(n, kv_heads, d).transpose(0, 1)
        v = lin(p + "self_attn.v_proj", h).reshape(n, kv_heads, d).transpose(0, 1)
        q, k = apply_rope(q, cos, sin, d_rot), apply_rope(k, cos, sin, d_rot)
        k, v = k.repeat_interleave(group, dim=0), v.repeat_interleave(group, dim=0)
        q, k, v = patch(layer, "q", q), patch(layer, "k", k), patch(layer, "v", v)
        logits = (q @ k.transpose(1, 2)) * (1.0 / math.sqrt(d))
        probs = torch.softmax(logits.masked_fill(~allowed, float("-inf")), dim=-1)
        if interventions is None:
            ctx = probs @ v
        else:
            probs, ctx = interventions(layer, probs, v)
        ctx = patch(layer, "z", ctx).transpose(0, 1).reshape(n, heads * d)
        x = x + patch(layer, "attn_out", lin(p + "self_attn.o_proj", ctx))
        observe(layer, "attn_out", x)
        h = rms_norm(x, w(p + "post_attention_layernorm.weight"), eps)
        x = x + patch(layer, "mlp_out", lin(p + "mlp.down_proj",
                                            F.silu(lin(p + "mlp.gate_proj", h))
                                            * lin(p + "mlp.up_proj", h)))
        observe(layer, "block_out", x)
        probs_all.append(probs)
        logits_all.append(logits)
    x = rms_norm(x, w("norm.weight"), eps)
    return torch.stack(probs_all), torch.stack(logits_all), x, pos
