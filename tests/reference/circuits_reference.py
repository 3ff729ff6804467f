#!/usr/bin/python3
"""Independent reference of direct logit attribution (DLA) and the logit lens (methods.md
§12.1, §12.2), written from TransformerLens's definitions and nostalgebraist's logit lens, never
from AttnScope's C++.

Usage: circuits_reference.py --dir DIR        (DIR holds checkpoints/manifest.json)

For each case of CASES, on the manifest's input INPUT, writes checkpoints/<case>/circuits_1.
safetensors with
    input_ids         I64 [n]
    lens_logits       F32 [L+1, n, vocab]  logit lens: index 0 = the residual entering layer 0
                                           (the embeddings), index l+1 = after layer l; each
                                           through the model's final norm RECOMPUTED on that
                                           residual, the unembedding (+ bias) and Gemma 2's
                                           final soft-cap. BERT family: the MLM head on each
                                           layer's output (index 0: the embeddings after their
                                           LayerNorm). The last index is the model's output.
  decoders only (post-LN encoders get no DLA, methods.md §12.1):
    dla_target        F32 [n, T]  term t's direct contribution to logit[a] at each position
    dla_diff          F32 [n, T]  the same to logit[a] - logit[b]
    dla_logit_target  F32 [n]     the model's logit[a] BEFORE any final soft-cap
    dla_logit_diff    F32 [n]     the model's logit[a] - logit[b], before the cap
and metadata "dla_terms" (JSON list of the T names, circuits_terms.py's order, then
"final_norm_bias" for a LayerNorm, then "unembed_bias" for a head with a bias), "target" (a) and
"distractor" (b): the largest and second largest of the model's own final logits at the last
position (ties: lowest id; written for the BERT family too), case, input, value_bias
("in_head_term": b_V stays in each head's term) and lens_norm ("recomputed", or "mlm_head").

Each term goes through the final norm with the cached scale of its position (centred first for
LayerNorm only) and is dotted with W_U[:, a] (dla_target) and W_U[:, a] - W_U[:, b] (dla_diff).
Checked at run time, else the run fails: the terms sum to the actual logit within SUM_RTOL of
max(|logit|, largest |term|) at that position; the lens' last index equals lm_logits within
LENS_RTOL of max |lm_logits|; the float32 pass agrees with a float64 one within LENS_FP64 on the
lens probabilities and within TERM_FP64_RTOL of max(|term64|, TERM_FLOOR * largest |term64| of
that position) on the DLA terms, and of max(|logit64|, largest |term64| of that position) on the
logits. Metadata lens_prob_gap_vs_float64 and
dla_rel_gap_vs_float64 record those two gaps.
"""

import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import circuits_terms as ct  # noqa: E402
import lm_heads  # noqa: E402
import st_io  # noqa: E402
import torch_reference  # noqa: E402

CASES = ("gpt2_f32", "llama_gqa2_headdim_bf16", "llama_f32", "qwen3_gqa_qknorm_f32",
         "gemma2_window_softcap_f32", "olmo2_f32", "gptneox_parallel_f16",
         "phi3_longrope_window_f32", "bert_f32", "roberta_f32")
INPUT = 1
SUM_RTOL = 1e-4
LENS_RTOL = 1e-5
LENS_FP64 = 1e-5
TERM_FP64_RTOL = 1e-4
# A term far smaller than its position's largest carries the rounding of the residual stream it
# is read from (float32 errors of ~1e-6 of the largest term after a few layers, and which kernels
# and BLAS the machine picks moves them): its relative error is measured against 10% of the
# largest. The parity tests compare with 1e-4 of the largest term, so this is still stricter.
TERM_FLOOR = 1e-1


def target_and_distractor(logits):
    """(a, b): ids of the largest and second largest of logits [vocab], ties to the lowest id."""
    order = sorted(range(logits.shape[0]), key=lambda i: (-logits[i].item(), i))
    return order[0], order[1]


def dla(cap, a, b, frozen=True, centre=True, post_norm=True):
    """(names [T], target [n, T], diff [n, T]): each term's direct contribution to logit[a] and
    to logit[a] - logit[b] (before any final cap). frozen / centre / post_norm=False are the
    misreadings the self-test shows moving the numbers."""
    terms = ct.through_final_norm(cap, ct.residual_terms(cap, post_norm), frozen, centre)
    w_u, b_u = ct.unembedding(cap)
    directions = torch.stack([w_u[a], w_u[a] - w_u[b]], dim=1)  # [hidden, 2]
    names = [name for name, _ in terms]
    values = torch.stack([t for _, t in terms], dim=1) @ directions  # [n, T, 2]
    if b_u is not None:
        names.append("unembed_bias")
        bias = torch.stack([b_u[a], b_u[a] - b_u[b]]).expand(values.shape[0], 1, 2)
        values = torch.cat([values, bias], dim=1)
    return names, values[..., 0], values[..., 1]


