"""Per-head weights of a fixture checkpoint in TransformerLens's layout, and TransformerLens's
weight processing (fold_ln, center_writing_weights, center_unembed), for weights_reference.py.

Written from TransformerLens (TransformerLensOrg/TransformerLens @4cd36aae) and the Hugging Face
layouts the fixture writers document (hf_layouts.py, llama_layouts.py, gemma_layouts.py,
modern_layouts.py), never from AttnScope's C++. Row-vector convention throughout: a residual
row x [d_model] gives q = x W_Q.

Raw per-head weights (TL's pretrained/weight_conversions/*):
    W_Q [L, H, d_model, d_head], W_K and W_V [L, KV, d_model, d_head], W_O [L, H, d_head, d_model]
    GPT-2  c_attn Conv1D [in, 3 * d_model] = q | k | v; head h = columns h*d .. (h+1)*d of each
           third ("m (i h) -> i m h", gpt2.py); c_proj [H*d, d_model], head h = rows h*d ..
    Llama family, Gemma 2, Qwen3, BERT: nn.Linear [out, in]; head h = rows h*d .. of q/k/v and
           columns h*d .. of the output projection (llama.py, bert.py)
    GPT-NeoX query_key_value [3 * H * d, d_model] grouped per head as q_h | k_h | v_h
           ("(i qkv h) m -> qkv i m h", neox.py)
GQA: query head h reads KV group h // (H / KV) (TL GroupedQueryAttention repeat_interleave; HF
repeat_kv).

Processing (TL weight_processing.py ProcessWeights.process_weights, in its order):
 1. fold_ln (_fold_layer): the norm before the attention multiplies the d_model rows of W_Q, W_K,
    W_V: diag(w) W (fold_layer_norm_weight_single). Gemma: 1 + w (rmsnorm_uses_offset; gemma.py
    stores 1 + w). LayerNorm models then centre W_Q, W_K, W_V over d_model
    (center_weight_single, "head d_model d_head -> head 1 d_head" mean; fold_ln is called with
    center_weights=True only for normalization_type LN). RMSNorm models: fold, no centring.
    The final norm multiplies the d_model rows of W_U [d_model, vocab]
    (_fold_unembed_layer_norm), and for LayerNorm W_U is centred over d_model (mean over dim 0).
 2. center_writing_weights (LayerNorm models only, process_weights): W_E, W_pos and every W_O^h
    minus their mean over d_model (mean(-1) of [vocab|n_ctx, d_model] and [d_head, d_model]).
 3. center_unembed (every model): W_U minus its mean over the vocabulary (mean(-1) of TL's
    [d_model, vocab]).
 Biases are ignored (they are not part of W_QK / W_OV).
Beyond TL (TL has no rule for these; the choices are AttnScope's, methods.md §12.4):
  * BERT (post-LN): TL's HookedEncoder.from_pretrained does no processing at all (fold_ln=False).
    Here the LayerNorm that produced the layer's input is folded like a pre-norm: the embedding
    LayerNorm for layer 0, layer l-1's output.LayerNorm otherwise; centring as for LayerNorm.
  * QK-norm (Qwen3 q_norm / k_norm over head_dim): TL keeps q_norm/k_norm as separate RMSNorm
    modules and its W_Q excludes them (abstract_attention.py). Here their weight multiplies the
    d_head columns of W_Q / W_K and their division by the rms of q / k is dropped: a
    linearisation, W_QK is then exact only up to one positive scalar per (query, key) pair.
  * Gemma 2's post-attention norm acts on the sum of the heads' outputs; W_OV leaves it out (TL
    too: "ln1_post.w (Gemma 2/3): keep original").
  * RoPE: the weights are the unrotated ones (relative offset 0); attention soft-caps, the
    query scale and Gemma's query_pre_attn_scalar are not in W_QK (TL's W_Q has none of them).
  * Gemma's embedding is multiplied by sqrt(d_model) as TL's gemma.py does; the copying ratio
    does not depend on it.
"""

import json
import math
import os
from dataclasses import dataclass, field, replace

import torch

import st_io

_LLAMA = dict(prefixes=("model.", ""), embed="embed_tokens.weight", pos=None, final="norm",
              norm="rms", one_plus=False, eps="rms_norm_eps", qk_norm=False, tied_default=False,
              head="lm_head.weight", in_norm="layers.{l}.input_layernorm", embed_scale=False,
              attn="linear", proj="layers.{l}.self_attn.{p}_proj")
