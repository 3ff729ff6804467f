#!/usr/bin/python3
"""Self-test of weights_reference.py (weight-space circuit scores, methods.md §11.2 / §12.4) on
synthetic heads and the fixture checkpoints.

Usage: weights_selftest.py CHECKPOINTS_DIR      (the folder holding manifest.json)

Synthetic (no checkpoint needed):
  copying: W_OV = c I with W_U = W_Eᵀ (no centring) gives +1, -c I gives -1, an orthogonal
  projector gives +1, a plane rotation by θ gives cos θ; on a tiny vocabulary the d_model x
  d_model route equals the eigenvalues of the whole vocab x vocab W_E W_OV W_U; pos_prev with
  W_QK = 0 is the uniform causal row's mean of 1/(i+1).
Per case of weights_reference.CASES (float64):
  (1) factored singular values equal the full d_model x d_model SVD's; composition through the
      collapsed factors equals TL's formula on the full matrices; composition is 0 unless
      layer(h2) > layer(h1) and positive there; copying on d_model x d_model equals copying on
      the d_head x d_head W_O W_U W_E W_V (and, for gpt2_f32 and qwen3_gqa_qknorm_f32, on the
      full vocab x vocab matrix); GPT-2's pos_prev equals a plain loop on the full W_QK;
  (2) the processed weights reproduce the model's own forward (torch_reference.py's hooks) on
      the manifest's input: per-head values (differences between positions cancel the biases)
      from the normalised layer input through W_V^h; the attention sublayer's output through
      W_O^h (not Gemma 2: its post-norm); GPT-2 / BERT (no RoPE) the attention logits' double
      differences through W_QK^h; the final logits (centred over the vocabulary) through W_U
      (Gemma 2 after undoing its final soft-cap); GPT-2's first residual through W_E and W_pos;
      rotary models with RoPE made the identity (offset 0): the logits' double differences
      through W_QK^h (Qwen3 with its QK-norm off), and Qwen3 with its QK-norm on: the logits are
      the linearised W_QK^h's divided by rms(q_i) rms(k_j) (the one factor the fold drops);
  (3) misreadings move numbers by more than MOVES: no folding (qk_singular); Q- and
      K-composition swapped (comp_q against comp_k); methods.md §12.4's Q formula read in the
      row-vector convention, ‖W_QK^h2ᵀ W_OV^h1‖, against TL's ‖W_OV^h1 W_QK^h2‖; no centring on
      GPT-2 (ov_singular, copying, comp_v); QK-norm not folded (Qwen3); Gemma's 1 + w read as w;
  (4) the composition baseline: Monte Carlo over Gaussian factors of the case's shapes (fixed
      seed): mean of C² · d_model is 1 within 4 standard errors (the analytic 1/sqrt(d_model)
      written as "baseline" is the root-mean-square); the mean of C · sqrt(d_model) is printed;
  (5) a weights_circuits.safetensors already in the case folder matches a recomputation.
"""

import contextlib
import json
import math
import os
import sys
from types import SimpleNamespace

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decoder_parts  # noqa: E402
import llama_reference  # noqa: E402
import selftest_checks  # noqa: E402
import st_io  # noqa: E402
import torch_reference  # noqa: E402
import weights_layout as wl  # noqa: E402
import weights_reference as wr  # noqa: E402

MOVES = 1e-3
EXACT = 1e-9          # float64 identities (relative to the scale of the compared numbers)
FORWARD = 1e-8        # processed weights against the float64 forward, relative
MC_SAMPLES = 4000
MC_SEED = 1234
INPUT = 1
FULL_VOCAB_CASES = ("gpt2_f32", "qwen3_gqa_qknorm_f32")


def fake_heads(W_V, W_O, W_E, W_U):
    """A one-layer, one-head stand-in for weights_reference.copying."""
    dm, dh = W_V.shape
    return SimpleNamespace(W_Q=torch.zeros(1, 1, dm, dh, dtype=W_V.dtype), W_V=W_V[None, None],
                           W_O=W_O[None, None], W_E=W_E, W_U=W_U)


