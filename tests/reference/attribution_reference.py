#!/usr/bin/python3
"""Independent PyTorch reference for the attribution maps of issue 19: norm-based, attention
rollout, attention flow, ALTI and value zeroing, for one sentence on one checkpoint folder.

Written from methods.md §4, §5, §11.4, §11.5 and the authors' code they cite, with torch/numpy
only (no transformers, no networkx, no scipy). The forward passes are torch_reference.forward's
own: an `interventions` callable records each layer's probabilities and value vectors (and zeroes
one key's values for value zeroing), and an `observe` callable records the residual stream at a
few named points of each layer. Nothing else in those passes changes.

THE CONTRACT (the C++ cites these rules by number)

A1  Input. One sentence of n token ids, no batch and no padding mask (a pad id is an ordinary
    token, as in the plain pass). Every position (special tokens [CLS]/[SEP]/<s>/BOS included)
    is a query row i and a key column j of every map; nothing is excluded or renormalised
    away [spec choice: Abnar's and Ferrando's code keep them; hiding special tokens is a
    display filter]. Row = query / receiving position, column = key / source position
    (methods.md §0). Layers are 0-based; map l belongs to layer l (for the cumulative maps:
    after layer l).
A2  Numerics. The stored maps come from a float64 pass and float64 arithmetic (F64 tensors).
    The same maps are recomputed from a float32 pass in float32 arithmetic (flow: float64 on
    the float32 capacities) and each output's worst gap is written to the metadata. The
    probabilities and the maps whose rows are shares (attention, rollout, flow, ALTI, value
    zeroing) stay below 3e-6 on the fixtures (the self-test requires <= 1e-5, the parity
    tolerance of the C++, which runs float32). The norm-based outputs (A5) are sizes, not
    shares: a float32 pass carries about 7 significant digits, and the float32 error of A
    (~4e-7) is multiplied by ||f||, so their gap grows with ||f|| (2.7e-5 at ||f|| ~ 135, where
    float32's own spacing is 1.5e-5) and no float32 implementation meets an absolute 1e-5 there.
    Their bound is 1e-5 * max(1, ||f^h(x_j)||) for every output at key j (norm_layer: the
    largest ||f^h(x_j)|| over the heads h); the metadata's max_scaled_diff_float32_<output>
    is the worst gap divided by that scale (norm_scales).
A3  Attention. A[l,h,i,j]: the plain pass's post-softmax probabilities of query head h (all H
    query heads). Masks: BERT family none; GPT-2 and the Llama family causal (j <= i); Mistral
    also its sliding window (i - j < window). Forbidden cells are exactly 0. Every query sees
    itself, so no row is fully masked and no NaN rule is needed for A.
A4  Values and f. v[l,h,j] is the value vector the pass used for query head h, bias b_V
    included when the checkpoint has one: post-LN (BERT, RoBERTa, DistilBERT) x_j W_V^h + b_V^h
    on the layer input x; pre-LN (GPT-2, Llama family) LN1(x_j) W_V^h + b_V^h (LayerNorm for
    GPT-2, RMSNorm for Llama). GQA/MQA: query head h uses key/value head h // (H / H_kv)
    (repeat_interleave). f^h(x_j) = v[l,h,j] W_O^h, where W_O^h is the head_dim-wide slice of the
    output projection that multiplies head h's context (columns of a Linear [out,in] weight, rows
    of GPT-2's Conv1D [in,out] weight). b_O is NOT part of f. RoPE never touches v.
A5  Norm-based (Kobayashi 2020, methods.md §4). transformed_norm[l,h,j] = ||f^h(x_j)||_2;
    norm_head[l,h,i,j] = A[l,h,i,j] * ||f^h(x_j)||_2 (= ||A f|| because A >= 0);
    norm_layer[l,i,j] = || sum over all H query heads of A[l,h,i,j] f^h(x_j) ||_2 (vector sum
    first, then the norm; not the sum of the heads' norms). No residual, no LayerNorm, no
    normalisation: rows do not sum to 1 (row-normalising is a display option only).
A6  Rollout (Abnar & Zuidema 2020, §5.1). Abar_l = mean of A[l] over the H query heads;
    At_l = (Abar_l + I) / rowsum(Abar_l + I), dividing by the actual row sum (>= 1, never 0);
    R_0 = At_0, R_l = At_l @ R_{l-1} (later layer on the LEFT). rollout[l] = R_l for every l.
    Rows sum to 1; for causal models R_l is lower triangular.
A7  Flow (§5.2, Abnar's get_adjmat / compute_flows). Nodes (k, p) for k = 0..L (k = 0: the
    input tokens) and positions p; an edge (k, p) -> (k-1, q) with capacity At_{k-1}[p, q] (the
    same At as A6) wherever that is > 0. flow_raw[l,i,j] = the max-flow value from node (l+1, i)
    to node (0, j), in float64; flow[l,i,j] = flow_raw[l,i,j] / sum_j flow_raw[l,i,j]. The sum is
    > 0 (the residual path i -> i -> ... -> i always has capacity). The max-flow value is
    unique, so any exact algorithm agrees up to rounding (Edmonds-Karp here, Dinic or
    push-relabel in the C++). Consequences used as checks: flow[0] = At_0; flow_raw[1,i,j] =
    sum_k min(At_1[i,k], At_0[k,j]) (the middle nodes give disjoint paths); flow_raw[l,i,j] <=
    min(1, sum_p At_0[p,j]).
A8  Flow length cap: n <= FLOW_MAX_TOKENS = 64, else an error naming n and the cap [spec
    choice, methods.md §5.2: flow solves L n^2 max-flow problems]. No other method has a cap.
A9  ALTI decomposition (Ferrando et al. 2022, §11.4, mt-upc/transformer-contributions
    src/contributions.py). Per layer, with x the layer's input (the residual stream entering
    it) and heads summed BEFORE any norm:
        M[i,j] = sum_h A[l,h,i,j] f^h(x_j) + delta_ij x_i      ([n, n, D], b_V inside f)
    Post-LN models: the attention sub-block output is y_i = LN1(z_i) = gamma * (z_i -
    mean(z_i)) / s_i + beta with z_i = x_i + attention output (b_O included) and s_i =
    sqrt(mean((z_i - mean z_i)^2) + eps), LN1's own biased variance and eps. Then
        T[i,j] = gamma * (M[i,j] - mean(M[i,j])) / s_i,
        b_i = gamma * (b_O - mean(b_O)) / s_i + beta.
    [spec choice: the authors' code divides by (z + eps).std(-1), the unbiased std with eps as a
    no-op shift, which is not LN's s and is why their check needs a 1e-3 tolerance; with LN's
    own s the decomposition reproduces LN1's output exactly.] Pre-LN models: T[i,j] = M[i,j]
    (f already contains LN1(x_j), a function of x_j alone, so nothing is linearised) and b_i =
    b_O (0 without an output bias); y_i = the residual after the attention sub-block (the
    input of LN2 / post_attention_layernorm). The FFN (and post-LN's LN2) is not decomposed:
    it acts on each token alone. The final norm (ln_f, norm) plays no part.
A10 Reconstruction check, at run time, every layer: yhat_i = sum_j T[i,j] + b_i must equal the
    pass's y_i: err_l = max over i, d of |yhat - y| <= tol * max(1, max |y|), tol = 1e-9 in
    float64 and 1e-5 in float32 (inseq's pre-LN assert allows an L2 distance of 1e-3 per
    element). A failure is an error naming the layer, token, element and error.
    alti_reconstruction_error[l] = err_l of the float64 pass.
A11 ALTI contributions (normalize_contributions 'min_sum' with the resultant's norm):
    c[i,j] = max(0, ||yhat_i||_1 - ||yhat_i - T[i,j]||_1) (L1 norms, no pairwise_distance eps);
    C_l[i,j] = c[i,j] / sum_j c[i,j]; a row whose c are all 0 becomes the one-hot row e_i
    [spec choice: the authors' 0/0 gives NaN; e_i keeps the row stochastic, like rollout's
    zero-row rule]. Masked keys have T = 0, hence c = 0 exactly. alti_layer[l] = C_l;
    alti[l] = R_l with R_0 = C_0, R_l = C_l @ R_{l-1} (no extra identity: the residual is in C).
A12 Value zeroing (Mohebbi et al. 2023, inseq value_zeroing.py@a269ee8f). For layer l and key
    j, layer l's block is rerun on its CLEAN input (the clean pass's input to layer l) with the
    whole value row of j zeroed in every head (all key/value heads, bias included); the
    attention probabilities are unchanged (not renormalised). h = the clean block output,
    h~ = the zeroed one, both the layer's output: post-LN after LN2, pre-LN the residual after
    the FFN; for the LAST layer both are the model's last hidden state instead, as inseq reads
    them (value_zeroing.py@a269ee8f, compute_modules_post_zeroing_similarity: "Skip last block
    since its states are not used raw, but may have further transformations applied to them
    (e.g. LayerNorm, Dropout)"; the clean and the zeroed last state both come from the model's
    hidden_states[-1]). For pre-LN models that is the output after the final norm (GPT-2's
    ln_f, the Llama family's norm); post-LN models (BERT family) have no final norm, so their
    last hidden state is the last layer's output and nothing changes.
    value_zeroing_raw[l,i,j] = 1 - cos(h_i, h~_i), computed in the stable form
    0.5 * || a/||a|| - b/||b|| ||^2 (each norm clamped at 1e-8), and 1 when either vector
    is 0 (torch's CosineSimilarity then gives cos 0) [spec choice: in exact arithmetic the same
    number as inseq's 1 - a.b / max(||a|| ||b||, 1e-8), but 1 - cos cancels in float32 (error
    ~1e-7 absolute, ~1e-5 after A13's row normalisation) and the stable form does not].
A13 Value zeroing post-processing, in this order: cells the mask forbids (A3) are set to 0
    (inseq writes NaN above the diagonal; the score is 0 there anyway since v_j reaches no such
    query); every score < 1e-5 becomes 0 (this also removes rounding noise and tiny negatives);
    each row is divided by its sum, and a row summing to 0 stays all zero (inseq divides by 1).
    Rows sum to 1 or 0. value_zeroing[l] is layer l's own map (no aggregation across layers).
A14 Ties and non-finite values. No method takes an argmax, so ties do not arise. For finite
    weights no output is NaN (A6, A7, A11, A13 say why); a non-finite activation is an error.
A15 GQA/MQA summary: norm-based and ALTI use v of key/value head h // (H/H_kv) with W_O^h of
    query head h; rollout and flow average A over the H query heads; value zeroing zeroes j in
    every key/value head.

Output (--out FILE.safetensors; all F64 except input_ids):
    input_ids I64 [n]; attention [L,H,n,n] (A of the float64 pass), and per method
    norm:           norm_head [L,H,n,n], norm_layer [L,n,n], transformed_norm [L,H,n]
    rollout:        rollout [L,n,n]
    flow:           flow [L,n,n], flow_raw [L,n,n]
    alti:           alti [L,n,n], alti_layer [L,n,n], alti_reconstruction_error [L]
    value-zeroing:  value_zeroing [L,n,n], value_zeroing_raw [L,n,n]
Metadata: model, model_type, ids, methods, layer_norm (post-LN / pre-LN), compute_dtype,
max_abs_diff_float32_<output> for every map, and (value zeroing) value_zeroing_near_threshold:
how many allowed raw scores lie within 1e-7 of A13's 1e-5 threshold, where a float32
implementation may legitimately round to the other side.

CLI:
  attribution_reference.py --model DIR --ids 101,2023,... --method all|norm|rollout|flow|alti|
      value-zeroing[,...] --out FILE.safetensors
"""

