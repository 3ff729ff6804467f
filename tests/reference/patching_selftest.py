#!/usr/bin/python3
"""Self-test of patching_reference.py (activation and path patching, methods.md §12.3) on the
fixture checkpoints.

Usage: patching_selftest.py CHECKPOINTS_DIR      (the folder holding manifest.json)

For every case of patching_reference.CASES present, on input patching_reference.INPUT, float32:
  (1) identities: patching nothing gives LD_corr (denoise) and LD_clean (noise) exactly;
      resid at layer 0, every position, normalises to exactly 1 (denoise) and 0 (noise); path
      patching with the sender's z from the clean run gives LD_clean exactly;
  (2) z of every head of layer l at every position == attn_out of layer l at every position, in
      both directions: attn_out = sum_h z_h W_O^h + b_O and b_O is the same in both runs, so the
      two patches give the same pass (no b_O correction; the post-norms and BERT's LayerNorm
      recompute from the same input);
  (3) causal models: every patch at a position before n//3 (head_pos, resid, attn_out, mlp_out)
      changes nothing (normalised exactly 0 denoising, 1 noising: both runs agree there); BERT
      (bidirectional): some such patch moves the metric by > MOVES;
  (4) the per-position head effects (changes from the unpatched run) do not simply add up to
      the all-position one (some |sum_p head_pos effect - head effect| > MOVES);
  (5) k and v path patches act on KV groups: the columns of a group are equal; q's are not;
  (6) misreadings move the numbers by > MOVES, and true non-effects stay exact:
        path patching without freezing the other heads: moves with >= 3 layers (Gemma 2),
        exactly equal with two layers (nothing lies between sender and receiver);
        MLPs frozen too in run 1: moves, except with GPT-NeoX's parallel residual on two
        layers (layer 0's MLP does not read the sender's output), where it is exactly equal;
        k / v patched per query head instead of per KV group: moves on the GQA cases, exactly
        equal without GQA;
  (7) a patching_1.safetensors present beside the checkpoint holds these numbers (1e-6);
  (8) the corruption rule: only positions n//3 and (2n)//3 change, to ordinary ids; the framing
      special tokens (BOS, [CLS] / [SEP]) are not ordinary; with MIN_GAP raised just above the
      chosen shift's gap, the pick moves on to a later shift that clears it;
  (9) every checkpoint of the manifest (all architectures, not only CASES): the forward calls
      the patch hook at resid_pre, q, k, v, z, attn_out, mlp_out of every layer in that order,
      with [n, hidden] rows and [H, n, d] per-query-head tensors, and a hook that returns its
      tensor leaves the pass bit-identical to the plain one.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# First: it gives the BLAS one thread before torch loads it (see there).
import patching_reference as pr  # noqa: E402

import json  # noqa: E402
import math  # noqa: E402

import torch  # noqa: E402

import patching_hooks as ph  # noqa: E402
import selftest_checks  # noqa: E402
import st_io  # noqa: E402
import torch_reference  # noqa: E402

MOVES = 1e-3
SITE_ORDER = ("resid_pre", "q", "k", "v", "z", "attn_out", "mlp_out")
ROW_SITES = ("resid_pre", "attn_out", "mlp_out")  # [n, hidden]; the others [H, n, d]
FILE_TOL = 1e-6
EVERYTHING = (slice(None),)


def check_identities(check, r):
    """(1)."""
    check("patching nothing (denoise) gives LD_corr exactly",
          r.ld(r.corr_ids, {}) == r.ld_corr, f"LD_corr {r.ld_corr:+.6f}")
    check("patching nothing (noise) gives LD_clean exactly",
          r.ld(r.clean_ids, {}) == r.ld_clean, f"LD_clean {r.ld_clean:+.6f}")
    for direction, want in (("denoise", 1.0), ("noise", 0.0)):
        ids, src = r.base_and_source(direction)
        got = r.normalised(r.ld(ids, {(0, "resid_pre"): ph.take(src[(0, "resid_pre")],
                                                                 EVERYTHING)}))
        check(f"resid layer 0, every position ({direction}) normalises to {want:g} exactly",
              got == want, f"{got!r}")
    worst = 0.0
    for ls in range(r.layers - 1):
        for hs in range(r.heads):
            saved = pr.run1(r, (ls, hs), source=r.clean)
            for site in pr.PATH_SITES:
                for lr in range(ls + 1, r.layers):
                    got = pr.run2(r, saved, [(lr, list(range(r.heads)))], site)
                    worst = max(worst, abs(got - r.ld_clean))
    check("path patching with the sender from the clean run gives LD_clean exactly",
          worst == 0.0, f"max |LD - LD_clean| {worst:.1e}")


def check_heads_vs_attn_out(check, r):
    """(2)."""
    worst = 0.0
    for direction in pr.DIRECTIONS:
        ids, src = r.base_and_source(direction)
        for layer in range(r.layers):
            heads = r.ld(ids, {(layer, "z"): ph.take(src[(layer, "z")], EVERYTHING)})
            attn = r.ld(ids, {(layer, "attn_out"): ph.take(src[(layer, "attn_out")],
                                                           EVERYTHING)})
            worst = max(worst, abs(heads - attn))
    check("all heads' z of a layer (every position) == its attn_out patch (b_O cancels)",
          worst <= 1e-6 * max(abs(r.ld_clean), abs(r.ld_corr)), f"max |dLD| {worst:.1e}")


def check_prefix(check, r, norm, causal):
    """(3): normalised effects at positions before the first corrupted one."""
    first = ph.corrupted_positions(r.n)[0]
    keys = ("head_pos", "resid", "attn_out", "mlp_out")
    if causal:
        for direction, want in (("denoise", 0.0), ("noise", 1.0)):
            off = max((norm[f"{direction}_{k}"][..., :first] - want).abs().max().item()
                      for k in keys)
            check(f"causal: {direction} patches before position {first} give {want:g} exactly",
                  off == 0.0, f"max off {off:.1e}")
    else:
        moved = max(norm[f"denoise_{k}"][..., :first].abs().max().item() for k in keys)
        check(f"bidirectional: a denoise patch before position {first} moves by > {MOVES}",
              moved > MOVES, f"max {moved:.2e}")


def check_head_pos(check, norm):
    """(4), on effects: the change from the unpatched run (normalised 0 denoising, 1 noising),
    so that noising's n unmoved positions do not add up to n."""
    for direction, unpatched in (("denoise", 0.0), ("noise", 1.0)):
        summed = (norm[f"{direction}_head_pos"] - unpatched).sum(dim=-1)
        whole = norm[f"{direction}_head"] - unpatched
        gap = (summed - whole).abs().max().item()
        check(f"{direction}: head_pos effects summed over positions != head's (> {MOVES})",
              gap > MOVES, f"max |sum - head| {gap:.2e}")


