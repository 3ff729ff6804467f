"""Independent PyTorch forward passes of Qwen3, OLMo-2, Phi-3 and GPT-NeoX, for
torch_reference.py.

Written from Hugging Face transformers' modeling_qwen3.py, modeling_olmo2.py, modeling_phi3.py,
modeling_gpt_neox.py and modeling_rope_utils.py (4.52-4.55) and methods.md §13:
  * Qwen3: Llama-style pre-norm blocks; q_norm / k_norm are RMSNorms over head_dim with a plain
    weight, applied per head before RoPE; head_dim from the config; sliding-window layers as
    layer_types says (4.53+), else those with index >= max_window_layers when
    use_sliding_window (the per-layer reading; see modern_layouts.sliding_layers);
  * OLMo-2: no pre-norms; post_attention_layernorm and post_feedforward_layernorm normalise each
    sublayer's output before the residual add; q_norm / k_norm normalise the whole projected q
    (heads * head_dim wide) and k (kv_heads * head_dim) before the split into heads;
  * Phi-3: fused qkv_proj (rows: all q, then k, then v) and gate_up_proj (gate = first half),
    sliding window on every layer, partial_rotary_factor, longrope (decoder_parts);
  * GPT-NeoX: fused query_key_value whose output is per head [q_h | k_h | v_h]; RoPE on the first
    int(head_dim * rotary_pct) features at base rotary_emb_base; LayerNorms with bias; parallel
    residual x + attn(ln1(x)) + mlp(ln2(x)), or sequential; exact-erf gelu MLP with biases;
    final_layer_norm; untied embed_out head (lm_heads.py).
Sliding window W: key j is visible from query i iff i - W < j <= i.
The knobs (qk_norm, softcap, scale, record) are described in decoder_parts.py, the patch hook
in torch_reference.forward (attn_out and mlp_out before OLMo-2's post-norms).
"""

import torch.nn.functional as F

from decoder_parts import Pass, rope_for, sliding_layers
from llama_reference import no_patch, rms_norm

NEOX_ACTIVATIONS = {"gelu": F.gelu, "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
                    "gelu_fast": lambda x: F.gelu(x, approximate="tanh"), "relu": F.relu,
                    "silu": F.silu}


def _shape(cfg):
    heads = cfg["num_attention_heads"]
    d = cfg.get("head_dim") or cfg["hidden_size"] // heads
    return heads, cfg.get("num_key_value_heads", heads), d


def _knobs(qk_norm, softcap, scale):
    return dict(qk_norm=qk_norm, softcap=softcap, scale=scale)


def _swiglu(P, p, x):
    return P.lin(p + "mlp.down_proj", F.silu(P.lin(p + "mlp.gate_proj", x))
                 * P.lin(p + "mlp.up_proj", x))


def qwen3(cfg, w, ids, interventions=None, observe=None, qk_norm="model", softcap="model",
          scale=None, record=None, patch=no_patch):
    """Qwen3ForCausalLM. Returns (probs [L,H,n,n], logits [L,H,n,n], hidden [n,d], positions);
    hooks and knobs as gemma_reference.gemma."""
    P = Pass(w, ids, interventions, observe, _knobs(qk_norm, softcap, scale), patch)
    heads, kv, d = _shape(cfg)
    eps = cfg["rms_norm_eps"]
    d_rot = int(d * cfg.get("partial_rotary_factor", 1.0))
    cos, sin = rope_for(cfg, d_rot, P.n, w.dtype)
    masks, local = P.masks(cfg.get("sliding_window")), set(sliding_layers(cfg))
    x = w("embed_tokens.weight")[ids]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"layers.{layer}."
        x = patch(layer, "resid_pre", x)
        P.observe(layer, "block_in", x)
        h = rms_norm(x, w(p + "input_layernorm.weight"), eps)
        q = P.heads(P.lin(p + "self_attn.q_proj", h), heads, d)
        k = P.heads(P.lin(p + "self_attn.k_proj", h), kv, d)
        v = P.heads(P.lin(p + "self_attn.v_proj", h), kv, d)

        def own(q, k, p=p):
            return (rms_norm(q, w(p + "self_attn.q_norm.weight"), eps),
                    rms_norm(k, w(p + "self_attn.k_norm.weight"), eps))

        q, k = P.rotate(*P.qk(q, k, eps, own), cos, sin, d_rot)
        kind = "local" if layer in local else "global"
        ctx = P.attend(layer, q, k, v, masks[kind], d ** -0.5, None, kind)
        x = x + patch(layer, "attn_out", P.lin(p + "self_attn.o_proj", ctx))
        P.observe(layer, "attn_out", x)
        mlp = _swiglu(P, p, rms_norm(x, w(p + "post_attention_layernorm.weight"), eps))
        x = x + patch(layer, "mlp_out", mlp)
        P.observe(layer, "block_out", x)
    return P.result(rms_norm(x, w("norm.weight"), eps), record)