import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference  # noqa: E402
import reference_main  # noqa: E402
import st_io  # noqa: E402
import torch_reference  # noqa: E402

METHODS = ("norm", "rollout", "flow", "alti", "value-zeroing")
POST_LN = ("bert", "roberta", "distilbert")
FLOW_MAX_TOKENS = 64
ALTI_TOL = {torch.float64: 1e-9, torch.float32: 1e-5}
VZ_THRESHOLD = 1e-5
COS_EPS = 1e-8


class AttributionError(ValueError):
    """A rule of the contract refused the input (cap, reconstruction check, non-finite value)."""


# ---- the passes ----

class Recorder:
    """The interventions and observe callables of torch_reference.forward. Records probs
    [H,n,n] and v [H,n,d] per layer and the observed stages; zero=(layer, key) zeroes that
    key's value row in every head of that layer; stop_after=layer ends the pass (StopPass) once
    that layer's output exists, since value zeroing needs nothing later."""

    class StopPass(Exception):
        pass

    def __init__(self, zero=None, stop_after=None):
        self.zero, self.stop_after = zero, stop_after
        self.probs, self.values, self.stages = {}, {}, {}
        self.final = None  # the model's last hidden state (after any final norm), if reached

    def __call__(self, layer, probs, v):
        self.probs[layer], self.values[layer] = probs, v
        if self.zero is not None and self.zero[0] == layer:
            v = v.clone()
            v[:, self.zero[1], :] = 0.0
        return probs, probs @ v

    def observe(self, layer, stage, tensor):
        self.stages[(layer, stage)] = tensor
        if stage == "block_out" and layer == self.stop_after:
            raise Recorder.StopPass()