def actual_logits(cap):
    """[n, vocab]: the model's logits before any final soft-cap, from its final hidden state."""
    w_u, b_u = ct.unembedding(cap)
    logits = cap.hidden @ w_u.T
    return logits if b_u is None else logits + b_u


def logit_lens(cap, cached_scale=False):
    """[L+1, n, vocab] (module docstring). cached_scale=True divides by x_final's scale instead of
    recomputing the norm per residual (older TransformerLens; a misreading here)."""
    if cap.mt in ct.ENCODERS:
        return torch.stack([lm_heads.prediction_logits(cap.cfg, cap.w, r,
                                                       torch_reference.ACTIVATIONS)
                            for r in cap.residuals()])
    w_u, b_u = ct.unembedding(cap)
    out = []
    for r in cap.residuals():
        if cached_scale:
            normed = sum(t for _, t in ct.through_final_norm(cap, [("r", r)]))
        else:
            normed = ct.final_norm(cap, r)
        logits = normed @ w_u.T + (0 if b_u is None else b_u)
        out.append(ct.soft_cap(logits, ct.final_cap(cap)))
    return torch.stack(out)


def sum_gap(values, actual):
    """Worst |sum of terms - actual| / max(|actual|, largest |term|) over positions."""
    scale = torch.maximum(actual.abs(), values.abs().max(dim=1).values)
    return ((values.sum(dim=1) - actual).abs() / scale).max().item()


def lens_gap(lens, lm):
    """max |lens[-1] - lm_logits| / max |lm_logits|."""
    return ((lens[-1] - lm).abs().max() / lm.abs().max()).item()


def term_gap(v32, v64, floor=TERM_FLOOR, terms64=None):
    """Worst |v32 - v64| / max(|v64|, floor * largest |v64| of its row). A logit (v64 [T]) is
    measured against max(|logit|, largest |term| of its position in terms64 [T, terms]), as
    SUM_RTOL is: a logit near zero is a sum of larger terms and carries their rounding."""
    v32, v64 = v32.double(), v64.double()
    if v64.dim() == 1:
        scale = terms64.double().abs().max(dim=1).values
        return ((v32 - v64).abs() / torch.maximum(v64.abs(), scale)).max().item()
    floor = floor * v64.abs().max(dim=1, keepdim=True).values
    return ((v32 - v64).abs() / torch.maximum(v64.abs(), floor)).max().item()


def fail(case, what):
    raise SystemExit(f"circuits_reference: {case}: {what}")


def circuits(cap, a, b):
    """The outputs of one pass (dtype as the capture's): lens, and for a decoder the DLA."""
    out = {"lens": logit_lens(cap)}
    if cap.mt in ct.DECODERS:
        names, target, diff = dla(cap, a, b)
        logits = actual_logits(cap)
        out.update(names=names, target=target, diff=diff, logit_target=logits[:, a],
                   logit_diff=logits[:, a] - logits[:, b])
    return out


def checked_pass(case, cap, a, b):
    """circuits() with the run-time checks (sums, lens == lm_logits); returns (outputs, gaps)."""
    out = circuits(cap, a, b)
    gaps = {"lens_vs_lm": lens_gap(out["lens"], cap.lm)}
    if gaps["lens_vs_lm"] > LENS_RTOL:
        fail(case, f"lens' last index misses lm_logits by {gaps['lens_vs_lm']:.2e} relative")
    if "names" in out:
        capped = ct.soft_cap(actual_logits(cap), ct.final_cap(cap))
        gaps["cap_vs_lm"] = ((capped - cap.lm).abs().max() / cap.lm.abs().max()).item()
        gaps["sum_target"] = sum_gap(out["target"], out["logit_target"])
        gaps["sum_diff"] = sum_gap(out["diff"], out["logit_diff"])
        for key in ("cap_vs_lm", "sum_target", "sum_diff"):
            if not gaps[key] <= SUM_RTOL:
                fail(case, f"{key}: terms miss the logit by {gaps[key]:.2e} relative")
    return out, gaps