def check_synthetic(check):
    """Copying of ±c I and of a projector with W_U = W_Eᵀ; d x d against vocab x vocab; pos_prev
    of a zero W_QK."""
    g = torch.Generator().manual_seed(7)
    vocab, dm, dh = 23, 7, 3
    W_E = torch.randn(vocab, dm, generator=g, dtype=torch.float64)
    eye = torch.eye(dm, dtype=torch.float64)
    for c, want in ((2.5, 1.0), (-0.7, -1.0)):
        got = wr.copying(fake_heads(c * eye, eye, W_E, W_E.T)).item()
        check(f"copying of W_OV = {c} I with W_U = W_Eᵀ is {want:+.0f}", abs(got - want) <= EXACT,
              f"{got:+.12f}")
    P = torch.linalg.qr(torch.randn(dm, dh, generator=g, dtype=torch.float64))[0]
    got = wr.copying(fake_heads(P, P.T, W_E, W_E.T)).item()
    check("copying of a rank-3 orthogonal projector is +1", abs(got - 1) <= EXACT, f"{got:+.12f}")
    theta = 2.0                      # a rotation: eigenvalues e^{±iθ}, ratio cos θ (< 0 here)
    rot = torch.tensor([[math.cos(theta), math.sin(theta)], [-math.sin(theta), math.cos(theta)]],
                       dtype=torch.float64)
    eye2 = torch.eye(2, dtype=torch.float64)
    got = wr.copying(fake_heads(rot, eye2, eye2, eye2)).item()
    check("copying of a rotation by θ is cos θ (complex eigenvalues)",
          abs(got - math.cos(theta)) <= EXACT, f"{got:+.12f} vs {math.cos(theta):+.12f}")
    W_V, W_O, W_U = (torch.randn(*s, generator=g, dtype=torch.float64)
                     for s in ((dm, dh), (dh, dm), (dm, vocab)))
    small = wr.copying(fake_heads(W_V, W_O, W_E, W_U)).item()
    full = wr.copying_ratio(W_E @ W_V @ W_O @ W_U).item()
    check("copying on d_model x d_model equals the vocab x vocab eigenvalues (tiny case)",
          abs(small - full) <= EXACT, f"{small:+.12f} vs {full:+.12f}")
    n = 9
    zero = SimpleNamespace(model_type="gpt2", eps=1e-5,
                           W_Q=torch.zeros(2, 2, dm, dh, dtype=torch.float64),
                           W_K=torch.zeros(2, 2, dm, dh, dtype=torch.float64))
    got = wr.pos_prev(zero, torch.randn(n, dm, generator=g, dtype=torch.float64))
    want = sum(1.0 / (i + 1) for i in range(1, n)) / (n - 1)
    check("pos_prev of W_QK = 0 is the mean of 1/(i+1)", (got - want).abs().max() <= EXACT,
          f"{got[0, 0]:.12f} vs {want:.12f}")


def full_qk(h):
    return h.W_Q @ h.W_K.transpose(-1, -2)


def full_ov(h):
    return h.W_V @ h.W_O


def tl_composition_full(h, mode):
    """TL's composition_scores on the full d_model x d_model matrices (AB @ AB), masked."""
    L, H = h.W_Q.shape[:2]
    left = wr.flat(full_ov(h))
    right = wr.flat({"q": full_qk(h), "k": full_qk(h).transpose(-1, -2), "v": full_ov(h)}[mode])
    prod = torch.einsum("aij,bjk->abik", left, right).flatten(2).norm(dim=-1)
    den = left.flatten(1).norm(dim=-1)[:, None] * right.flatten(1).norm(dim=-1)[None, :]
    return prod / den * wr.later_mask(L, H, prod.dtype)