def check_kv_groups(check, r, raw):
    """(5): path_k / path_v columns within a KV group are equal; q's differ somewhere."""
    H, group = r.heads, r.group
    for site in pr.PATH_SITES:
        cols = raw[f"path_{site}"].reshape(r.layers * H, r.layers, H // group, group)
        spread = (cols - cols[..., :1]).abs().nan_to_num(0.0).max().item()
        if site != "q":
            check(f"path_{site}: equal columns within each KV group of {group}", spread == 0.0,
                  f"max spread {spread:.1e}")
        elif group > 1:
            check(f"path_q: columns within a KV group differ (> {MOVES} in LD)", spread > MOVES,
                  f"max spread {spread:.2e}")


def largest_change(a, b):
    """max |a - b| over cells where both are defined (NaN cells must match)."""
    if not torch.equal(a.isnan(), b.isnan()):
        return math.inf
    ok = ~a.isnan()
    return (a[ok] - b[ok]).abs().max().item() if ok.any() else 0.0


def misreading(check, label, plain, other, keys, should_move):
    """(6): `other` moves some normalised path value by > MOVES, or (should_move False) is
    exactly `plain`."""
    change = max(largest_change(plain[k], other[k]) for k in keys)
    if should_move:
        check(f"{label}: moves a path value by > {MOVES}", change > MOVES, f"{change:.2e}")
    else:
        check(f"{label}: changes nothing here (exactly)", change == 0.0, f"{change:.1e}")


def check_misreadings(check, r, norm, parallel):
    """(6), on the normalised path tensors."""
    plain = {k[len("path_"):]: v for k, v in norm.items() if k.startswith("path_")}
    keys = list(plain)

    def sweep(**options):
        return {k: r.normalised(v) for k, v in pr.path_sweep(r, **options).items()}

    misreading(check, "run 1 without freezing the other heads", plain, sweep(freeze=False),
               keys, r.layers > 2)
    misreading(check, "run 1 with the MLPs frozen too", plain, sweep(freeze_mlp=True), keys,
               not (parallel and r.layers == 2))
    misreading(check, "k / v patched per query head, not per KV group", plain,
               sweep(per_query_kv=True), [k for k in keys if k[0] in "kv"], r.group > 1)


def check_file(check, folder, norm):
    """(7)."""
    path = os.path.join(folder, f"patching_{pr.INPUT}.safetensors")
    if not os.path.exists(path):
        print(f"  skip file check: no {os.path.basename(path)}")
        return
    saved = st_io.load_file(path)
    gap = max(largest_change(saved[k].double(), v) for k, v in norm.items())
    check(f"{os.path.basename(path)} holds these normalised values", gap <= FILE_TOL,
          f"max gap {gap:.1e}")


def check_corruption(check, r, folder):
    """(8)."""
    ordinary = set(ph.ordinary_ids(folder, r.model.cfg))
    changed = [p for p in range(r.n) if r.clean_ids[p] != r.corr_ids[p]]
    check("the corrupted ids differ exactly at n//3 and (2n)//3, by ordinary ids",
          changed == ph.corrupted_positions(r.n) and all(r.corr_ids[p] in ordinary
                                                         for p in changed),
          f"changed {changed}: {[r.clean_ids[p] for p in changed]} -> "
          f"{[r.corr_ids[p] for p in changed]}")
    framing = [r.clean_ids[0]] if r.model.mt != "gpt2" else []
    framing += [r.clean_ids[-1]] if r.model.mt == "bert" else []
    if framing:
        check("the framing special tokens are not ordinary",
              not any(t in ordinary for t in framing), f"ids {framing}")
    gap = abs(r.ld_clean - r.ld_corr)
    old = ph.MIN_GAP
    ph.MIN_GAP = gap * (1 + 1e-6)
    try:
        corr, shift, _, _, ld_clean, ld_corr, _ = ph.pick_corruption(
            r.model, r.clean_ids, sorted(ordinary), r.clean_logits)
    finally:
        ph.MIN_GAP = old
    check("MIN_GAP just above the chosen gap: a later shift, with a larger gap",
          corr != r.corr_ids and abs(ld_clean - ld_corr) > gap,
          f"shift {shift}, gap {abs(ld_clean - ld_corr):.4f} > {gap:.4f}")


def check_hook_sites(check, folder, entry):
    """(9) on one checkpoint."""
    tensors = st_io.load_checkpoint(folder)
    ids = entry["inputs"][min(1, len(entry["inputs"]) - 1)]
    n, hidden, heads = len(ids), entry["hidden"], entry["num_heads"]
    calls = []

    def hook(layer, site, t):
        shape_ok = t.shape == (n, hidden) if site in ROW_SITES else t.shape[:2] == (heads, n)
        calls.append((layer, site, shape_ok))
        return t

    hooked = torch_reference.forward(folder, ids, torch.float32, tensors, patch=hook)
    plain = torch_reference.forward(folder, ids, torch.float32, tensors)
    order = [(layer, site) for layer in range(entry["num_layers"]) for site in SITE_ORDER]
    same = all(torch.equal(a, b) for a, b in zip(hooked, plain) if torch.is_tensor(a))
    check(f"{entry['case']}: patch hook at every site in order, shapes, identity = plain",
          [c[:2] for c in calls] == order and all(c[2] for c in calls) and same,
          f"{len(calls)} calls, shapes {'ok' if all(c[2] for c in calls) else 'WRONG'}, "
          f"{'bit-identical' if same else 'DIFFERS'}")


def run_case(check, folder, entry):
    tensors = st_io.load_checkpoint(folder)
    r, _, _ = pr.prepare(folder, entry, tensors)
    raw = pr.sweep_all(r)
    norm = {k: r.normalised(v) for k, v in raw.items()}
    check_identities(check, r)
    check_heads_vs_attn_out(check, r)
    check_prefix(check, r, norm, entry["default_mask"] == "causal")
    check_head_pos(check, norm)
    check_kv_groups(check, r, raw)
    parallel = r.model.mt == "gpt_neox" and r.model.cfg.get("use_parallel_residual", True)
    check_misreadings(check, r, norm, parallel)
    check_file(check, folder, norm)
    check_corruption(check, r, folder)


def run(root):
    torch.set_num_threads(1)
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = {e["case"]: e for e in json.load(f)}
    check, seen = selftest_checks.Checks(), 0
    for case in pr.CASES:
        if case not in manifest or not selftest_checks.have_case(root, case):
            continue
        print(case)
        check.case, seen = case, seen + 1
        run_case(check, os.path.join(root, case), manifest[case])
    check.case = "hooks"
    print("patch hook of every forward")
    for case, entry in manifest.items():
        if os.path.isdir(os.path.join(root, case)):
            check_hook_sites(check, os.path.join(root, case), entry)
    return selftest_checks.finish("patching", check, seen, root, "")


if __name__ == "__main__":
    selftest_checks.main(run, "patching_selftest.py")
