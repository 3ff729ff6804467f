#!/usr/bin/python3
"""Independent PyTorch forward passes of the encoder-decoder models (issue 20): T5 (v1.0, v1.1),
BART, mBART and Marian.

Usage: seq2seq_reference.py --dir DIR        (DIR holds seq2seq/manifest.json)

Written from Hugging Face's modeling_{t5,bart,mbart,marian}.py (read, not imported: transformers
is not installed here, and the C++ must not share code with what checks it), with
torch.nn.functional only. The rules each model follows are listed in make_seq2seq_checkpoints.py's
docstring. For each input of the manifest it writes reference_<k>.safetensors beside the
checkpoint (F32 unless said otherwise):
    source_ids I64 [S], decoder_ids I64 [T]
    encoder_attention / encoder_logits   [Le, He, S, S]
    decoder_attention / decoder_logits   [Ld, Hd, T, T]
    cross_attention   / cross_logits     [Ld, Hd, T, S]
    encoder_hidden [S, d]   encoder output after its final norm (BART/Marian: the last layer's)
    decoder_hidden [T, d]   after the decoder's final norm, before T5's d_model^-0.5 rescale
    lm_logits      [T, V]   when the checkpoint has an LM head (final_logits_bias included)
"logits" are scores before the mask (q.k^T times the model's scale, plus T5's position bias);
"attention" is the masked softmax. The pass runs in float32 and again in float64 (weights widened
to float32 first either way); every attention map must agree to FP64_AGREEMENT.
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_main  # noqa: E402
import seq2seq_layouts  # noqa: E402
import st_io  # noqa: E402
from torch_reference import ACTIVATIONS as BASE_ACTIVATIONS  # noqa: E402
from torch_reference import Weights, agreed  # noqa: E402

ACTIVATIONS = dict(BASE_ACTIVATIONS, swish=F.silu, silu=F.silu)
MAPS = ("encoder", "decoder", "cross")


def t5_relative_buckets(relative, bidirectional, num_buckets, max_distance):
    """T5Attention._relative_position_bucket. relative = key position - query position.

    Bidirectional: half the buckets for keys after the query (offset num_buckets // 2), half for
    keys at or before it. Within a half, distances below max_exact = half // 2 get a bucket each;
    larger ones max_exact + floor(log(n / max_exact) / log(max_distance / max_exact) *
    (half - max_exact)), capped at half - 1. Causal: only n = max(query - key, 0) counts.
    The logarithm runs in float32 as in HF, whatever the compute dtype, so the buckets match.
    """
    buckets = torch.zeros_like(relative)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative > 0).long() * num_buckets
        n = relative.abs()
    else:
        n = (-relative).clamp(min=0)
    max_exact = num_buckets // 2
    with torch.no_grad():
        scaled = (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                  * (num_buckets - max_exact))
    large = (max_exact + scaled.to(torch.long)).clamp(max=num_buckets - 1)
    return buckets + torch.where(n < max_exact, n, large)


def t5_position_bias(table, n_query, n_key, bidirectional, cfg):
    """[heads, n_query, n_key] from relative_attention_bias.weight [buckets, heads]."""
    rel = torch.arange(n_key)[None, :] - torch.arange(n_query)[:, None]
    b = t5_relative_buckets(rel, bidirectional, cfg["relative_attention_num_buckets"],
                            cfg["relative_attention_max_distance"])
    return table[b].permute(2, 0, 1)


def attend(q, k, v, heads, scale, bias, allowed):
    """q [Tq, H*d], k/v [Tk, H*d] -> (context [Tq, H*d], probs, logits [H, Tq, Tk]).
    logits = q.k^T * scale (+ bias), unmasked; probs = softmax over allowed keys; a row with no
    allowed key would get zeros (not produced by these inputs)."""
    n_q, n_k = q.shape[0], k.shape[0]
    d = q.shape[1] // heads
    qh = q.reshape(n_q, heads, d).transpose(0, 1)
    kh = k.reshape(n_k, heads, d).transpose(0, 1)
    vh = v.reshape(n_k, heads, d).transpose(0, 1)
    logits = (qh @ kh.transpose(1, 2)) * scale
    if bias is not None:
        logits = logits + bias
    probs = torch.softmax(logits.masked_fill(~allowed, float("-inf")), dim=-1)
    probs = torch.nan_to_num(probs, nan=0.0)
    ctx = (probs @ vh).transpose(0, 1).reshape(n_q, heads * d)
    return ctx, probs, logits


def masks(n_src, n_dec, padding):
    """(encoder [S,S], decoder [T,T] causal bottom-right, cross [T,S]) allowed-key masks."""
    key_ok = torch.arange(n_src) < n_src - padding
    causal = torch.arange(n_dec)[None, :] <= torch.arange(n_dec)[:, None]  # Tk == Tq
    return (key_ok[None, :].expand(n_src, n_src), causal,
            key_ok[None, :].expand(n_dec, n_src))


def rms_norm(x, weight, eps):
    """T5LayerNorm: no mean, no bias; x * rsqrt(mean(x^2) + eps) * weight."""
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def t5_stack(cfg, w, stack, x, allowed, encoder_out=None, cross_allowed=None):
    """T5Stack: pre-norm blocks (RMS norm, no biases). Block 0's relative_attention_bias gives
    the position bias every block of the stack reuses; cross-attention has no position bias.
    Returns (hidden after final_layer_norm, [(probs, logits)] self, [(probs, logits)] cross)."""
    decoder = encoder_out is not None
    heads, eps = cfg["num_heads"], cfg["layer_norm_epsilon"]
    layers = cfg["num_decoder_layers"] if decoder else cfg["num_layers"]
    act = ACTIVATIONS[cfg.get("dense_act_fn", cfg["feed_forward_proj"].split("-")[-1])]
    gated = cfg.get("is_gated_act", cfg["feed_forward_proj"].startswith("gated-"))
    n = x.shape[0]
    bias = t5_position_bias(w(f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias"
                              ".weight"), n, n, not decoder, cfg)
    self_maps, cross_maps = [], []
    for i in range(layers):
        p = f"{stack}.block.{i}.layer."

        def lin(name, t, p=p):
            return t @ w(p + name + ".weight").T

        h = rms_norm(x, w(p + "0.layer_norm.weight"), eps)
        a = "0.SelfAttention."
        ctx, probs, logits = attend(lin(a + "q", h), lin(a + "k", h), lin(a + "v", h), heads,
                                    1.0, bias, allowed)
        x = x + lin(a + "o", ctx)
        self_maps.append((probs, logits))
        if decoder:
            h = rms_norm(x, w(p + "1.layer_norm.weight"), eps)
            a = "1.EncDecAttention."
            ctx, probs, logits = attend(lin(a + "q", h), lin(a + "k", encoder_out),
                                        lin(a + "v", encoder_out), heads, 1.0, None,
                                        cross_allowed)
            x = x + lin(a + "o", ctx)
            cross_maps.append((probs, logits))
        f = "2." if decoder else "1."
        h = rms_norm(x, w(p + f + "layer_norm.weight"), eps)
        ff = f + "DenseReluDense."
        inner = act(lin(ff + "wi_0", h)) * lin(ff + "wi_1", h) if gated else act(lin(ff + "wi", h))
        x = x + lin(ff + "wo", inner)
    return rms_norm(x, w(f"{stack}.final_layer_norm.weight"), eps), self_maps, cross_maps


def t5(cfg, w, src, dec, padding):
    """T5: token embeddings only (no scale, no absolute positions); encoder and decoder stacks;
    the LM head rescales by d_model^-0.5 only when tied to `shared`."""
    enc_allowed, dec_allowed, cross_allowed = masks(len(src), len(dec), padding)
    shared = w("shared.weight")
    enc, enc_maps, _ = t5_stack(cfg, w, "encoder", shared[src], enc_allowed)
    hid, dec_maps, cross_maps = t5_stack(cfg, w, "decoder", shared[dec], dec_allowed, enc,
                                         cross_allowed)
    lm = None
    if "lm_head.weight" in w.tensors:
        lm = hid @ w("lm_head.weight").T
    elif cfg["architectures"][0] == "T5ForConditionalGeneration":
        if not cfg.get("tie_word_embeddings", True):
            raise ValueError("untied T5ForConditionalGeneration without lm_head.weight")
        lm = (hid * cfg["d_model"] ** -0.5) @ shared.T
    return enc, hid, enc_maps, dec_maps, cross_maps, lm


def bart_positions(cfg, w, stack, n):
    """BART/mBART: learned table, row = position + 2. Marian: sinusoidal table, row = position,
    taken from the checkpoint when stored, else computed as HF's loader does."""
    name = f"model.{stack}.embed_positions.weight"
    if cfg["model_type"] != "marian":
        return w(name)[torch.arange(n) + 2]
    if name in w.tensors:
        return w(name)[:n]
    table = seq2seq_layouts.marian_sinusoidal_table(cfg["max_position_embeddings"],
                                                    cfg["d_model"])
    return table[:n].to(w.dtype)


def bart_stack(cfg, w, stack, ids, allowed, encoder_out=None, cross_allowed=None):
    """BartEncoder/BartDecoder and the mBART/Marian variants. Embeddings: shared[ids] *
    sqrt(d_model) when scale_embedding, plus positions, then layernorm_embedding (BART, mBART).
    Layers: post-LN (BART, Marian) x = LN(x + sublayer(x)), or pre-LN (mBART) x = x +
    sublayer(LN(x)) with a final layer_norm per stack. Heads scale q.k by head_dim^-0.5."""
    decoder = encoder_out is not None
    mt, d = cfg["model_type"], cfg["d_model"]
    pre_ln = mt == "mbart"
    heads = cfg["decoder_attention_heads" if decoder else "encoder_attention_heads"]
    layers = cfg["decoder_layers" if decoder else "encoder_layers"]
    act = ACTIVATIONS[cfg["activation_function"]]
    scale = (d // heads) ** -0.5
    p0 = f"model.{stack}."
    embed_scale = math.sqrt(d) if cfg.get("scale_embedding", False) else 1.0
    x = w("model.shared.weight")[ids] * embed_scale + bart_positions(cfg, w, stack, len(ids))

    def ln(name, t):
        return F.layer_norm(t, (d,), w(name + ".weight"), w(name + ".bias"), 1e-5)

    if mt != "marian":
        x = ln(p0 + "layernorm_embedding", x)
    self_maps, cross_maps = [], []
    for i in range(layers):
        p = f"{p0}layers.{i}."

        def lin(name, t, p=p):
            return F.linear(t, w(p + name + ".weight"), w(p + name + ".bias"))

        def sublayer(norm, fn, x, p=p):
            if pre_ln:
                return x + fn(ln(p + norm, x))
            return ln(p + norm, x + fn(x))

        def self_attn(h):
            ctx, probs, logits = attend(lin("self_attn.q_proj", h), lin("self_attn.k_proj", h),
                                        lin("self_attn.v_proj", h), heads, scale, None, allowed)
            self_maps.append((probs, logits))
            return lin("self_attn.out_proj", ctx)

        def cross_attn(h):
            ctx, probs, logits = attend(lin("encoder_attn.q_proj", h),
                                        lin("encoder_attn.k_proj", encoder_out),
                                        lin("encoder_attn.v_proj", encoder_out), heads, scale,
                                        None, cross_allowed)
            cross_maps.append((probs, logits))
            return lin("encoder_attn.out_proj", ctx)

        x = sublayer("self_attn_layer_norm", self_attn, x)
        if decoder:
            x = sublayer("encoder_attn_layer_norm", cross_attn, x)
        x = sublayer("final_layer_norm", lambda h: lin("fc2", act(lin("fc1", h))), x)
    if pre_ln:
        x = ln(p0 + "layer_norm", x)
    return x, self_maps, cross_maps


def bart_family(cfg, w, src, dec, padding):
    """LM head: decoder output @ W^T + final_logits_bias, W = lm_head.weight when stored, else
    the shared embedding (tie_word_embeddings)."""
    enc_allowed, dec_allowed, cross_allowed = masks(len(src), len(dec), padding)
    enc, enc_maps, _ = bart_stack(cfg, w, "encoder", src, enc_allowed)
    hid, dec_maps, cross_maps = bart_stack(cfg, w, "decoder", dec, dec_allowed, enc,
                                           cross_allowed)
    if "lm_head.weight" in w.tensors:
        head = w("lm_head.weight")
    elif cfg.get("tie_word_embeddings", True):
        head = w("model.shared.weight")
    else:
        raise ValueError("untied checkpoint without lm_head.weight")
    lm = hid @ head.T + w("final_logits_bias")[0]
    return enc, hid, enc_maps, dec_maps, cross_maps, lm


def forward(cfg, tensors, src, dec, padding, dtype):
    """One pass in `dtype`; returns the reference tensors (see the module docstring)."""
    widened = {n: t.float() if t.is_floating_point() else t for n, t in tensors.items()}
    w = Weights(widened, dtype, "")
    fn = t5 if cfg["model_type"] == "t5" else bart_family
    src_t, dec_t = torch.tensor(src, dtype=torch.int64), torch.tensor(dec, dtype=torch.int64)
    with torch.no_grad():
        enc, hid, enc_maps, dec_maps, cross_maps, lm = fn(cfg, w, src_t, dec_t, padding)
    out = {"source_ids": src_t, "decoder_ids": dec_t, "encoder_hidden": enc,
           "decoder_hidden": hid}
    for name, maps in zip(MAPS, (enc_maps, dec_maps, cross_maps)):
        out[name + "_attention"] = torch.stack([p for p, _ in maps])
        out[name + "_logits"] = torch.stack([lg for _, lg in maps])
    if lm is not None:
        out["lm_logits"] = lm
    return out


def read_config(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        return json.load(f)


def run_case(root, entry):
    """Write every reference file of one manifest entry; returns the worst fp32/fp64 gap."""
    folder = os.path.join(root, entry["case"])
    cfg, tensors = read_config(folder), st_io.load_checkpoint(folder)
    worst = 0.0
    for inp, file in zip(entry["inputs"], entry["references"]):
        src, dec, pad = inp["source"], inp["decoder"], inp["source_padding"]
        out = forward(cfg, tensors, src, dec, pad, torch.float32)
        out64 = forward(cfg, tensors, src, dec, pad, torch.float64)
        gap = max((out[m + "_attention"].double() - out64[m + "_attention"]).abs().max().item()
                  for m in MAPS)
        hidden_gap = (out["decoder_hidden"].double() - out64["decoder_hidden"]).abs().max().item()
        print(f"  {entry['case']:<22} S={len(src):<3} T={len(dec):<3} pad={pad} "
              f"max|p32-p64|={gap:.2e} max|h32-h64|={hidden_gap:.2e}")
        worst = max(worst, agreed(entry["case"], "attention differs", gap))
        st_io.save_file({k: v.contiguous() for k, v in out.items()},
                        os.path.join(folder, file), metadata={
                            "case": entry["case"], "model_type": entry["model_type"],
                            "compute_dtype": "float32", "source_padding": str(pad),
                            "max_abs_diff_vs_float64": f"{gap:.3e}"})
    return worst


# run(OUT_DIR): the reference outputs of every case in OUT/seq2seq/manifest.json.
run, main = reference_main.manifest_pass(__doc__, "seq2seq", run_case, "seq2seq reference",
                                         "attention")


if __name__ == "__main__":
    main()