def check_identities(check, case, h, s):
    """(1): factored against full, the composition mask, copying's three routes."""
    for key, full in (("qk_singular", full_qk(h)), ("ov_singular", full_ov(h))):
        sv = torch.linalg.svdvals(full)[..., :s[key].shape[-1]]
        gap = ((sv - s[key]).abs() / sv[..., :1]).max().item()
        check(f"{key}: factored equals the full SVD", gap <= EXACT, f"relative gap {gap:.1e}")
    L, H = h.W_Q.shape[:2]
    later = wr.later_mask(L, H, torch.float64).bool()
    for mode in "qkv":
        comp = s["comp_" + mode]
        gap = (comp - tl_composition_full(h, mode)).abs().max().item()
        check(f"comp_{mode}: collapsed factors equal TL's formula on full matrices",
              gap <= EXACT, f"max gap {gap:.1e}")
        check(f"comp_{mode}: 0 unless layer(h2) > layer(h1), positive there",
              bool((comp[~later] == 0).all() and (comp[later] > 0).all()),
              f"{int(later.sum())} later pairs")
    if h.W_U is None:
        check("copying is NaN without a linear unembedding", bool(torch.isnan(s["copying"]).all()))
        return
    small = wr.copying_ratio(h.W_O @ (h.W_U @ h.W_E) @ h.W_V)
    gap = (small - s["copying"]).abs().max().item()
    check("copying on d_model x d_model equals d_head x d_head", gap <= 1e-8, f"max gap {gap:.1e}")
    if case in FULL_VOCAB_CASES:
        full = wr.copying_ratio(h.W_E @ full_ov(h) @ h.W_U)
        gap = (full - s["copying"]).abs().max().item()
        check(f"copying equals the full vocab x vocab eigenvalues ({h.W_E.shape[0]}^2)",
              gap <= 1e-8, f"max gap {gap:.1e}")


def check_pos_prev_loop(check, h, raw_pos, s):
    """GPT-2: pos_prev against a plain loop over queries on the full W_QK (query row i on the
    left: P[i, j] = n_i W_QK n_jᵀ)."""
    n = min(raw_pos.shape[0], wr.POS_CTX)
    x = raw_pos[:n] - raw_pos[:n].mean(-1, keepdim=True)
    x = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + h.eps)
    qk = full_qk(h)
    L, H = qk.shape[:2]
    want = torch.zeros(L, H, dtype=torch.float64)
    for l in range(L):
        for head in range(H):
            total = 0.0
            for i in range(1, n):
                row = torch.stack([x[i] @ qk[l, head] @ x[j] for j in range(i + 1)])
                total += torch.softmax(row / math.sqrt(h.W_Q.shape[-1]), 0)[i - 1].item()
            want[l, head] = total / (n - 1)
    gap = (want - s["pos_prev"]).abs().max().item()
    check("pos_prev equals a plain loop over queries on the full W_QK", gap <= EXACT,
          f"max gap {gap:.1e}, values {s['pos_prev'].flatten().tolist()}")


class Capture:
    """torch_reference's float64 forward on ids, recording per-head values and contexts, the
    residual stages, the returned logits and the LM logits; extra: the decoder knobs."""

    def __init__(self, folder, tensors, ids, extra=None):
        self.v, self.z, self.stage = {}, {}, {}
        self.probs, self.logits, _, _, self.lm = torch_reference.forward(
            folder, ids, torch.float64, tensors, interventions=self._heads, observe=self._observe,
            extra=extra)

    def _heads(self, layer, probs, v):
        self.v[layer], self.z[layer] = v, probs @ v
        return probs, self.z[layer]

    def _observe(self, layer, stage, x):
        self.stage[(layer, stage)] = x


def normalised(raw, x):
    """x without its norm's weight and bias: LayerNorm or RMSNorm with the model's eps."""
    if raw.norm == "ln":
        return wr.layer_norm_rows(x, raw.eps)
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + raw.eps)


def layer_input(raw, tensors, cap, layer):
    """[n, d_model]: the normalised input layer's attention reads (BERT: the preceding
    LayerNorm's output with its bias removed and its weight divided out)."""
    x = cap.stage[(layer, "block_in")]
    if raw.model_type != "bert":
        return normalised(raw, x)
    name = wl._in_norm_name("bert", wl.ARCH["bert"], layer)
    prefix = wl._prefix(tensors, wl.ARCH["bert"])
    bias = tensors[prefix + name + ".bias"].float().double()
    return (x - bias) / raw.norm_in[layer]


