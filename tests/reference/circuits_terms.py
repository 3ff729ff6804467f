"""The residual-stream decomposition behind direct logit attribution (methods.md §12.1), for
circuits_reference.py.

Written from methods.md §11.6 / §12.1 and TransformerLens's definitions
(ActivationCache.decompose_resid, stack_head_results, apply_ln_to_stack), never from AttnScope's
C++. The forward passes are torch_reference.py's own; this module only listens to them through
their two hooks:
    interventions(layer, probs [H, n, n], v [H, n, d])  -> records z_h = probs_h @ v_h per query
                                                           head (GQA values already repeated)
    observe(layer, stage, x [n, hidden])                 -> records the residual stream at
                                                           block_in, attn_out and block_out
and takes the weights it needs (W_O, b_O, the post-norms, the final norm, W_U) from the
checkpoint.

The terms of the final residual x_final [n, hidden] (before the final norm), in this order:
    "embed"            token embedding (Gemma: times sqrt(hidden) in the pass's dtype)
    "pos"              learned position embedding (GPT-2 only)
    per layer l:
      "L{l}H{h}"       z_h W_O^h for every query head h: probs · V, so the value bias b_V is
                       INSIDE the head's term (methods.md §11.6 reading; TL's fold_value_biases
                       would move it into the bias term)
      "L{l}attn_bias"  b_O (only where o_proj / c_proj / dense has a bias)
      "L{l}mlp"        the MLP sublayer's whole output (block_out - attn_out: with NeoX's
                       parallel residual that is still mlp(ln2(block_in)))
Models with a norm on each sublayer's output (Gemma 2/3 post_attention_layernorm, OLMo-2's
post-norms): each head term (and b_O) goes through that norm with its scale frozen at the whole
attention output's value, w ⊙ part / rms(sum of parts); the MLP's term is already its normed
output. In exact arithmetic the terms sum to x_final.
"""

import json
import math
import os

import torch
import torch.nn.functional as F

import lm_heads
import torch_reference

_LLAMA_LIKE = dict(o_proj="layers.{l}.self_attn.o_proj", conv1d=False, final="norm",
                   norm="rms", one_plus=False, post_attn=None, embed="embed_tokens.weight",
                   pos=None, embed_scale=False, eps="rms_norm_eps")
_GEMMA = dict(_LLAMA_LIKE, one_plus=True, embed_scale=True)
_POST_NORMED = "layers.{l}.post_attention_layernorm"
# model_type -> where a pre-norm decoder keeps what DLA needs.
DECODERS = {
    "gpt2": dict(o_proj="h.{l}.attn.c_proj", conv1d=True, final="ln_f", norm="ln",
                 one_plus=False, post_attn=None, embed="wte.weight", pos="wpe.weight",
                 embed_scale=False, eps="layer_norm_epsilon"),
    "llama": _LLAMA_LIKE, "mistral": _LLAMA_LIKE, "qwen2": _LLAMA_LIKE, "qwen3": _LLAMA_LIKE,
    "phi3": _LLAMA_LIKE,
    "olmo2": dict(_LLAMA_LIKE, post_attn=_POST_NORMED),
    "gemma": _GEMMA,
    "gemma2": dict(_GEMMA, post_attn=_POST_NORMED),
    "gemma3_text": dict(_GEMMA, post_attn=_POST_NORMED),
    "gpt_neox": dict(o_proj="layers.{l}.attention.dense", conv1d=False, final="final_layer_norm",
                     norm="ln", one_plus=False, post_attn=None, embed="embed_in.weight",
                     pos=None, embed_scale=False, eps="layer_norm_eps"),
}
# Post-LN encoders: logit lens through the MLM head only, no DLA (methods.md §12.1).
ENCODERS = ("bert", "roberta", "distilbert")


