"""Pieces the issue-33 reference forwards (gemma_reference.py, modern_reference.py) share: the
"what-if" knobs, RMSNorm with (1 + w), rotary tables (default, linear, longrope), per-layer
masks, and one attention step that records the maps.

Written from Hugging Face transformers' modeling code (4.52-4.55: modeling_gemma*, qwen3, olmo2,
phi3, gpt_neox, modeling_rope_utils) and methods.md §13, never from AttnScope's C++.

Knobs every issue-33 forward takes (keyword arguments; the defaults reproduce the model):
    qk_norm  "model" (default): the model's own QK-norm, if any;
             "off":  skip the model's QK-norm (no effect on a model without one);
             "unit": replace whatever the model has (nothing, or its own QK-norm, per head or over
                     the whole projection) by an RMSNorm over head_dim with weight 1 and the
                     model's epsilon, applied per head to q and k before RoPE.
    softcap  "model" (default): the model's attention soft-cap (only Gemma 2 has one);
             None: no attention soft-cap; a float c: tanh(s / c) * c on every layer's scaled
             scores, before the mask. The final-logit soft-cap is not a knob.
    scale    None (default): each layer's own scale; a float: that scale on every layer.
    record   None, or a dict that receives "raw_logits" [L, H, n, n] (q.k * scale before any
             soft-cap), "unnormed_logits" [L, H, n, n] and "layer_kinds" (["local" | "global"]
             per layer).

"unnormed_logits" are the attention logits of the query and key projections BEFORE any QK-norm
(neither the model's own nor the "unit" knob's), otherwise exactly as raw_logits: split into
heads, rotated with the same RoPE (same cos / sin and partial-rotary width), GQA keys repeated
the same way, times the layer's scale (after the scale knob), never soft-capped, before the mask.
Where no QK-norm runs (knob "off", or "model" on a model without one) they are raw_logits
itself. OLMo-2 normalises the whole projection before the head split; its unnormed logits use
the projections before that norm. The forwards hand the pair to Pass.qk (which keeps the
pre-norm q and k: its inputs, or the `pre` pair OLMo-2 passes) and rotate with Pass.rotate,
which rotates the kept pair too; Pass.attend takes it from there.
"""

import math

import torch

from llama_reference import (apply_rope, no_patch, rms_norm, rope_inverse_frequencies,
                             sliding_causal_mask)

QK_NORM_MODES = ("model", "off", "unit")

# Gemma3TextConfig defaults (transformers 4.52) that the nested text_config diff leaves out when
# a case uses the same value.
GEMMA3_TEXT_DEFAULTS = dict(
    vocab_size=262208, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
    num_attention_heads=8, num_key_value_heads=4, head_dim=256,
    hidden_activation="gelu_pytorch_tanh", max_position_embeddings=131072,
    initializer_range=0.02, rms_norm_eps=1e-06, use_cache=True, pad_token_id=0, eos_token_id=1,
    bos_token_id=2, tie_word_embeddings=True, rope_theta=1000000.0, attention_bias=False,
    attention_dropout=0.0, query_pre_attn_scalar=256, sliding_window=4096,
    final_logit_softcapping=None, attn_logit_softcapping=None, cache_implementation="hybrid",
    rope_scaling=None, rope_local_base_freq=10000.0, sliding_window_pattern=6)


def layer_kinds(cfg):
    """"local"/"global" per layer, as Gemma 2/3 decide it: layer_types when the config has it
    (4.53+), else Gemma 2 even = local, Gemma 3 global iff (i + 1) % sliding_window_pattern == 0.
    Gemma 1 has no local layers."""
    count, mt = cfg["num_hidden_layers"], cfg["model_type"]
    if cfg.get("layer_types"):
        return ["local" if t == "sliding_attention" else "global" for t in cfg["layer_types"]]
    if mt == "gemma2":
        return ["local" if i % 2 == 0 else "global" for i in range(count)]
    if mt == "gemma3_text":
        pattern = cfg.get("sliding_window_pattern", 6)
        return ["global" if (i + 1) % pattern == 0 else "local" for i in range(count)]
    return ["global"] * count


def sliding_layers(cfg):
    """Indices of Qwen3's sliding layers: layer_types when present (4.53+), else those with
    index >= max_window_layers when use_sliding_window."""
    if cfg.get("layer_types"):
        return [i for i, t in enumerate(cfg["layer_types"]) if t == "sliding_attention"]
    if not cfg.get("use_sliding_window") or cfg.get("sliding_window") is None:
        return []
    return list(range(cfg.get("max_window_layers", 0), cfg["num_hidden_layers"]))