def rel(a, b):
    return ((a - b).abs().max() / b.abs().max().clamp_min(1e-300)).item()


def diff0(t, dim=-2):
    """t minus its first position along `dim` (cancels every bias)."""
    return t - t.narrow(dim, 0, 1)


def check_forward_heads(check, raw, h, tensors, cap):
    """(2): values through W_V, outputs through W_O, and (no RoPE) logits through W_QK."""
    L = h.W_Q.shape[0]
    gaps = {"W_V": 0.0, "W_O": 0.0, "W_QK": 0.0}
    ln = raw.norm == "ln"
    for layer in range(L):
        xd = diff0(layer_input(raw, tensors, cap, layer))
        gaps["W_V"] = max(gaps["W_V"], rel(xd @ h.W_V[layer], diff0(cap.v[layer])))
        if raw.model_type in ("gpt2", "bert"):
            double = diff0(diff0(cap.logits[layer], -1), -2)
            mine = (xd @ h.W_Q[layer]) @ (xd @ h.W_K[layer]).transpose(-1, -2)
            gaps["W_QK"] = max(gaps["W_QK"], rel(mine / math.sqrt(h.W_Q.shape[-1]), double))
        if raw.model_type == "gemma2":
            continue
        after = "attn_pre_norm" if raw.model_type == "bert" else "attn_out"
        delta = diff0(cap.stage[(layer, after)] - cap.stage[(layer, "block_in")])
        mine = torch.einsum("hnd,hde->ne", diff0(cap.z[layer]), h.W_O[layer])
        if ln:                                       # W_O is centred over d_model
            delta = delta - delta.mean(-1, keepdim=True)
        gaps["W_O"] = max(gaps["W_O"], rel(mine, delta))
    for key, gap in gaps.items():
        if key == "W_QK" and raw.model_type not in ("gpt2", "bert"):
            continue
        if key == "W_O" and raw.model_type == "gemma2":
            continue
        check(f"forward: the per-head {key} reproduces the model's own pass", gap <= FORWARD,
              f"relative gap {gap:.1e}")


@contextlib.contextmanager
def rope_off():
    """The forwards with RoPE made the identity (llama_reference.apply_rope, which
    decoder_parts imports by name): their logits are then the unrotated (offset 0) ones."""
    saved = [(m, m.apply_rope) for m in (llama_reference, decoder_parts)]
    try:
        for m, _ in saved:
            m.apply_rope = lambda x, cos, sin, d_rot: x
        yield
    finally:
        for m, f in saved:
            m.apply_rope = f


def unrotated_pass(folder, tensors, ids, mt, qk_norm):
    """(Capture, factor): a rotary model's forward without RoPE; its logits times factor are
    q·k (knobs scale 1 and no soft-cap where the forward has them, else times sqrt(d_head))."""
    with rope_off():
        if mt in torch_reference.RAW_LOGITS_ARCHS:
            extra = dict(scale=1.0, softcap=None, qk_norm=qk_norm)
            return Capture(folder, tensors, ids, extra), 1.0
        return Capture(folder, tensors, ids), None


def check_forward_rotary(check, folder, tensors, ids, raw):
    """(2) for rotary models: with RoPE off, the logits' double differences through W_QK
    (Qwen3 with its QK-norm off, against W_QK without the q_norm/k_norm fold); Qwen3 with its
    QK-norm on: the logits are the linearised W_QK's divided by rms(q_i) rms(k_j), exactly."""
    h = wl.process(raw, qk_fold=False)
    cap, factor = unrotated_pass(folder, tensors, ids, raw.model_type, "off")
    factor = factor or math.sqrt(h.W_Q.shape[-1])
    gap = 0.0
    for layer in range(h.W_Q.shape[0]):
        xd = diff0(layer_input(raw, tensors, cap, layer))
        mine = (xd @ h.W_Q[layer]) @ (xd @ h.W_K[layer]).transpose(-1, -2)
        gap = max(gap, rel(mine, diff0(diff0(cap.logits[layer] * factor, -1), -2)))
    check("forward (RoPE off): the per-head W_QK reproduces the logits' double differences",
          gap <= FORWARD, f"relative gap {gap:.1e}")
    if raw.q_norm is None:
        return
    folded = wl.process(raw)
    cap, _ = unrotated_pass(folder, tensors, ids, raw.model_type, "model")
    gap = 0.0
    for layer in range(h.W_Q.shape[0]):
        x = layer_input(raw, tensors, cap, layer)
        q, k = x @ h.W_Q[layer], x @ h.W_K[layer]            # before the QK-norm
        rq, rk = (torch.sqrt(t.pow(2).mean(-1, keepdim=True) + raw.eps) for t in (q, k))
        lin = (x @ folded.W_Q[layer]) @ (x @ folded.W_K[layer]).transpose(-1, -2)
        gap = max(gap, rel(lin / (rq * rk.transpose(-1, -2)), cap.logits[layer]))
    check("forward (RoPE off, QK-norm on): logits = linearised W_QK / (rms(q) rms(k))",
          gap <= FORWARD, f"relative gap {gap:.1e}")