def run_pass(model, ids, dtype, recorder):
    try:
        recorder.final = torch_reference.forward(model.folder, ids, dtype, model.tensors, recorder,
                                                 observe=recorder.observe)[2]
    except Recorder.StopPass:
        pass
    return recorder


class Model:
    """A checkpoint folder: config, tensors, and each layer's W_O slices, b_O and LN1."""

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            self.cfg = json.load(f)
        self.type = self.cfg["model_type"]
        if self.type not in torch_reference.ARCHS:
            raise AttributionError(f"{folder}: model_type '{self.type}' is not supported")
        self.tensors = st_io.load_checkpoint(folder)
        self.post_ln = self.type in POST_LN

    def weights(self, dtype):
        _, probe, prefixes = torch_reference.ARCHS[self.type]
        widened = {k: t.float() if t.is_floating_point() else t for k, t in self.tensors.items()}
        return torch_reference.Weights(widened, dtype,
                                       torch_reference.detect_prefix(self.tensors, probe, prefixes))

    def allowed(self, n):
        """[n,n] bool: the cells the attention mask allows (A3)."""
        if self.post_ln:
            return torch.ones(n, n, dtype=torch.bool)
        if self.type == "gpt2":
            return torch.ones(n, n, dtype=torch.bool).tril()
        return llama_reference.sliding_causal_mask(n, llama_reference.window_of(self.cfg))

    def output_projection(self, w, layer, heads):
        """(W_O^h [H, d, D] with f = v @ W_O^h, b_O [D] or None) of one layer (A4)."""
        if self.type == "gpt2":
            name = f"h.{layer}.attn.c_proj"
            weight = w(name + ".weight")  # Conv1D [in, out]
        else:
            if self.type in ("bert", "roberta"):
                name = f"encoder.layer.{layer}.{torch_reference.BERT_LAYER['o']}"
            elif self.type == "distilbert":
                name = f"transformer.layer.{layer}.{torch_reference.DISTILBERT_LAYER['o']}"
            else:
                name = f"layers.{layer}.self_attn.o_proj"
            weight = w(name + ".weight").t()  # Linear [out, in] -> [in, out]
        d = weight.shape[0] // heads
        bias = w(name + ".bias") if w.prefix + name + ".bias" in w.tensors else None
        return weight.reshape(heads, d, weight.shape[1]), bias

    def layer_norm1(self, w, layer):
        """(gamma, beta, eps) of a post-LN layer's LN1."""
        if self.type == "distilbert":
            # HF hard-codes DistilBERT's LayerNorm eps (torch_reference.distilbert).
            name = f"transformer.layer.{layer}.{torch_reference.DISTILBERT_LAYER['ln1']}"
            eps = 1e-12
        else:
            name = f"encoder.layer.{layer}.{torch_reference.BERT_LAYER['ln1']}"
            eps = self.cfg["layer_norm_eps"]
        return w(name + ".weight"), w(name + ".bias"), eps


