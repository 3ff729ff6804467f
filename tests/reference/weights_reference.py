#!/usr/bin/python3
"""Independent reference of weight-space circuit scores of attention heads (methods.md §11.2,
§12.4): QK / OV spectra, the OV copying score, Q/K/V composition scores and a positional QK
score. Written from Elhage et al. 2021 ("A Mathematical Framework for Transformer Circuits") and
TransformerLens @4cd36aae (FactoredMatrix.py, utilities/matrix.py composition_scores,
HookedTransformer.QK / .OV / all_composition_scores, weight_processing.py), never from
AttnScope's C++.

Usage: weights_reference.py --dir DIR        (DIR holds checkpoints/manifest.json)

For each case of CASES writes checkpoints/<case>/weights_circuits.safetensors (weights as
stored, widened to float32, processed and scored in float64, saved F32; a float32 run must agree,
else the run fails):
    qk_singular  F32 [L, H, d_head]  singular values of W_QK^h = W_Q^h W_K^hT, descending
    ov_singular  F32 [L, H, d_head]  singular values of W_OV^h = W_V^h W_O^h, descending
    copying      F32 [L, H]          Re(sum λ) / sum |λ| over the eigenvalues of W_E W_OV^h W_U,
                                     taken from the d_model x d_model W_OV^h W_U W_E (the same
                                     non-zero eigenvalues); NaN for BERT (nonlinear MLM head)
    comp_q, comp_k, comp_v  F32 [L*H, L*H]  row h1 = l1*H + i (earlier), column h2 (later);
                                     0 unless layer(h2) > layer(h1)
    pos_prev     F32 [L, H]          GPT-2 only (NaN elsewhere), see pos_prev()
metadata: case, model_type, rules (the processing, weights_layout.rules_text), d_model, d_head,
baseline (1/sqrt(d_model)), baseline_kind, composition, copying, pos_prev and the float32 gaps.

Weights: weights_layout.py (TL's per-head layout, fold_ln, center_writing_weights,
center_unembed and the choices beyond TL). Everything goes through the factored forms: each
product A B (A [d_model, k], B [k, d_model]) is reduced by QR, A = Qa Ra and Bᵀ = Qb Rb, so
A B = Qa (Ra Rbᵀ) Qbᵀ: its singular values are the small core's, and ‖A B X‖_F = ‖Ra B X‖_F,
‖X A B‖_F = ‖X A Rbᵀ‖_F (TL's collapse_l / collapse_r use the SVD for the same reduction).

Composition (TL all_composition_scores + composition_scores, followed exactly): left = OV of the
earlier head h1 (FactoredMatrix(W_V, W_O)); right = QK of h2 (Q), QK.T of h2 (K), OV of h2 (V);
score = ‖left.AB @ right.AB‖_F / (‖left‖_F ‖right‖_F), i.e.
    Q: ‖W_OV^h1 W_QK^h2‖ / (‖W_OV^h1‖ ‖W_QK^h2‖)      the earlier head writes into h2's queries
    K: ‖W_OV^h1 W_QK^h2ᵀ‖ / (‖W_OV^h1‖ ‖W_QK^h2‖)     ... into h2's keys
    V: ‖W_OV^h1 W_OV^h2‖ / (‖W_OV^h1‖ ‖W_OV^h2‖)      ... into h2's values
in the row-vector convention (x' = x W_OV^h1 enters h2's query: x' W_QK^h2 y^T). This is the
paper's ‖W_QK^T W_OV^h1‖ (Q) / ‖W_QK W_OV^h1‖ (K) written in its column-vector convention, where
its W_OV is the transpose of TL's. Baseline: for any random head whose left singular vectors are
Haar-distributed (Gaussian factors are), E[‖A B‖²] = ‖A‖² ‖B‖² / d_model given the norms, so
the root-mean-square score of unrelated heads is exactly 1/sqrt(d_model) for every d_head; the
mean is slightly lower (weights_selftest.py measures both by Monte Carlo).
"""

import argparse
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_io  # noqa: E402
import weights_layout as wl  # noqa: E402

CASES = ("gpt2_f32", "llama_gqa2_headdim_bf16", "gemma2_window_softcap_f32",
         "qwen3_gqa_qknorm_f32", "gptneox_parallel_f16", "bert_f32")
OUTPUT = "weights_circuits.safetensors"
POS_CTX = 64
# float32 vs float64: singular values relative to the head's largest, scores absolute.
FP32_SV_RTOL = 1e-5
FP32_SCORE_ATOL = 1e-5
FP32_COPYING_ATOL = 1e-4


def core(A, B):
    """Ra Rbᵀ for A = Qa Ra, Bᵀ = Qb Rb (reduced QR): the small matrix with A B's singular
    values. A [.., m, k], B [.., k, n]."""
    _, Ra = torch.linalg.qr(A)
    _, Rb = torch.linalg.qr(B.transpose(-1, -2))
    return Ra @ Rb.transpose(-1, -2)