def fp64_gaps(case, out32, out64):
    """float32 vs float64: lens probabilities (absolute) and DLA terms (relative, term_gap)."""
    p32, p64 = (torch.softmax(o["lens"].double(), dim=-1) for o in (out32, out64))
    gaps = {"lens_prob_fp64": (p32 - p64).abs().max().item()}
    if not gaps["lens_prob_fp64"] <= LENS_FP64:
        fail(case, f"float32 lens probabilities off float64 by {gaps['lens_prob_fp64']:.2e}")
    if "names" in out32:
        pairs = (("target", "target"), ("diff", "diff"), ("logit_target", "target"),
                 ("logit_diff", "diff"))
        gaps["dla_fp64"] = max(term_gap(out32[k], out64[k], TERM_FLOOR, out64[t])
                               for k, t in pairs)
        # For the report only: the terms without the floor (plain per-term relative error).
        gaps["dla_fp64_plain"] = max(term_gap(out32[k], out64[k], 0.0) for k in ("target", "diff"))
        if not gaps["dla_fp64"] <= TERM_FP64_RTOL:
            fail(case, f"float32 DLA terms off float64 by {gaps['dla_fp64']:.2e} relative")
    return gaps


def run_case(root, entry):
    """Both passes, the checks, and circuits_1.safetensors for one manifest entry; returns
    (gaps, names and last-position values for the report)."""
    case, folder = entry["case"], os.path.join(root, entry["case"])
    tensors, ids = st_io.load_checkpoint(folder), entry["inputs"][INPUT]
    cap32 = ct.Capture(folder, ids, torch.float32, tensors)
    cap64 = ct.Capture(folder, ids, torch.float64, tensors)
    a, b = target_and_distractor(cap32.lm[-1])
    if target_and_distractor(cap64.lm[-1]) != (a, b):
        fail(case, f"float64 ranks the last position's top two differently from ({a}, {b})")
    out32, gaps = checked_pass(case, cap32, a, b)
    out64, _ = checked_pass(case + " (float64)", cap64, a, b)
    gaps.update(fp64_gaps(case, out32, out64))
    tensors_out = {"input_ids": cap32.ids, "lens_logits": out32["lens"].float().contiguous()}
    meta = {"case": case, "model_type": entry["model_type"], "input": str(INPUT),
            "target": str(a), "distractor": str(b), "compute_dtype": "float32",
            "lens_norm": "mlm_head" if cap32.mt in ct.ENCODERS else "recomputed",
            "lens_prob_gap_vs_float64": f"{gaps['lens_prob_fp64']:.3e}"}
    if "names" in out32:
        for key in ("target", "diff", "logit_target", "logit_diff"):
            tensors_out["dla_" + key] = out32[key].float().contiguous()
        meta.update(dla_terms=json.dumps(out32["names"]), value_bias="in_head_term",
                    dla_rel_gap_vs_float64=f"{gaps['dla_fp64']:.3e}")
    st_io.save_file(tensors_out, os.path.join(folder, f"circuits_{INPUT}.safetensors"), meta)
    return gaps, (a, b, out32)


def report(case, gaps, a, b, out, seconds):
    text = " ".join(f"{k}={v:.1e}" for k, v in gaps.items())
    shape = tuple(out["lens"].shape)
    terms = f" T={len(out['names'])}" if "names" in out else " (lens only)"
    print(f"  {case:<26} a={a} b={b} lens{shape}{terms} {text} {1000 * seconds:.0f} ms")


def run(out_dir, only=None, verbose_case="gpt2_f32"):
    """Every case of CASES found in OUT/checkpoints/manifest.json (or those in `only`)."""
    torch.set_num_threads(1)
    start = time.monotonic()
    root = os.path.join(out_dir, "checkpoints")
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = {e["case"]: e for e in json.load(f)}
    missing = [c for c in CASES if c not in manifest]
    if missing:
        raise SystemExit(f"circuits_reference: cases not in the manifest: {missing}")
    for case in only or CASES:
        t0 = time.monotonic()
        gaps, (a, b, out) = run_case(root, manifest[case])
        report(case, gaps, a, b, out, time.monotonic() - t0)
        if case == verbose_case:
            last = ", ".join(f"{n}={t:+.5f}/{d:+.5f}" for n, t, d in
                             zip(out["names"], out["target"][-1], out["diff"][-1]))
            print(f"    last position (target/diff): {last}")
            print(f"    sum {out['target'][-1].sum():+.6f}/{out['diff'][-1].sum():+.6f} "
                  f"actual {out['logit_target'][-1]:+.6f}/{out['logit_diff'][-1]:+.6f}")
    print(f"circuits: {len(only or CASES)} cases, {time.monotonic() - start:.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="folder holding checkpoints/manifest.json")
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    args = parser.parse_args()
    run(args.dir, args.case)


if __name__ == "__main__":
    main()