def one_plus_rms_norm(x, weight, eps):
    """Gemma's RMSNorm: x * rsqrt(mean(x^2) + eps) * (1 + w). HF upcasts to float32 for this and
    casts back; the reference already runs in float32 (float64 for the agreement check), so it
    computes in the pass's own dtype."""
    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)) * (1.0 + weight)


def rope_tables(inv, n, dtype, attention_factor=1.0):
    """cos, sin [n, d_rot] in float32 as HF builds them (angles p * inv_freq, duplicated halves,
    times the rope type's attention factor), then cast to the pass's dtype."""
    angles = torch.arange(n).float()[:, None] * inv[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    return (emb.cos() * attention_factor).to(dtype), (emb.sin() * attention_factor).to(dtype)


def longrope_frequencies(cfg, d_rot, n):
    """HF _compute_longrope_parameters plus Phi3RotaryEmbedding's per-pass switch: the long
    factors when this pass's length n (max position + 1) exceeds
    original_max_position_embeddings, else the short ones, for every position of the pass.
    factor: rope_scaling's, else max_position_embeddings / original_max_position_embeddings;
    attention factor (multiplies cos and sin): rope_scaling's attention_factor, else
    sqrt(1 + ln(factor) / ln(original_max)) when factor > 1, else 1.
    Returns (inv_freq float32 [d_rot / 2], attention factor, "long" | "short")."""
    scaling = cfg["rope_scaling"]
    original = cfg.get("original_max_position_embeddings", cfg["max_position_embeddings"])
    factor = scaling.get("factor") or cfg["max_position_embeddings"] / original
    attention = scaling.get("attention_factor")
    if attention is None:
        attention = math.sqrt(1 + math.log(factor) / math.log(original)) if factor > 1 else 1.0
    kind = "long" if n > original else "short"
    ext = torch.tensor(scaling[kind + "_factor"], dtype=torch.float32)
    shape = torch.arange(0, d_rot, 2, dtype=torch.int64).float() / d_rot
    return 1.0 / (ext * cfg.get("rope_theta", 10000.0) ** shape), attention, kind


def rope_kind(cfg):
    scaling = cfg.get("rope_scaling") or {}
    return scaling.get("rope_type", scaling.get("type", "default"))


def rope_for(cfg, d_rot, n, dtype):
    """cos, sin for a config whose rope_scaling is absent, linear, llama3 or longrope."""
    if rope_kind(cfg) == "longrope":
        inv, attention, _ = longrope_frequencies(cfg, d_rot, n)
        return rope_tables(inv, n, dtype, attention)
    return rope_tables(rope_inverse_frequencies(cfg, d_rot), n, dtype)


def check_knobs(qk_norm, softcap, scale):
    if qk_norm not in QK_NORM_MODES:
        raise ValueError(f"qk_norm must be one of {QK_NORM_MODES}, not {qk_norm!r}")
    if not (softcap in ("model", None) or (isinstance(softcap, (int, float))
                                           and not isinstance(softcap, bool) and softcap > 0)):
        raise ValueError(f"softcap must be 'model', None or a positive number, not {softcap!r}")
    if scale is not None and not isinstance(scale, (int, float)):
        raise ValueError(f"scale must be None or a number, not {scale!r}")


class Pass:
    """One forward's shared state: weights, positions, knobs, the hooks of torch_reference
    (interventions, observe, patch) and the maps recorded layer by layer."""

    def __init__(self, w, ids, interventions, observe, knobs, patch=no_patch):
        check_knobs(knobs["qk_norm"], knobs["softcap"], knobs["scale"])
        self.w, self.n = w, len(ids)
        self.pos = torch.arange(self.n)
        self.interventions = interventions
        self.observe = observe or (lambda *_: None)
        # patch(layer, site, t) -> t (torch_reference.forward): attend calls it at q, k, v and
        # z; the forwards at resid_pre, attn_out and mlp_out.
        self.patch = patch
        self.knobs = knobs
        self.probs, self.logits, self.raw, self.kinds = [], [], [], []
        self.unnormed = []
        # This layer's pre-norm (q, k): set by qk, rotated by rotate, used up by attend.
        self.pre, self.pre_rotated = None, False

    def lin(self, name, t):
        """nn.Linear with the bias when the checkpoint has one."""
        bias_name = name + ".bias"
        bias = self.w(bias_name) if self.w.prefix + bias_name in self.w.tensors else None
        return torch.nn.functional.linear(t, self.w(name + ".weight"), bias)

    def heads(self, t, count, d):
        """[n, count * d] -> [count, n, d]."""
        return t.reshape(self.n, count, d).transpose(0, 1)

    def qk(self, q, k, eps, model=None, pre=None):
        """The qk_norm knob on per-head q [H, n, d] and k [KV, n, d] (before RoPE). model: the
        model's own per-head norm, (q, k) -> (q, k), or None when it has none (or applied it
        already, as OLMo-2 does on the whole projection; see modern_reference.olmo2). pre: the
        per-head (q, k) before any QK-norm when q and k are not (OLMo-2's), else None. Keeps the
        pre-norm pair for the unnormed logits (rotate, then attend)."""
        self.pre, self.pre_rotated = (q, k) if pre is None else pre, False
        mode = self.knobs["qk_norm"]
        if mode == "unit":
            return rms_norm(q, 1.0, eps), rms_norm(k, 1.0, eps)
        if mode == "model" and model is not None:
            return model(q, k)
        return q, k

    def rotate(self, q, k, cos, sin, d_rot):
        """RoPE (rotate_half pairing) on the first d_rot features of every head of q and k, and
        the same on the pre-norm pair qk kept (not again where that pair is q and k)."""
        if self.pre is None or self.pre_rotated:
            raise RuntimeError("Pass.rotate without a fresh Pass.qk for this layer")
        rq, rk = apply_rope(q, cos, sin, d_rot), apply_rope(k, cos, sin, d_rot)
        pq, pk = self.pre
        if pq is q and pk is k:
            self.pre = rq, rk
        else:
            self.pre = apply_rope(pq, cos, sin, d_rot), apply_rope(pk, cos, sin, d_rot)
        self.pre_rotated = True
        return rq, rk

    def attend(self, layer, q, k, v, allowed, scale, cap=None, kind="global"):
        """q [H, n, d], k and v [KV, n, d] (each key/value head serves H / KV query heads in a
        row); scale and cap: the model's, before the knobs. Records probs, logits (what the
        softmax sees before the mask: scaled, then soft-capped when capped) and raw logits
        (scaled, never capped) and the unnormed logits of the pre-norm pair that qk kept and
        rotate rotated (see the module docstring); returns the context [n, H * d_v].
        The patch hook sees q, k and v per query head after the GQA repeat, and z = probs @ v."""
        if not self.pre_rotated:
            raise RuntimeError("Pass.attend without Pass.qk and Pass.rotate for this layer")
        pq, pk = self.pre
        self.pre, self.pre_rotated = None, False
        if self.knobs["scale"] is not None:
            scale = float(self.knobs["scale"])
        if self.knobs["softcap"] != "model":
            cap = self.knobs["softcap"]
        group = q.shape[0] // k.shape[0]
        same = pq is q and pk is k
        k, v = k.repeat_interleave(group, dim=0), v.repeat_interleave(group, dim=0)
        q, k, v = (self.patch(layer, site, t) for site, t in (("q", q), ("k", k), ("v", v)))
        raw = (q @ k.transpose(1, 2)) * scale
        if same:
            unnormed = raw
        else:
            unnormed = (pq @ pk.repeat_interleave(group, dim=0).transpose(1, 2)) * scale
        logits = raw if cap is None else torch.tanh(raw / cap) * cap
        probs = torch.softmax(logits.masked_fill(~allowed, float("-inf")), dim=-1)
        if self.interventions is None:
            ctx = probs @ v
        else:
            probs, ctx = self.interventions(layer, probs, v)
        self.probs.append(probs)
        self.logits.append(logits)
        self.raw.append(raw)
        self.unnormed.append(unnormed)
        self.kinds.append(kind)
        return self.patch(layer, "z", ctx).transpose(0, 1).reshape(self.n, -1)

    def masks(self, window):
        """{"global": causal, "local": causal within the last `window` keys (i - W < j <= i)}."""
        return {"global": sliding_causal_mask(self.n, None),
                "local": sliding_causal_mask(self.n, window)}

    def result(self, x, record):
        """(probs [L,H,n,n], logits [L,H,n,n], hidden [n,d], positions); fills `record`."""
        if record is not None:
            record["raw_logits"] = torch.stack(self.raw)
            record["unnormed_logits"] = torch.stack(self.unnormed)
            record["layer_kinds"] = list(self.kinds)
        return torch.stack(self.probs), torch.stack(self.logits), x, self.pos