def whole_projection_norm(t, weight, eps):
    """OLMo-2's q_norm / k_norm: one RMSNorm across the whole projection [n, count * head_dim],
    all heads together (modern_selftest.py swaps in a per-head reading to show it matters)."""
    return rms_norm(t, weight, eps)


def olmo2(cfg, w, ids, interventions=None, observe=None, qk_norm="model", softcap="model",
          scale=None, record=None, patch=no_patch):
    """Olmo2ForCausalLM: x = x + norm(attn(x)); x = x + norm(mlp(x)). QK-norm over the whole
    projection, so knob "model" applies it before the head split and P.qk sees no per-head
    norm (it gets the heads of the projections before that norm as `pre`, for the unnormed
    logits); "unit" replaces it by the per-head unit norm. Returns and hooks as qwen3."""
    P = Pass(w, ids, interventions, observe, _knobs(qk_norm, softcap, scale), patch)
    heads, kv, d = _shape(cfg)
    eps = cfg["rms_norm_eps"]
    d_rot = int(d * cfg.get("partial_rotary_factor", 1.0))
    cos, sin = rope_for(cfg, d_rot, P.n, w.dtype)
    causal = P.masks(None)["global"]
    x = w("embed_tokens.weight")[ids]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"layers.{layer}."
        x = patch(layer, "resid_pre", x)
        P.observe(layer, "block_in", x)
        q0, k0 = P.lin(p + "self_attn.q_proj", x), P.lin(p + "self_attn.k_proj", x)
        pre = P.heads(q0, heads, d), P.heads(k0, kv, d)
        q, k = pre
        if qk_norm == "model":
            q = P.heads(whole_projection_norm(q0, w(p + "self_attn.q_norm.weight"), eps), heads, d)
            k = P.heads(whole_projection_norm(k0, w(p + "self_attn.k_norm.weight"), eps), kv, d)
        q, k = P.qk(q, k, eps, pre=pre)
        v = P.heads(P.lin(p + "self_attn.v_proj", x), kv, d)
        q, k = P.rotate(q, k, cos, sin, d_rot)
        ctx = P.attend(layer, q, k, v, causal, d ** -0.5)
        a = patch(layer, "attn_out", P.lin(p + "self_attn.o_proj", ctx))
        x = x + rms_norm(a, w(p + "post_attention_layernorm.weight"), eps)
        P.observe(layer, "attn_out", x)
        mlp = patch(layer, "mlp_out", _swiglu(P, p, x))
        x = x + rms_norm(mlp, w(p + "post_feedforward_layernorm.weight"), eps)
        P.observe(layer, "block_out", x)
    return P.result(rms_norm(x, w("norm.weight"), eps), record)