class Layers:
    """One clean pass in one dtype: per layer A [H,n,n], v [H,n,d], f [H,n,D] and the stages."""

    def __init__(self, model, ids, dtype):
        self.model, self.ids, self.dtype = model, ids, dtype
        rec = run_pass(model, ids, dtype, Recorder())
        self.count = len(rec.probs)
        self.probs = torch.stack([rec.probs[layer] for layer in range(self.count)])
        self.values = [rec.values[layer] for layer in range(self.count)]
        self.stages = rec.stages
        self.final = rec.final
        w = model.weights(dtype)
        heads = self.probs.shape[1]
        self.proj = [model.output_projection(w, layer, heads) for layer in range(self.count)]
        self.ln1 = ([model.layer_norm1(w, layer) for layer in range(self.count)]
                    if model.post_ln else None)
        # f^h(x_j) = v^h_j W_O^h, b_O excluded (A4).
        self.f = [torch.einsum("hjd,hde->hje", v, wo) for v, (wo, _) in zip(self.values, self.proj)]
        for stage, t in self.stages.items():
            if not torch.isfinite(t).all():
                raise AttributionError(f"{model.folder}: layer {stage[0]} {stage[1]} is not finite")


# ---- A5 norm-based ----

def norm_based(layers):
    transformed = torch.stack([f.norm(dim=-1) for f in layers.f])  # [L,H,n]
    head = layers.probs * transformed[:, :, None, :]
    summed = torch.stack([torch.einsum("hij,hje->ije", a, f).norm(dim=-1)
                          for a, f in zip(layers.probs, layers.f)])
    return {"norm_head": head, "norm_layer": summed, "transformed_norm": transformed}