def check_forward_embeddings(check, raw, h, cap, ids, cfg):
    """(2): the final logits through W_U; GPT-2's first residual through W_E and W_pos."""
    if h.W_U is not None:
        lm = cap.lm
        cap_value = cfg.get("final_logit_softcapping")
        if cap_value:
            lm = cap_value * torch.atanh(lm / cap_value)
        last = cap.stage[(h.W_Q.shape[0] - 1, "block_out")]
        mine = diff0(normalised(raw, last)) @ h.W_U
        want = diff0(lm - lm.mean(-1, keepdim=True))
        gap = rel(mine, want)
        check("forward: W_U reproduces the final logits (centred over the vocabulary)",
              gap <= FORWARD, f"relative gap {gap:.1e}")
    if raw.model_type == "gpt2":
        x0 = cap.stage[(0, "block_in")]
        mine = h.W_E[ids] + (raw.W_pos - raw.W_pos.mean(-1, keepdim=True))[:len(ids)]
        gap = rel(mine, x0 - x0.mean(-1, keepdim=True))
        check("forward: centred W_E and W_pos reproduce the first residual", gap <= FORWARD,
              f"relative gap {gap:.1e}")


def moved(a, b):
    both = torch.isnan(a) & torch.isnan(b)
    return (a - b).abs().masked_fill(both, 0.0).max().item()


def check_misreadings(check, case, folder, h, s):
    """(3): each misreading moves some number by more than MOVES; returns whether comp_q and
    comp_k differ here."""
    _, _, nofold = wr.case_scores(folder, torch.float64, fold=False)
    m = moved(nofold["qk_singular"], s["qk_singular"])
    check(f"no folding moves qk_singular by > {MOVES}", m > MOVES, f"{m:.2e}")
    swap = moved(s["comp_q"], s["comp_k"])
    L, H = h.W_Q.shape[:2]
    literal = torch.einsum("bji,ajk->abik", wr.flat(full_qk(h)), wr.flat(full_ov(h)))
    den = wr.flat(full_qk(h)).flatten(1).norm(dim=-1)[None, :] \
        * wr.flat(full_ov(h)).flatten(1).norm(dim=-1)[:, None]
    literal = literal.flatten(2).norm(dim=-1) / den * wr.later_mask(L, H, den.dtype)
    m = moved(literal, s["comp_q"])
    check(f"methods.md's ‖W_QK2ᵀ W_OV1‖ read row-wise moves comp_q by > {MOVES}", m > MOVES,
          f"{m:.2e}")
    if case == "gpt2_f32":
        _, _, raw_c = wr.case_scores(folder, torch.float64, centre=False)
        for key in ("ov_singular", "copying", "comp_v"):
            m = moved(raw_c[key], s[key])
            check(f"no centring moves {key} by > {MOVES}", m > MOVES, f"{m:.2e}")
    if h.model_type == "qwen3":
        _, _, noqk = wr.case_scores(folder, torch.float64, qk_fold=False)
        m = moved(noqk["qk_singular"], s["qk_singular"])
        check(f"QK-norm not folded moves qk_singular by > {MOVES}", m > MOVES, f"{m:.2e}")
    if wl.ARCH[h.model_type]["one_plus"]:
        raw = wl.load(folder, torch.float64)
        raw.norm_in, raw.w_final = raw.norm_in - 1.0, raw.w_final - 1.0
        plain_w = wr.scores(wl.process(raw))
        m = moved(plain_w["qk_singular"], s["qk_singular"])
        check(f"Gemma's 1 + w read as w moves qk_singular by > {MOVES}", m > MOVES, f"{m:.2e}")
    return swap > MOVES, swap


