#!/usr/bin/python3
"""Self-test of circuits_reference.py (DLA and the logit lens, methods.md §12.1-12.2) on the
fixture checkpoints.

Usage: circuits_selftest.py CHECKPOINTS_DIR      (the folder holding manifest.json)

For every case of circuits_reference.CASES present, on input circuits_reference.INPUT:
  (1) the pre-norm terms sum to the final residual, and the DLA terms (through the frozen final
      norm and W_U) sum to the actual logit[a] and logit[a] - logit[b] (before any final cap);
  (2) the lens has L + 1 layers and its last index equals the model's own lm_logits;
  (3) each misreading moves some number by more than MOVES, and the run-time sum check of (1)
      catches the DLA ones:
        final-norm scale recomputed per term instead of the cached scale of x_final;
        LayerNorm terms not centred (GPT-2, GPT-NeoX);
        Gemma 2 / OLMo-2 post-norm left out of the head terms;
        lens through the cached final scale (older TransformerLens) instead of recomputing the
        norm per residual (moves every layer but the last);
        Gemma 2: the terms read as the capped logit; the lens without the final cap;
  and, on GPT-2 with a made-up lm_head.bias, that the bias becomes the last term "unembed_bias".
"""

import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import circuits_reference as cr  # noqa: E402
import circuits_terms as ct  # noqa: E402
import lm_heads  # noqa: E402
import selftest_checks  # noqa: E402
import st_io  # noqa: E402

MOVES = 1e-3


def largest_change(names, new, old):
    """(max |new - old|, the term it is at); `new` and `old` are [n, T] with the same names."""
    change = (new - old).abs()
    flat = int(torch.argmax(change))
    return change.max().item(), names[flat % change.shape[1]]


def check_sums(check, cap, a, b):
    """(1): pre-norm terms -> x_final; DLA terms -> the logit (target and difference)."""
    terms = ct.residual_terms(cap)
    x_final = cap.stage[(cap.layers - 1, "block_out")]
    gap = (sum(t for _, t in terms) - x_final).abs().max().item()
    check("pre-norm terms sum to the final residual", gap <= 1e-5 * x_final.abs().max().item(),
          f"max gap {gap:.1e}")
    names, target, diff = cr.dla(cap, a, b)
    logits = cr.actual_logits(cap)
    for what, values, actual in (("logit[a]", target, logits[:, a]),
                                 ("logit[a]-logit[b]", diff, logits[:, a] - logits[:, b])):
        gap = cr.sum_gap(values, actual)
        check(f"DLA terms sum to {what} at every position", gap <= cr.SUM_RTOL,
              f"worst relative gap {gap:.1e}, {len(names)} terms")
    return names, target, diff


def check_lens(check, cap):
    """(2): L + 1 entries, the last one the model's own output."""
    lens = cr.logit_lens(cap)
    check("lens has L + 1 entries", lens.shape[0] == cap.layers + 1, f"shape {tuple(lens.shape)}")
    gap = cr.lens_gap(lens, cap.lm)
    check("lens' last index equals lm_logits", gap <= cr.LENS_RTOL, f"relative gap {gap:.1e}")
    return lens


def check_misreading(check, cap, a, b, plain, label, **reading):
    """(3) for one DLA misreading: some term moves by > MOVES and the sum check catches it."""
    names, target, diff = cr.dla(cap, a, b, **reading)
    moved, where = largest_change(names, diff, plain[2])
    check(f"{label}: moves a DLA term by > {MOVES}", moved > MOVES, f"{moved:.2e} at {where}")
    logits = cr.actual_logits(cap)
    gap = cr.sum_gap(diff, logits[:, a] - logits[:, b])
    check(f"{label}: the run-time sum check fails", gap > cr.SUM_RTOL, f"relative gap {gap:.1e}")