# ---- A6 rollout, A7-A8 flow ----

def augmented(probs):
    """At_l of A6 from A [L,H,n,n]: head mean, + I, divided by the actual row sum."""
    mean = probs.mean(dim=1)
    aug = mean + torch.eye(mean.shape[-1], dtype=mean.dtype)
    return aug / aug.sum(dim=-1, keepdim=True)


def chain(mats):
    """R_0 = M_0, R_l = M_l @ R_{l-1} for [L,n,n] (later layer on the left)."""
    out = [mats[0]]
    for m in mats[1:]:
        out.append(m @ out[-1])
    return torch.stack(out)


def rollout(probs):
    return {"rollout": chain(augmented(probs))}


def max_flow(cap, source, sink):
    """Edmonds-Karp on a dense float64 capacity matrix: the max-flow value source -> sink."""
    res = np.array(cap, dtype=np.float64)
    count, total = res.shape[0], 0.0
    while True:
        parent = np.full(count, -1)
        parent[source] = source
        queue = [source]
        for node in queue:
            nxt = np.flatnonzero((res[node] > 0) & (parent < 0))
            parent[nxt] = node
            queue.extend(nxt.tolist())
            if parent[sink] >= 0:
                break
        if parent[sink] < 0:
            return total
        path, node = [], sink
        while node != source:
            path.append((parent[node], node))
            node = parent[node]
        push = min(res[a, b] for a, b in path)
        for a, b in path:
            res[a, b] -= push
            res[b, a] += push
        total += push


def flow_graph(aug, top):
    """Dense capacities of the layers 0..top of A7's graph; node (k, p) is k * n + p."""
    n = aug.shape[-1]
    cap = np.zeros(((top + 1) * n, (top + 1) * n))
    for k in range(1, top + 1):
        cap[k * n:(k + 1) * n, (k - 1) * n:k * n] = aug[k - 1]
    return cap


def flow_raw(aug):
    """[L,n,n] float64 max-flow values of A7 from At [L,n,n]."""
    aug = np.asarray(aug, dtype=np.float64)
    count, n = aug.shape[0], aug.shape[-1]
    if n > FLOW_MAX_TOKENS:
        raise AttributionError(f"attention flow is capped at n <= {FLOW_MAX_TOKENS} tokens "
                               f"(A8); this input has n = {n}")
    out = np.zeros((count, n, n))
    for layer in range(count):
        cap = flow_graph(aug, layer + 1)
        for i in range(n):
            for j in range(n):
                out[layer, i, j] = max_flow(cap, (layer + 1) * n + i, j)
    return out


def flow(probs):
    raw = torch.from_numpy(flow_raw(augmented(probs).double().numpy()))
    return {"flow": raw / raw.sum(dim=-1, keepdim=True), "flow_raw": raw}


# ---- A9-A11 ALTI ----

def alti_terms(layers, layer):
    """(T [n,n,D], b [n,D], y [n,D]) of A9 for one layer."""
    x = layers.stages[(layer, "block_in")]
    a, f = layers.probs[layer], layers.f[layer]
    n = x.shape[0]
    mix = torch.einsum("hij,hje->ije", a, f)
    mix = mix + torch.eye(n, dtype=x.dtype)[:, :, None] * x[:, None, :]
    _, b_o = layers.proj[layer]
    b_o = torch.zeros_like(x[0]) if b_o is None else b_o
    y = layers.stages[(layer, "attn_out")]
    if layers.ln1 is None:
        return mix, b_o.expand(n, -1), y
    gamma, beta, eps = layers.ln1[layer]
    z = layers.stages[(layer, "attn_pre_norm")]
    s = torch.sqrt(z.var(dim=-1, unbiased=False) + eps)  # LN1's own scale (A9)
    terms = gamma * (mix - mix.mean(dim=-1, keepdim=True)) / s[:, None, None]
    bias = (gamma * (b_o - b_o.mean()))[None, :] / s[:, None] + beta
    return terms, bias, y