def check_baseline(check, dm, dh):
    """(4): Monte Carlo of the composition score of unrelated Gaussian heads of these shapes."""
    g = torch.Generator().manual_seed(MC_SEED)

    def factor(*shape):
        return torch.randn(MC_SAMPLES, *shape, generator=g, dtype=torch.float64)
    ov = factor(dm, dh) @ factor(dh, dm)
    qk = factor(dm, dh) @ factor(dh, dm)
    c = (ov @ qk).flatten(1).norm(dim=-1) / (ov.flatten(1).norm(dim=-1)
                                             * qk.flatten(1).norm(dim=-1))
    c2 = c.pow(2) * dm
    se = (c2.std() / math.sqrt(MC_SAMPLES)).item()
    mean_c = (c.mean() * math.sqrt(dm)).item()
    check("Monte Carlo: E[C²] · d_model = 1 (baseline 1/sqrt(d_model) is the RMS)",
          abs(c2.mean().item() - 1) <= 4 * se,
          f"{c2.mean():.4f} ± {se:.4f}; E[C] · sqrt(d_model) = {mean_c:.4f}, "
          f"E[C] = {mean_c / math.sqrt(dm):.4f} vs 1/sqrt({dm}) = {1 / math.sqrt(dm):.4f}")


def check_written(check, folder, s):
    """(5): an existing output file holds these numbers (float32)."""
    path = os.path.join(folder, wr.OUTPUT)
    if not os.path.exists(path):
        print(f"  skip {wr.OUTPUT}: not written yet")
        return
    stored = st_io.load_file(path)
    gap = max(moved(stored[k].double(), v.float().double()) for k, v in s.items())
    check(f"{wr.OUTPUT} matches a recomputation", set(stored) == set(s) and gap == 0.0,
          f"max gap {gap:.1e}")


def run_case(check, folder, entry):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    raw, h, s = wr.case_scores(folder, torch.float64)
    check_identities(check, entry["case"], h, s)
    if raw.W_pos is not None and raw.model_type == "gpt2":
        check_pos_prev_loop(check, h, raw.W_pos, s)
    tensors = st_io.load_checkpoint(folder)
    ids = entry["inputs"][INPUT]
    cap = Capture(folder, tensors, ids)
    check_forward_heads(check, raw, h, tensors, cap)
    check_forward_embeddings(check, raw, h, cap, torch.tensor(ids), cfg)
    if raw.W_pos is None:
        check_forward_rotary(check, folder, tensors, ids, raw)
    differs = check_misreadings(check, entry["case"], folder, h, s)
    check_baseline(check, *raw.shape[3:])
    check_written(check, folder, s)
    return differs


def run(root):
    torch.set_num_threads(1)
    check, seen, swaps = selftest_checks.Checks(), 0, []
    check.case = "synthetic"
    print("synthetic")
    check_synthetic(check)
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = {e["case"]: e for e in json.load(f)}
    for case in wr.CASES:
        if case not in manifest or not selftest_checks.have_case(root, case):
            continue
        print(case)
        check.case, seen = case, seen + 1
        swaps.append((case, *run_case(check, os.path.join(root, case), manifest[case])))
    check.case = "all cases"
    differing = [f"{c} {m:.2e}" for c, d, m in swaps if d]
    check(f"Q- and K-composition swapped differ by > {MOVES} on some case", bool(differing),
          ", ".join(differing) or "none")
    return selftest_checks.finish("weights", check, seen, root, "")


if __name__ == "__main__":
    selftest_checks.main(run, "weights_selftest.py")