class Capture:
    """One forward pass on `ids` in `dtype`, with what DLA and the lens read:
        cfg, w           the config and torch_reference.Weights (prefixed, in `dtype`)
        z[l]             [H, n, d] per-head context vectors probs_h @ v_h of layer l
        stage[(l, s)]    [n, hidden] residual at s = block_in / attn_out / block_out of layer l
        hidden           [n, hidden] the forward's last hidden state (decoders: after the final
                         norm; encoders: the last layer's output)
        lm               [n, vocab] the model's own prediction logits (after any final cap)
        ids              I64 [n]"""

    def __init__(self, folder, ids, dtype, tensors):
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            self.cfg = json.load(f)
        self.mt = self.cfg["model_type"]
        if self.mt not in DECODERS and self.mt not in ENCODERS:
            raise NotImplementedError(f"circuits: model_type {self.mt}")
        self.z, self.stage = {}, {}
        _, probe, prefixes = torch_reference.ARCHS[self.mt]
        widened = {n: t.float() if t.is_floating_point() else t for n, t in tensors.items()}
        self.w = torch_reference.Weights(widened, dtype,
                                         torch_reference.detect_prefix(tensors, probe, prefixes))
        self.dtype, self.ids = dtype, torch.tensor(ids, dtype=torch.int64)
        _, _, self.hidden, _, self.lm = torch_reference.forward(
            folder, ids, dtype, tensors, interventions=self._record_z, observe=self._observe)
        self.layers = len(self.z)

    def _record_z(self, layer, probs, v):
        ctx = probs @ v
        self.z[layer] = ctx
        return probs, ctx

    def _observe(self, layer, stage, x):
        self.stage[(layer, stage)] = x

    @property
    def family(self):
        return DECODERS[self.mt]

    def eps(self):
        return 1e-12 if self.mt == "distilbert" else self.cfg[self.family["eps"]]

    def has(self, name):
        return self.w.prefix + name in self.w.tensors

    def residuals(self):
        """[L + 1] residual streams [n, hidden]: entering layer 0, then after each layer."""
        return [self.stage[(0, "block_in")]] + [self.stage[(l, "block_out")]
                                                for l in range(self.layers)]


def embedding_terms(cap):
    """[("embed", [n, hidden])] (+ ("pos", ...) for GPT-2): the residual entering layer 0."""
    fam, n = cap.family, len(cap.ids)
    embed = cap.w(fam["embed"])[cap.ids]
    if fam["embed_scale"]:
        hidden = cap.cfg["hidden_size"]
        embed = embed * torch.tensor(math.sqrt(hidden), dtype=cap.dtype)
    terms = [("embed", embed)]
    if fam["pos"]:
        terms.append(("pos", cap.w(fam["pos"])[torch.arange(n)]))
    return terms


def head_outputs(cap, layer):
    """[H, n, hidden]: z_h [n, d] @ W_O^h [d, hidden] for each query head h. W_O^h is rows
    h*d .. (h+1)*d of GPT-2's Conv1D weight [H*d, hidden], or those columns of an nn.Linear
    weight [hidden, H*d]."""
    z = cap.z[layer]
    heads, _, d = z.shape
    weight = cap.w(cap.family["o_proj"].format(l=layer) + ".weight")
    w_o = weight if cap.family["conv1d"] else weight.T
    return torch.einsum("hnd,hde->hne", z, w_o.reshape(heads, d, -1))


def rms(t, eps):
    """sqrt(mean(t^2) + eps) over the last dimension, kept as [.., 1]."""
    return torch.sqrt(t.pow(2).mean(-1, keepdim=True) + eps)


def post_norm_frozen(cap, layer, parts):
    """The attention sublayer's post-norm applied to each part with the scale frozen at the
    whole output (sum of the parts): w ⊙ part / rms(total), w -> 1 + w for Gemma."""
    weight = cap.w(cap.family["post_attn"].format(l=layer) + ".weight")
    if cap.family["one_plus"]:
        weight = 1.0 + weight
    scale = rms(sum(parts), cap.eps())
    return [weight * p / scale for p in parts]


def attention_terms(cap, layer, post_norm=True):
    """[(name, [n, hidden])] of layer's attention sublayer: one per query head, then b_O where
    there is one; through the frozen post-norm where the model has one (post_norm=False leaves
    it out: a misreading, for the self-test)."""
    heads = head_outputs(cap, layer)
    names = [f"L{layer}H{h}" for h in range(heads.shape[0])]
    parts = list(heads)
    bias = cap.family["o_proj"].format(l=layer) + ".bias"
    if cap.has(bias):
        names.append(f"L{layer}attn_bias")
        parts.append(cap.w(bias).expand_as(parts[0]))
    if cap.family["post_attn"] and post_norm:
        parts = post_norm_frozen(cap, layer, parts)
    return list(zip(names, parts))