def check_reconstruction(layers, layer, yhat, y):
    """A10; returns the layer's worst absolute error."""
    err = (yhat - y).abs()
    worst = err.max().item()
    tol = ALTI_TOL[layers.dtype] * max(1.0, y.abs().max().item())
    if not worst <= tol:
        i, d = divmod(int(err.argmax()), err.shape[1])
        raise AttributionError(
            f"{layers.model.folder}: ALTI reconstruction of layer {layer} fails at token {i}, "
            f"element {d}: |error| {worst:.3e} > {tol:.3e} ({layers.dtype})")
    return worst


def contributions(terms, yhat):
    """C_l of A11 from T [n,n,D] and yhat [n,D]."""
    whole = yhat.abs().sum(dim=-1)
    c = (whole[:, None] - (yhat[:, None, :] - terms).abs().sum(dim=-1)).clamp(min=0)
    total = c.sum(dim=-1, keepdim=True)
    eye = torch.eye(c.shape[0], dtype=c.dtype)
    return torch.where(total > 0, c / torch.where(total > 0, total, torch.ones_like(total)), eye)


def alti(layers):
    mats, errors = [], []
    for layer in range(layers.count):
        terms, bias, y = alti_terms(layers, layer)
        yhat = terms.sum(dim=1) + bias
        errors.append(check_reconstruction(layers, layer, yhat, y))
        mats.append(contributions(terms, yhat))
    mats = torch.stack(mats)
    return {"alti": chain(mats), "alti_layer": mats,
            "alti_reconstruction_error": torch.tensor(errors, dtype=torch.float64)}


# ---- A12-A13 value zeroing ----

def cosine_distance(a, b):
    """1 - cos(a_i, b_i) per row in A12's stable form: half the squared distance of the unit
    vectors (1 where either vector is 0)."""
    na, nb = a.norm(dim=-1, keepdim=True), b.norm(dim=-1, keepdim=True)
    half = 0.5 * (a / na.clamp(min=COS_EPS) - b / nb.clamp(min=COS_EPS)).pow(2).sum(dim=-1)
    degenerate = (na.squeeze(-1) == 0) | (nb.squeeze(-1) == 0)
    return torch.where(degenerate, torch.ones_like(half), half)


def compared_state(rec, layer, count):
    """The state A12 compares for `layer` of a pass recorded by `rec`: the layer's output, or
    for the last layer the model's last hidden state (after any final norm)."""
    return rec.final if layer == count - 1 else rec.stages[(layer, "block_out")]


def value_zeroing_raw(layers):
    """[L,n,n] 1 - cos of A12: one pass per (layer, key), stopped after that layer (the last
    layer's passes run to the end, for the final norm)."""
    n = len(layers.ids)
    raw = torch.zeros(layers.count, n, n, dtype=layers.dtype)
    for layer in range(layers.count):
        clean = compared_state(layers, layer, layers.count)
        last = layer == layers.count - 1
        for j in range(n):
            rec = run_pass(layers.model, layers.ids, layers.dtype,
                           Recorder(zero=(layer, j), stop_after=None if last else layer))
            raw[layer, :, j] = cosine_distance(clean, compared_state(rec, layer, layers.count))
    return raw


def value_zeroing_post(raw, allowed):
    """A13: mask, threshold, row-normalise (a zero row stays zero)."""
    scores = torch.where(allowed, raw, torch.zeros_like(raw))
    scores = torch.where(scores < VZ_THRESHOLD, torch.zeros_like(scores), scores)
    total = scores.sum(dim=-1, keepdim=True)
    return scores / torch.where(total == 0, torch.ones_like(total), total)


def value_zeroing(layers):
    raw = value_zeroing_raw(layers)
    return {"value_zeroing": value_zeroing_post(raw, layers.model.allowed(len(layers.ids))),
            "value_zeroing_raw": raw}


# ---- driver ----