def phi3(cfg, w, ids, interventions=None, observe=None, qk_norm="model", softcap="model",
         scale=None, record=None, patch=no_patch):
    """Phi3ForCausalLM: Llama-style blocks with fused projections, a sliding window on every
    layer when sliding_window is set, longrope chosen per pass. Returns and hooks as qwen3."""
    P = Pass(w, ids, interventions, observe, _knobs(qk_norm, softcap, scale), patch)
    heads, kv, d = _shape(cfg)
    eps = cfg["rms_norm_eps"]
    d_rot = int(d * cfg.get("partial_rotary_factor", 1.0))
    cos, sin = rope_for(cfg, d_rot, P.n, w.dtype)
    window = cfg.get("sliding_window")
    kind = "local" if window is not None else "global"
    mask = P.masks(window)[kind]
    f = cfg["intermediate_size"]
    x = w("embed_tokens.weight")[ids]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"layers.{layer}."
        x = patch(layer, "resid_pre", x)
        P.observe(layer, "block_in", x)
        qkv = P.lin(p + "self_attn.qkv_proj", rms_norm(x, w(p + "input_layernorm.weight"), eps))
        q, k, v = qkv.split([heads * d, kv * d, kv * d], dim=-1)
        q, k = P.qk(P.heads(q, heads, d), P.heads(k, kv, d), eps)
        q, k = P.rotate(q, k, cos, sin, d_rot)
        ctx = P.attend(layer, q, k, P.heads(v, kv, d), mask, d ** -0.5, None, kind)
        x = x + patch(layer, "attn_out", P.lin(p + "self_attn.o_proj", ctx))
        P.observe(layer, "attn_out", x)
        gate, up = P.lin(p + "mlp.gate_up_proj",
                         rms_norm(x, w(p + "post_attention_layernorm.weight"), eps)).split(f, -1)
        x = x + patch(layer, "mlp_out", P.lin(p + "mlp.down_proj", up * F.silu(gate)))
        P.observe(layer, "block_out", x)
    return P.result(rms_norm(x, w("norm.weight"), eps), record)


def neox_split(qkv, heads, d):
    """query_key_value's output [n, 3 * heads * d], per head [q_h | k_h | v_h] -> three
    [heads, n, d] (HF: view(n, heads, 3 * d).chunk(3, dim=-1))."""
    per_head = qkv.reshape(qkv.shape[0], heads, 3 * d).transpose(0, 1)
    return per_head[..., :d], per_head[..., d:2 * d], per_head[..., 2 * d:]


def gpt_neox(cfg, w, ids, interventions=None, observe=None, qk_norm="model", softcap="model",
             scale=None, record=None, patch=no_patch):
    """GPTNeoXForCausalLM (prefix gpt_neox.). Returns and hooks as qwen3; with the parallel
    residual, attn_out is x + attn(ln1(x)) and block_out adds mlp(ln2(x)) of the block input."""
    P = Pass(w, ids, interventions, observe, _knobs(qk_norm, softcap, scale), patch)
    heads, hidden = cfg["num_attention_heads"], cfg["hidden_size"]
    d, eps = hidden // heads, cfg["layer_norm_eps"]
    d_rot = int(d * cfg.get("rotary_pct", cfg.get("partial_rotary_factor", 1.0)))
    rope_cfg = dict(cfg, rope_theta=cfg.get("rotary_emb_base", cfg.get("rope_theta", 10000.0)))
    cos, sin = rope_for(rope_cfg, d_rot, P.n, w.dtype)
    causal = P.masks(None)["global"]
    act = NEOX_ACTIVATIONS[cfg.get("hidden_act", "gelu")]

    def ln(name, t):
        return F.layer_norm(t, (hidden,), w(name + ".weight"), w(name + ".bias"), eps)

    x = w("embed_in.weight")[ids]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"layers.{layer}."
        x = patch(layer, "resid_pre", x)
        P.observe(layer, "block_in", x)
        q, k, v = neox_split(P.lin(p + "attention.query_key_value",
                                   ln(p + "input_layernorm", x)), heads, d)
        q, k = P.rotate(*P.qk(q, k, eps), cos, sin, d_rot)
        attn = patch(layer, "attn_out",
                     P.lin(p + "attention.dense", P.attend(layer, q, k, v, causal, d ** -0.5)))
        mlp_in = x if cfg.get("use_parallel_residual", True) else x + attn
        x = x + attn
        P.observe(layer, "attn_out", x)
        mlp = P.lin(p + "mlp.dense_4h_to_h",
                    act(P.lin(p + "mlp.dense_h_to_4h", ln(p + "post_attention_layernorm",
                                                          mlp_in))))
        x = x + patch(layer, "mlp_out", mlp)
        P.observe(layer, "block_out", x)
    return P.result(ln("final_layer_norm", x), record)