def check_lens_misreadings(check, cap, lens):
    """(3) for the lens: the cached final scale, and Gemma 2 without its final cap."""
    cached = cr.logit_lens(cap, cached_scale=True)
    moved = (cached[:-1] - lens[:-1]).abs().max().item()
    last = (cached[-1] - lens[-1]).abs().max().item()
    check(f"lens with the cached final scale: moves an earlier layer by > {MOVES}",
          moved > MOVES and last <= 1e-5 * lens[-1].abs().max().item(),
          f"{moved:.2e} earlier, {last:.1e} at the last index")
    if ct.final_cap(cap) is not None:
        w_u, _ = ct.unembedding(cap)
        uncapped = torch.stack([ct.final_norm(cap, r) @ w_u.T for r in cap.residuals()])
        moved = (uncapped - lens).abs().max().item()
        check(f"lens without the final soft-cap: moves by > {MOVES}", moved > MOVES,
              f"{moved:.2e}")


def check_capped_logit(check, cap, a, b, diff):
    """Gemma 2: the terms decompose the logit before the cap, not the capped one."""
    capped = cap.lm[:, a] - cap.lm[:, b]
    gap = (diff.sum(dim=1) - capped).abs().max().item()
    check(f"terms read as the capped logit difference: off by > {MOVES}", gap > MOVES,
          f"{gap:.2e}")


def check_unembed_bias(check, folder, entry, tensors):
    """An LM head with a bias (none of the fixtures has one; one is added here): its term
    "unembed_bias" comes last and the terms still sum to the logits that include it."""
    head = lm_heads.HEAD_WEIGHT.get(entry["model_type"], "lm_head.weight")
    if head not in tensors:
        return
    bias = torch.linspace(-0.7, 0.9, tensors[head].shape[0]).to(tensors[head].dtype)
    with_bias = dict(tensors, **{head[:-len("weight")] + "bias": bias})
    cap = ct.Capture(folder, entry["inputs"][cr.INPUT], torch.float32, with_bias)
    a, b = cr.target_and_distractor(cap.lm[-1])
    names, target, _ = cr.dla(cap, a, b)
    gap = cr.sum_gap(target, cr.actual_logits(cap)[:, a])
    check("an unembedding bias is the last term and the sum holds",
          names[-1] == "unembed_bias" and gap <= cr.SUM_RTOL,
          f"last term {names[-1]} = {target[-1, -1]:+.4f}, relative gap {gap:.1e}")


def run_case(check, folder, entry):
    tensors = st_io.load_checkpoint(folder)
    cap = ct.Capture(folder, entry["inputs"][cr.INPUT], torch.float32, tensors)
    a, b = cr.target_and_distractor(cap.lm[-1])
    lens = check_lens(check, cap)
    if cap.mt in ct.ENCODERS:
        return
    plain = check_sums(check, cap, a, b)
    check_misreading(check, cap, a, b, plain, "final-norm scale recomputed per term",
                     frozen=False)
    if cap.family["norm"] == "ln":
        check_misreading(check, cap, a, b, plain, "LayerNorm terms not centred", centre=False)
    if cap.family["post_attn"]:
        check_misreading(check, cap, a, b, plain, "post-norm left out of the head terms",
                         post_norm=False)
    check_lens_misreadings(check, cap, lens)
    if ct.final_cap(cap) is not None:
        check_capped_logit(check, cap, a, b, plain[2])
    if entry["case"] == "gpt2_f32":
        check_unembed_bias(check, folder, entry, tensors)


def run(root):
    torch.set_num_threads(1)
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = {e["case"]: e for e in json.load(f)}
    check, seen = selftest_checks.Checks(), 0
    for case in cr.CASES:
        if case not in manifest or not selftest_checks.have_case(root, case):
            continue
        print(case)
        check.case, seen = case, seen + 1
        run_case(check, os.path.join(root, case), manifest[case])
    return selftest_checks.finish("circuits", check, seen, root, "")


if __name__ == "__main__":
    selftest_checks.main(run, "circuits_selftest.py")