def compute(model, ids, methods, dtype):
    """{output name: tensor} of the chosen methods from one pass in one dtype."""
    layers = Layers(model, ids, dtype)
    out = {"attention": layers.probs}
    with torch.no_grad():
        if "norm" in methods:
            out.update(norm_based(layers))
        if "rollout" in methods:
            out.update(rollout(layers.probs))
        if "flow" in methods:
            out.update(flow(layers.probs))
        if "alti" in methods:
            out.update(alti(layers))
        if "value-zeroing" in methods:
            out.update(value_zeroing(layers))
    return out


def norm_scales(exact):
    """{norm output: max(1, ||f||) broadcastable to it}, A2's scale of the norm-based bound."""
    norms = exact["transformed_norm"].clamp(min=1.0)  # [L,H,n]
    return {"transformed_norm": norms, "norm_head": norms[:, :, None, :],
            "norm_layer": norms.max(dim=1).values[:, None, :]}


def scaled_gaps(exact, single):
    """{norm output: max |float32 - float64| / A2's scale} (empty without the norm method)."""
    if "transformed_norm" not in exact:
        return {}
    return {k: ((single[k].double() - exact[k]).abs() / scale).max().item()
            for k, scale in norm_scales(exact).items()}


def attribution(model, ids, methods):
    """(float64 outputs, {name: max |float32 - float64|}, {norm output: scaled gap (A2)})."""
    if len(ids) > FLOW_MAX_TOKENS and "flow" in methods:
        raise AttributionError(f"attention flow is capped at n <= {FLOW_MAX_TOKENS} tokens "
                               f"(A8); this input has n = {len(ids)}")
    exact = compute(model, ids, methods, torch.float64)
    single = compute(model, ids, methods, torch.float32)
    gaps = {k: (single[k].double() - exact[k]).abs().max().item() for k in exact}
    return exact, gaps, scaled_gaps(exact, single)


def parse_methods(text):
    names = [m.strip() for m in text.split(",") if m.strip()]
    if names == ["all"]:
        return list(METHODS)
    bad = [m for m in names if m not in METHODS]
    if bad or not names:
        raise AttributionError(f"--method: '{text}' is not 'all' or a comma-separated list of "
                               f"{', '.join(METHODS)}")
    return names


def parse_ids(text, vocab):
    try:
        ids = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise AttributionError(f"--ids: '{text}' is not a comma-separated list of ids") from None
    if not ids:
        raise AttributionError("--ids: no ids")
    for t in ids:
        if not 0 <= t < vocab:
            raise AttributionError(f"--ids: id {t} is outside the vocabulary 0..{vocab - 1}")
    return ids


def write_reference(args):
    model = Model(args.model)
    ids = parse_ids(args.ids, model.cfg["vocab_size"])
    methods = parse_methods(args.method)
    exact, gaps, scaled = attribution(model, ids, methods)
    out = {"input_ids": torch.tensor(ids, dtype=torch.int64)}
    out.update({k: v.double().contiguous() for k, v in exact.items()})
    meta = {"model": os.path.abspath(args.model), "model_type": model.type,
            "ids": ",".join(map(str, ids)), "methods": ",".join(methods),
            "layer_norm": "post-LN" if model.post_ln else "pre-LN", "compute_dtype": "float64"}
    meta.update({f"max_abs_diff_float32_{k}": f"{g:.3e}" for k, g in gaps.items()})
    meta.update({f"max_scaled_diff_float32_{k}": f"{g:.3e}" for k, g in scaled.items()})
    if "value_zeroing_raw" in exact:
        near = (exact["value_zeroing_raw"] - VZ_THRESHOLD).abs() <= 1e-7
        meta["value_zeroing_near_threshold"] = str(int((near & model.allowed(len(ids))).sum()))
    st_io.save_file(out, args.out, metadata=meta)
    worst = max(g for k, g in gaps.items() if k not in scaled)
    print(f"{args.out}: {', '.join(methods)}, n={len(ids)}, worst float32 gap {worst:.2e}" +
          (f", norm-based {max(scaled.values()):.2e} x max(1, ||f||)" if scaled else ""))


def main():
    parser = reference_main.parser(__doc__)
    parser.add_argument("--ids", required=True, help="comma-separated token ids")
    parser.add_argument("--method", default="all",
                        help="all, or a comma-separated list of " + ", ".join(METHODS))
    parser.add_argument("--out", required=True, help="output .safetensors")
    args = parser.parse_args()
    reference_main.write_or_exit(write_reference, args, "attribution_reference.py", "the input")


if __name__ == "__main__":
    main()