_GEMMA = dict(_LLAMA, one_plus=True, tied_default=True, embed_scale=True)
# model_type -> where its weights are and how its norms behave.
ARCH = {
    "gpt2": dict(prefixes=("transformer.", ""), embed="wte.weight", pos="wpe.weight",
                 final="ln_f", norm="ln", one_plus=False, eps="layer_norm_epsilon",
                 qk_norm=False, tied_default=True, head="lm_head.weight",
                 in_norm="h.{l}.ln_1", embed_scale=False, attn="gpt2", proj=None),
    "llama": _LLAMA, "mistral": _LLAMA, "qwen2": _LLAMA,
    "qwen3": dict(_LLAMA, qk_norm=True),
    "gemma": _GEMMA, "gemma2": _GEMMA,
    "gpt_neox": dict(prefixes=("gpt_neox.", ""), embed="embed_in.weight", pos=None,
                     final="final_layer_norm", norm="ln", one_plus=False, eps="layer_norm_eps",
                     qk_norm=False, tied_default=False, head="embed_out.weight",
                     in_norm="layers.{l}.input_layernorm", embed_scale=False, attn="neox",
                     proj=None),
    # Post-LN: layer l reads the output of the LayerNorm named by bert_in_norm(l).
    "bert": dict(prefixes=("bert.", ""), embed="embeddings.word_embeddings.weight",
                 pos="embeddings.position_embeddings.weight", final=None, norm="ln",
                 one_plus=False, eps="layer_norm_eps", qk_norm=False, tied_default=True,
                 head=None, in_norm=None, embed_scale=False, attn="linear",
                 proj="encoder.layer.{l}.attention.{p}"),
}
_BERT_PROJ = dict(q="self.query", k="self.key", v="self.value", o="output.dense")


@dataclass
class Heads:
    """A model's weights in TL's layout (float64 or float32). norm_in [L, d_model] is the
    effective weight of the norm each layer's attention reads (Gemma: already 1 + w); q_norm /
    k_norm [L, d_head] or None; w_final [d_model] or None (BERT); W_U [d_model, vocab] or None
    (BERT: the MLM head is nonlinear); W_pos [n_pos, d_model] raw, or None."""
    model_type: str
    norm: str
    eps: float
    W_Q: torch.Tensor
    W_K: torch.Tensor
    W_V: torch.Tensor
    W_O: torch.Tensor
    norm_in: torch.Tensor
    W_E: torch.Tensor
    W_U: torch.Tensor = None
    w_final: torch.Tensor = None
    W_pos: torch.Tensor = None
    q_norm: torch.Tensor = None
    k_norm: torch.Tensor = None
    processed: dict = field(default_factory=dict)

    @property
    def shape(self):
        """(L, H, KV, d_model, d_head)."""
        L, H, dm, dh = self.W_Q.shape
        return L, H, self.W_K.shape[1], dm, dh


def _prefix(tensors, arch):
    for p in arch["prefixes"]:
        if p + arch["embed"] in tensors:
            return p
    raise ValueError(f"no {arch['embed']} under any of {arch['prefixes']}")


def _dims(cfg):
    """(L, H, KV, d_model, d_head) from an HF config (GPT-2's n_* keys included)."""
    L = cfg.get("num_hidden_layers", cfg.get("n_layer"))
    H = cfg.get("num_attention_heads", cfg.get("n_head"))
    dm = cfg.get("hidden_size", cfg.get("n_embd"))
    return L, H, cfg.get("num_key_value_heads", H), dm, cfg.get("head_dim") or dm // H


def _split_rows(weight, count, d):
    """nn.Linear weight [count * d, d_model] -> [count, d_model, d] (head c = rows c*d ..)."""
    return weight.reshape(count, d, -1).transpose(1, 2)


def _attention(t, arch, layer, dims):
    """(W_Q [H, dm, d], W_K [KV, dm, d], W_V [KV, dm, d], W_O [H, d, dm]) of one layer."""
    _, H, KV, dm, d = dims
    if arch["attn"] == "gpt2":
        w = t(f"h.{layer}.attn.c_attn.weight")                  # [dm, 3 * dm], Conv1D
        q, k, v = (w[:, i * dm:(i + 1) * dm].reshape(dm, H, d).permute(1, 0, 2) for i in range(3))
        return q, k, v, t(f"h.{layer}.attn.c_proj.weight").reshape(H, d, dm)
    if arch["attn"] == "neox":
        w = t(f"layers.{layer}.attention.query_key_value.weight").reshape(H, 3, d, dm)
        q, k, v = (w[:, i].transpose(1, 2) for i in range(3))
        o = t(f"layers.{layer}.attention.dense.weight")          # [dm, H * d]
        return q, k, v, o.T.reshape(H, d, dm)
    names = _BERT_PROJ if arch is ARCH["bert"] else dict(q="q", k="k", v="v", o="o")

    def proj(role):
        return t(arch["proj"].format(l=layer, p=names[role]) + ".weight")
    return (_split_rows(proj("q"), H, d), _split_rows(proj("k"), KV, d),
            _split_rows(proj("v"), KV, d), proj("o").T.reshape(H, d, dm))


def _in_norm_name(mt, arch, layer):
    if mt == "bert":
        return ("embeddings.LayerNorm" if layer == 0
                else f"encoder.layer.{layer - 1}.output.LayerNorm")
    return arch["in_norm"].format(l=layer)


def _unembedding(raw, t, cfg, arch):
    """W_U [d_model, vocab] (lm_head / embed_out, or the tied embedding), or None (BERT). The
    head sits outside the base model's prefix."""
    if arch["head"] is None:
        return None
    if arch["head"] in raw:
        return raw[arch["head"]].float().to(t(arch["embed"]).dtype).T
    if cfg.get("tie_word_embeddings", arch["tied_default"]):
        return t(arch["embed"]).T
    raise ValueError(f"no {arch['head']} and the embeddings are not tied")