def check_sublayer(cap, layer, terms):
    """The attention terms must rebuild attn_out - block_in (reads W_O the forward's way)."""
    delta = cap.stage[(layer, "attn_out")] - cap.stage[(layer, "block_in")]
    gap = (sum(t for _, t in terms) - delta).abs().max().item()
    scale = delta.abs().max().item()
    if not gap <= 1e-4 * scale:
        raise SystemExit(f"circuits: layer {layer}'s head terms miss the attention output by "
                         f"{gap:.2e} (scale {scale:.2e})")


def residual_terms(cap, post_norm=True):
    """[(name, [n, hidden])] in the module docstring's order, summing to x_final."""
    terms = embedding_terms(cap)
    for layer in range(cap.layers):
        attn = attention_terms(cap, layer, post_norm)
        if post_norm:
            check_sublayer(cap, layer, attn)
        mlp = cap.stage[(layer, "block_out")] - cap.stage[(layer, "attn_out")]
        terms += attn + [(f"L{layer}mlp", mlp)]
    return terms


def final_norm_parts(cap):
    """(kind "ln" | "rms", effective weight (Gemma: 1 + w), bias or None, eps)."""
    fam = cap.family
    weight = cap.w(fam["final"] + ".weight")
    if fam["one_plus"]:
        weight = 1.0 + weight
    bias = cap.w(fam["final"] + ".bias") if fam["norm"] == "ln" else None
    return fam["norm"], weight, bias, cap.eps()


def norm_scale(kind, t, eps):
    """The final norm's divisor for rows of t: sigma (biased variance) or rms, eps inside."""
    if kind == "ln":
        return torch.sqrt(t.var(-1, unbiased=False, keepdim=True) + eps)
    return rms(t, eps)


def final_norm(cap, x):
    """The model's final norm recomputed on a residual x [n, hidden] (the logit lens)."""
    kind, weight, bias, eps = final_norm_parts(cap)
    if kind == "ln":
        return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)
    return weight * (x / rms(x, eps))


def through_final_norm(cap, terms, frozen=True, centre=True):
    """Each term through the final norm, apply_ln_to_stack style: centred (LayerNorm only),
    divided by the CACHED scale of x_final at its position (frozen=False: by the term's own
    scale, a misreading), times the weight; LayerNorm's bias becomes "final_norm_bias"."""
    kind, weight, bias, eps = final_norm_parts(cap)
    cached = norm_scale(kind, cap.stage[(cap.layers - 1, "block_out")], eps)
    out = []
    for name, t in terms:
        if kind == "ln" and centre:
            t = t - t.mean(-1, keepdim=True)
        out.append((name, weight * t / (cached if frozen else norm_scale(kind, t, eps))))
    if bias is not None:
        out.append(("final_norm_bias", bias.expand_as(out[0][1])))
    return out


def unembedding(cap):
    """(W_U [vocab, hidden], b_U [vocab] or None) of the causal LM head, read as lm_heads.py
    reads it (lm_head / embed_out, or the tied embedding)."""
    raw, mt = cap.w.tensors, cap.mt
    head = lm_heads.HEAD_WEIGHT.get(mt, "lm_head.weight")
    bias = raw[head[:-len("weight")] + "bias"].to(cap.dtype) \
        if head[:-len("weight")] + "bias" in raw else None
    if head in raw:
        return raw[head].to(cap.dtype), bias
    if cap.cfg.get("tie_word_embeddings", mt in lm_heads.TIED_BY_DEFAULT):
        return cap.w(lm_heads.EMBEDDING[mt]), bias
    raise NotImplementedError(f"circuits: {mt} checkpoint without an LM head")


def final_cap(cap):
    """Gemma 2's final_logit_softcapping (None elsewhere)."""
    return cap.cfg.get("final_logit_softcapping")


def soft_cap(logits, c):
    return logits if c is None else torch.tanh(logits / c) * c