def singular_values(A, B, width):
    """All singular values of A B, descending, as [.., width] (zeros past the rank bound)."""
    s = torch.linalg.svdvals(core(A, B))
    if s.shape[-1] < width:
        s = torch.cat([s, s.new_zeros(*s.shape[:-1], width - s.shape[-1])], -1)
    return s[..., :width]


def collapse_l(A, B):
    """Ra B [.., r, n]: ‖(A B) X‖_F = ‖(Ra B) X‖_F for every X (Qa has orthonormal columns)."""
    return torch.linalg.qr(A)[1] @ B


def collapse_r(A, B):
    """A Rbᵀ [.., m, r]: ‖X (A B)‖_F = ‖X (A Rbᵀ)‖_F for every X."""
    return A @ torch.linalg.qr(B.transpose(-1, -2))[1].transpose(-1, -2)


def flat(t):
    """[L, H, ..] -> [L*H, ..] (index l*H + h)."""
    return t.reshape(-1, *t.shape[2:])


def right_factors(h, mode):
    """(A, B) of the later head's matrix, flattened: QK = (W_Q, W_Kᵀ), QK.T = (W_K, W_Qᵀ),
    OV = (W_V, W_O)."""
    if mode == "q":
        return flat(h.W_Q), flat(h.W_K).transpose(-1, -2)
    if mode == "k":
        return flat(h.W_K), flat(h.W_Q).transpose(-1, -2)
    if mode == "v":
        return flat(h.W_V), flat(h.W_O)
    raise ValueError(mode)


def later_mask(L, H, dtype):
    """[L*H, L*H]: 1 where layer(column) > layer(row)."""
    layer = torch.arange(L).repeat_interleave(H)
    return (layer[None, :] > layer[:, None]).to(dtype)


def composition(h, mode):
    """[L*H, L*H] TL composition scores of every earlier head (row) into every later head."""
    L, H = h.W_Q.shape[:2]
    left = collapse_l(flat(h.W_V), flat(h.W_O))                # [N, r, d_model]
    right = collapse_r(*right_factors(h, mode))                # [N, d_model, r]
    prod = torch.einsum("ard,bde->abre", left, right)
    num = prod.flatten(2).norm(dim=-1)
    den = left.flatten(1).norm(dim=-1)[:, None] * right.flatten(1).norm(dim=-1)[None, :]
    return num / den * later_mask(L, H, num.dtype)


def copying_ratio(M):
    """Re(sum λ) / sum |λ| over the complex eigenvalues of each square M [.., n, n]."""
    lam = torch.linalg.eigvals(M)
    return lam.sum(-1).real / lam.abs().sum(-1)


def copying(h):
    """[L, H]: the copying ratio of W_E W_OV^h W_U, computed on W_OV^h W_U W_E (d_model x d_model;
    never vocab x vocab). NaN without an unembedding (BERT)."""
    L, H = h.W_Q.shape[:2]
    if h.W_U is None:
        return torch.full((L, H), float("nan"), dtype=h.W_Q.dtype)
    UE = h.W_U @ h.W_E                                          # [d_model, d_model]
    return copying_ratio(h.W_V @ (h.W_O @ UE))


def layer_norm_rows(x, eps):
    """Each row centred and divided by sqrt(mean square + eps): LayerNorm without weight/bias."""
    x = x - x.mean(-1, keepdim=True)
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def pos_prev(h, raw_pos):
    """[L, H], GPT-2 (learned positions, causal) only, else NaN. P = N(W_pos) W_QK^h N(W_pos)ᵀ
    / sqrt(d_head) over the first n = min(n_positions, POS_CTX) positions, N = layer_norm_rows
    (the ln_1 weight is already folded into W_QK); the score is the mean over queries i = 1..n-1
    of softmax_{j <= i}(P[i, j]) at j = i - 1. raw_pos is the raw W_pos (centring each row before
    N changes nothing: N centres it again)."""
    L, H, _, dh = h.W_Q.shape
    if h.model_type != "gpt2":
        return torch.full((L, H), float("nan"), dtype=h.W_Q.dtype)
    n = min(raw_pos.shape[0], POS_CTX)
    x = layer_norm_rows(raw_pos[:n], h.eps)
    P = (x @ h.W_Q) @ (x @ h.W_K).transpose(-1, -2) / math.sqrt(dh)     # [L, H, n, n]
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    probs = torch.softmax(P.masked_fill(~causal, float("-inf")), dim=-1)
    i = torch.arange(1, n)
    return probs[..., i, i - 1].mean(-1)


def scores(h, raw_pos=None):
    """Every output tensor (in h's dtype) of processed Heads h."""
    dh = h.W_Q.shape[-1]
    out = {"qk_singular": singular_values(h.W_Q, h.W_K.transpose(-1, -2), dh),
           "ov_singular": singular_values(h.W_V, h.W_O, dh),
           "copying": copying(h),
           "pos_prev": pos_prev(h, raw_pos)}
    for mode in "qkv":
        out["comp_" + mode] = composition(h, mode)
    return out