def load(folder, dtype=torch.float64):
    """Heads of an HF checkpoint folder, raw (unprocessed): weights widened to float32 as stored,
    then to `dtype`."""
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    mt = cfg["model_type"]
    if mt not in ARCH:
        raise NotImplementedError(f"weights: model_type {mt}")
    arch = ARCH[mt]
    raw = st_io.load_checkpoint(folder)
    prefix = _prefix(raw, arch)

    def t(name):
        return raw[prefix + name].float().to(dtype)

    dims = _dims(cfg)
    per_layer = [_attention(t, arch, l, dims) for l in range(dims[0])]
    W_Q, W_K, W_V, W_O = (torch.stack([p[i] for p in per_layer]) for i in range(4))
    one = 1.0 if arch["one_plus"] else 0.0
    norm_in = torch.stack([one + t(_in_norm_name(mt, arch, l) + ".weight")
                           for l in range(dims[0])])
    W_E = t(arch["embed"])
    if arch["embed_scale"]:
        W_E = W_E * math.sqrt(dims[3])
    heads = Heads(mt, arch["norm"], float(cfg[arch["eps"]]), W_Q, W_K, W_V, W_O, norm_in, W_E,
                  W_U=_unembedding(raw, t, cfg, arch),
                  w_final=one + t(arch["final"] + ".weight") if arch["final"] else None,
                  W_pos=t(arch["pos"]) if arch["pos"] else None)
    if arch["qk_norm"]:
        heads.q_norm = torch.stack([t(f"layers.{l}.self_attn.q_norm.weight")
                                    for l in range(dims[0])])
        heads.k_norm = torch.stack([t(f"layers.{l}.self_attn.k_norm.weight")
                                    for l in range(dims[0])])
    return heads


def _centre(w, dim):
    return w - w.mean(dim, keepdim=True)


def process(raw, fold=True, centre=True, qk_fold=True):
    """TL's processing of `raw` (see the module docstring), with each step switchable for the
    self-test's misreadings; KV weights are repeated to one per query head. Returns a Heads
    whose W_K / W_V are [L, H, d_model, d_head] and `processed` records the steps."""
    L, H, KV, dm, dh = raw.shape
    ln = raw.norm == "ln"
    scale = raw.norm_in[:, None, :, None] if fold else 1.0      # multiplies the d_model rows
    W_Q, W_K, W_V = (w * scale for w in (raw.W_Q, raw.W_K, raw.W_V))
    if qk_fold and raw.q_norm is not None:
        W_Q = W_Q * raw.q_norm[:, None, None, :]                  # the d_head columns
        W_K = W_K * raw.k_norm[:, None, None, :]
    if ln and centre:
        W_Q, W_K, W_V = (_centre(w, -2) for w in (W_Q, W_K, W_V))
    group = H // KV
    W_K, W_V = (w.repeat_interleave(group, dim=1) for w in (W_K, W_V))
    W_O, W_E = raw.W_O, raw.W_E
    if ln and centre:
        W_O, W_E = _centre(W_O, -1), _centre(W_E, -1)
    W_U = raw.W_U
    if W_U is not None:
        if fold:
            W_U = W_U * raw.w_final[:, None]
        if ln and centre:
            W_U = _centre(W_U, 0)
        if centre:
            W_U = _centre(W_U, -1)
    steps = dict(fold=fold, centre=centre, qk_fold=qk_fold and raw.q_norm is not None)
    return replace(raw, W_Q=W_Q, W_K=W_K, W_V=W_V, W_O=W_O, W_E=W_E, W_U=W_U,
                   q_norm=None, k_norm=None, processed=steps)


def rules_text(raw):
    """The processing applied to this model, for the output's metadata."""
    ln = raw.norm == "ln"
    w = "1 + w" if ARCH[raw.model_type]["one_plus"] else "w"
    reader = ("post-LN: embedding LayerNorm (layer 0) / layer l-1 output.LayerNorm"
              if raw.model_type == "bert" else "the layer's input norm")
    parts = [f"{reader} weight ({w}) folded into the d_model rows of W_Q, W_K, W_V"]
    if raw.q_norm is not None:
        parts.append("q_norm/k_norm weight folded into the d_head columns of W_Q/W_K, their "
                     "1/rms dropped (linearised)")
    if ln:
        parts.append("W_Q, W_K, W_V centred over d_model after folding; W_O^h, W_E, W_pos "
                     "centred over d_model")
    if raw.W_U is not None:
        parts.append(f"final norm weight ({w}) folded into W_U [d_model, vocab]"
                     + ("; W_U centred over d_model" if ln else "")
                     + "; W_U centred over the vocabulary")
    if ARCH[raw.model_type]["embed_scale"]:
        parts.append("W_E times sqrt(d_model)")
    if raw.model_type == "gemma2":
        parts.append("post-attention norm left out of W_OV")
    parts.append("biases ignored")
    if raw.W_pos is None:
        parts.append("rotary weights unrotated (relative offset 0)")
    return "; ".join(parts)