def case_scores(folder, dtype, **steps):
    """(raw Heads, processed Heads, scores) of a checkpoint folder in `dtype`."""
    raw = wl.load(folder, dtype)
    h = wl.process(raw, **steps)
    return raw, h, scores(h, raw.W_pos)


def _gap(a, b, scale=None):
    """max |a - b| (NaN where both are NaN counts as equal), optionally divided by `scale`."""
    both = torch.isnan(a) & torch.isnan(b)
    if (torch.isnan(a) ^ torch.isnan(b)).any():
        return float("inf")
    diff = (a - b).abs().masked_fill(both, 0.0)
    if scale is not None:
        diff = diff / scale
    return diff.max().item() if diff.numel() else 0.0


def fp32_gaps(case, s32, s64):
    """float32 against float64; ends the run when a gap is over its tolerance."""
    gaps = {}
    for key in ("qk_singular", "ov_singular"):
        top = s64[key][..., :1].clamp_min(1e-300)
        gaps[key] = _gap(s32[key].double(), s64[key], top)
    for key in ("comp_q", "comp_k", "comp_v", "pos_prev", "copying"):
        gaps[key] = _gap(s32[key].double(), s64[key])
    limits = dict(qk_singular=FP32_SV_RTOL, ov_singular=FP32_SV_RTOL, copying=FP32_COPYING_ATOL)
    for key, gap in gaps.items():
        if not gap <= limits.get(key, FP32_SCORE_ATOL):
            raise SystemExit(f"weights_reference: {case}: float32 {key} off float64 by {gap:.2e}")
    return gaps


def metadata(case, raw, gaps):
    L, H, KV, dm, dh = raw.shape
    return {
        "case": case, "model_type": raw.model_type, "rules": wl.rules_text(raw),
        "d_model": str(dm), "d_head": str(dh), "n_layers": str(L), "n_heads": str(H),
        "n_kv_heads": str(KV), "baseline": repr(1.0 / math.sqrt(dm)),
        "baseline_kind": "root-mean-square composition score of unrelated random heads, exactly "
                         "1/sqrt(d_model) (E|AB|^2 = |A|^2 |B|^2 / d_model); the mean is lower",
        "composition": "TransformerLens all_composition_scores: row h1 (earlier), column h2; "
                       "Q |W_OV1 W_QK2|, K |W_OV1 W_QK2^T|, V |W_OV1 W_OV2| over the norms' "
                       "product; 0 unless layer(h2) > layer(h1)",
        "copying": "Re(sum eig)/sum|eig| of W_OV W_U W_E" if raw.W_U is not None
                   else "NaN: post-LN encoder, the MLM head is nonlinear",
        "pos_prev": f"softmax over N(W_pos[:{POS_CTX} max]) W_QK N(W_pos)^T/sqrt(d_head), mean "
                    "attention to i-1" if raw.model_type == "gpt2" else "NaN: GPT-2 only "
                    "(learned positions in a causal model)",
        "fp32_gaps": json.dumps({k: float(f"{v:.3e}") for k, v in gaps.items()}),
    }


def run_case(root, case):
    folder = os.path.join(root, case)
    raw, _, s64 = case_scores(folder, torch.float64)
    _, _, s32 = case_scores(folder, torch.float32)
    gaps = fp32_gaps(case, s32, s64)
    out = {k: v.float().contiguous() for k, v in s64.items()}
    st_io.save_file(out, os.path.join(folder, OUTPUT), metadata(case, raw, gaps))
    return raw, s64, gaps


def report(case, raw, s, gaps, seconds):
    L, H, KV, dm, dh = raw.shape
    mask = later_mask(L, H, torch.float64).bool()

    def rng(t):
        t = t[~torch.isnan(t)]
        return f"[{t.min():.4f},{t.max():.4f}]" if t.numel() else "nan"

    comp = " ".join(f"{m}{rng(s['comp_' + m][mask])}" for m in "qkv")
    worst = max(gaps.values())
    print(f"  {case:<26} L={L} H={H} KV={KV} d={dm} dh={dh} qk_s1={rng(s['qk_singular'][..., 0])}"
          f" ov_s1={rng(s['ov_singular'][..., 0])} copying={rng(s['copying'])} comp {comp}"
          f" base={1 / math.sqrt(dm):.4f} pos_prev={rng(s['pos_prev'])} fp32_gap={worst:.1e}"
          f" {1000 * seconds:.0f} ms")


def run(out_dir, only=None):
    torch.set_num_threads(1)
    start = time.monotonic()
    root = os.path.join(out_dir, "checkpoints")
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        present = {e["case"] for e in json.load(f)}
    missing = [c for c in (only or CASES) if c not in present]
    if missing:
        raise SystemExit(f"weights_reference: cases not in the manifest: {missing}")
    for case in only or CASES:
        t0 = time.monotonic()
        raw, s, gaps = run_case(root, case)
        report(case, raw, s, gaps, time.monotonic() - t0)
    print(f"weights: {len(only or CASES)} cases, {time.monotonic() - start:.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="folder holding checkpoints/manifest.json")
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    args = parser.parse_args()
    run(args.dir, args.case)


if __name__ == "__main__":
    main()
