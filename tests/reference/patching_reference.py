#!/usr/bin/python3
"""Independent reference of activation patching and path patching (methods.md §12.3), written
from TransformerLens's patching.py conventions and Wang et al. 2022 (IOI, Appendix B), never
from AttnScope's C++.

Usage: patching_reference.py --dir DIR [--case C ...]   (DIR holds checkpoints/manifest.json)

For each case of CASES, on the manifest's input INPUT (the clean ids, n tokens), writes
checkpoints/<case>/patching_1.safetensors. Prompts and metric (patching_hooks.py says it in
full): corrupted ids = the clean ids with positions n//3 and (2n)//3 moved along the ordinary
(non-special) ids by the smallest shift that makes |LD_clean - LD_corr| > MIN_GAP with every
argmax decision ahead by > MARGIN; m = n - 1; a = clean argmax, b = corrupted argmax if != a
else the clean runner-up (ties: lowest id); LD = logit[a] - logit[b] at m on the model's output
logits (after Gemma 2's final cap; BERT: the MLM head), the two float32 logits subtracted in
float64; normalised (LD_patched - LD_corr) / (LD_clean - LD_corr) in float64 for every direction
and site, then stored as F32. A patch that changes nothing gives 0 denoising and 1 noising
(path patching is noising: an unaffected receiver gives 1).

Activation patching. denoise: the corrupted run with ONE site taken from the clean run; noise:
the clean run with one site from the corrupted run. Sites (torch_reference.forward's patch
hook): head = one query head's z = probs @ V before W_O, all positions; head_pos = the same at
one query position; resid = the residual entering layer l at position p (layer 0: the
embeddings after any embedding LayerNorm); attn_out = layer l's output projection with its bias
at p, before any post-attention norm and the residual add (BERT: before its LayerNorm);
mlp_out = the down projection with its bias at p, before any post-FFN norm. Per-row norms make a
patch before the norm the same as one after it.

Path patching (IOI Appendix B, noising: original = clean, new = corrupted), sender = query
head s. Run 1: the clean prompt, s's z (all positions) from the corrupted run and every other
head's z (all layers, all positions) frozen to the clean run's; MLPs, norms and embeddings
recompute. Its q, k or v (after any QK-norm and RoPE) are saved. Run 2: the clean prompt with
only the receivers' saved q / k / v patched in (all positions), all else recomputed; LD of run 2,
normalised as above. Receivers are query heads; for k and v the unit is the receiver's KV group
(every query head sharing its key/value head gets the patched key/value, so the columns of one
group are equal). Receivers in a layer <= the sender's get NaN.

Tensors (F32 unless said; [L, H] = layers x query heads; flattened head index l*H + h):
    clean_ids, corrupted_ids  I64 [n]
    ld                        [2]  LD_clean, LD_corr
    {denoise,noise}_head      [L, H]        and _ld (raw LD_patched, same shape)
    {denoise,noise}_head_pos  [L, H, n]     and _ld
    {denoise,noise}_resid     [L, n]        and _ld
    {denoise,noise}_attn_out  [L, n]        and _ld
    {denoise,noise}_mlp_out   [L, n]        and _ld
    path_{q,k,v}              [L*H, L*H]    row sender, column receiver alone; and _ld
    path_{q,k,v}_later        [L*H]         sender -> every head of every later layer at once
                                            (NaN for last-layer senders); and _later_ld
Metadata: case, model_type, input, target, distractor, metric_position, corrupted_positions (a
JSON list), shift, corruption_rule, metric_rule, kv_rule, min_gap, compute_dtype, and the float64
gaps normalised_gap_vs_float64 and ld_rel_gap_vs_float64.

Run-time checks (a failure ends the run): patching nothing gives LD_corr (denoise) and LD_clean
(noise) exactly; resid at layer 0 at every position gives exactly 1 (denoise) and 0 (noise);
path patching with the sender's z taken from the clean run saves q / k / v bit-identical to the
clean run's and gives LD_clean exactly; the float32 pass agrees with a float64 one within
NORM_FP64 on every normalised value and within LD_FP64_RTOL of max(|LD64|, |LD_clean64|,
|LD_corr64|) on every raw LD, with the same a, b and NaN cells.
"""

import os
import sys

# OpenBLAS's float32 sums depend on how many threads it runs (a process that imported numpy
# first gets other last bits than a fresh one): one thread, set before torch loads the BLAS,
# gives the same numbers in every process, which the exact identities below rely on.
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patching_hooks as ph  # noqa: E402
import st_io  # noqa: E402

CASES = ("gpt2_f32", "llama_gqa2_headdim_bf16", "gemma2_window_softcap_f32",
         "gptneox_parallel_f16", "bert_f32")
INPUT = 1
DIRECTIONS = ("denoise", "noise")
# Per-position activation sites: (output key, patch hook site), both [n, hidden] rows.
ROW_SITES = (("resid", "resid_pre"), ("attn_out", "attn_out"), ("mlp_out", "mlp_out"))
PATH_SITES = ("q", "k", "v")
NORM_FP64 = 1e-5
LD_FP64_RTOL = 1e-4


class Runs:
    """One case in one dtype: the model, both prompts, their recorded passes (logits and every
    hook site), m, a, b and the two LDs; ld(ids, replace) runs one patched pass."""

    def __init__(self, model, clean_ids, corr_ids, a, b):
        self.model, self.clean_ids, self.corr_ids, self.a, self.b = model, clean_ids, corr_ids, a, b
        self.n, self.m = len(clean_ids), len(clean_ids) - 1
        self.clean_logits, self.clean = model.record(clean_ids)
        self.corr_logits, self.corr = model.record(corr_ids)
        self.ld_clean = ph.logit_diff(self.clean_logits, self.m, a, b)
        self.ld_corr = ph.logit_diff(self.corr_logits, self.m, a, b)
        self.layers, self.heads, self.group = model.shape(self.clean)

    def ld(self, ids, replace, record=False):
        hooks = ph.Hooks(replace, record)
        value = ph.logit_diff(self.model.run(ids, hooks), self.m, self.a, self.b)
        return (value, hooks.saved) if record else value

    def base_and_source(self, direction):
        """(ids of the run patched, recorded pass the patches come from)."""
        if direction == "denoise":
            return self.corr_ids, self.clean
        return self.clean_ids, self.corr

    def normalised(self, ld):
        return ph.normalised(ld, self.ld_clean, self.ld_corr)


def nan_tensor(*shape):
    return torch.full(shape, math.nan, dtype=torch.float64)


def activation_sweep(r, direction):
    """{key: raw LD [shape]} of every single-site patch of one direction (module docstring)."""
    ids, src = r.base_and_source(direction)
    L, H, n = r.layers, r.heads, r.n
    out = {"head": nan_tensor(L, H), "head_pos": nan_tensor(L, H, n)}
    out.update({key: nan_tensor(L, n) for key, _ in ROW_SITES})
    for layer in range(L):
        z = src[(layer, "z")]
        for h in range(H):
            out["head"][layer, h] = r.ld(ids, {(layer, "z"): ph.take(z, (h,))})
            for p in range(n):
                out["head_pos"][layer, h, p] = r.ld(ids, {(layer, "z"): ph.take(z, (h, p))})
        for key, site in ROW_SITES:
            for p in range(n):
                out[key][layer, p] = r.ld(ids, {(layer, site): ph.take(src[(layer, site)], (p,))})
    return out


def run1(r, sender, source=None, freeze=True, freeze_mlp=False):
    """Path patching's run 1 for sender (layer, head): {(layer, site): tensor} of the clean
    prompt with the sender's z from `source` (default: the corrupted pass) and every other
    head's z frozen to the clean pass's. freeze=False (only the sender patched) and
    freeze_mlp=True (MLP outputs frozen as well) are misreadings, for the self-test."""
    ls, hs = sender
    source = r.corr if source is None else source
    replace = {}
    if freeze:
        for layer in range(r.layers):
            z = r.clean[(layer, "z")].clone()
            if layer == ls:
                z[hs] = source[(layer, "z")][hs]
            replace[(layer, "z")] = ph.take(z, (slice(None),))
    else:
        replace[(ls, "z")] = ph.take(source[(ls, "z")], (hs,))
    if freeze_mlp:
        for layer in range(r.layers):
            replace[(layer, "mlp_out")] = ph.take(r.clean[(layer, "mlp_out")], (slice(None),))
    return r.ld(r.clean_ids, replace, record=True)[1]


def receiver_heads(r, site, h, per_query_kv=False):
    """Query heads a q / k / v patch of receiver h covers: h alone for q, h's KV group for k and
    v (per_query_kv=True: h alone, the counterfactual the model cannot produce)."""
    if site == "q" or per_query_kv:
        return [h]
    g = h // r.group
    return list(range(g * r.group, (g + 1) * r.group))


def run2(r, saved, receivers, site):
    """LD of the clean prompt with `site` of receivers [(layer, [heads])] from run 1's `saved`."""
    return r.ld(r.clean_ids, {(layer, site): ph.take(saved[(layer, site)], (heads,))
                              for layer, heads in receivers})


def path_sweep(r, per_query_kv=False, **run1_options):
    """{site: raw LD [L*H, L*H], site + "_later": raw LD [L*H]} (module docstring)."""
    L, H = r.layers, r.heads
    out = {}
    for site in PATH_SITES:
        out[site], out[site + "_later"] = nan_tensor(L * H, L * H), nan_tensor(L * H)
    for ls in range(L - 1):  # a last-layer sender has no receiver
        for hs in range(H):
            saved = run1(r, (ls, hs), **run1_options)
            for site in PATH_SITES:
                done = {}  # a KV group's receivers share one run
                for lr in range(ls + 1, L):
                    for hr in range(H):
                        heads = receiver_heads(r, site, hr, per_query_kv)
                        key = (lr, tuple(heads))
                        if key not in done:
                            done[key] = run2(r, saved, [(lr, heads)], site)
                        out[site][ls * H + hs, lr * H + hr] = done[key]
                later = [(lr, list(range(H))) for lr in range(ls + 1, L)]
                out[site + "_later"][ls * H + hs] = run2(r, saved, later, site)
    return out


def fail(case, what):
    raise SystemExit(f"patching_reference: {case}: {what}")


def check_identities(case, r):
    """The exact identities of the module docstring's run-time checks; returns their count."""
    everything = (slice(None),)
    checks = [
        ("patching nothing (denoise) gives LD_corr", r.ld(r.corr_ids, {}), r.ld_corr),
        ("patching nothing (noise) gives LD_clean", r.ld(r.clean_ids, {}), r.ld_clean),
        ("resid layer 0, all positions (denoise) gives LD_clean",
         r.ld(r.corr_ids, {(0, "resid_pre"): ph.take(r.clean[(0, "resid_pre")], everything)}),
         r.ld_clean),
        ("resid layer 0, all positions (noise) gives LD_corr",
         r.ld(r.clean_ids, {(0, "resid_pre"): ph.take(r.corr[(0, "resid_pre")], everything)}),
         r.ld_corr),
    ]
    for what, got, want in checks:
        if got != want:
            fail(case, f"{what}: {got!r} != {want!r}")
    if r.normalised(checks[2][1]) != 1.0 or r.normalised(checks[3][1]) != 0.0:
        fail(case, "resid layer 0 at every position does not normalise to exactly 1 / 0")
    return len(checks) + check_clean_sender(case, r)


def check_clean_sender(case, r):
    """Path patching with each sender's z from the clean run: run 1's q / k / v are the clean
    run's bit for bit, and run 2 over every later layer gives LD_clean exactly."""
    count = 0
    for ls in range(r.layers - 1):
        for hs in range(r.heads):
            saved = run1(r, (ls, hs), source=r.clean)
            later = [(lr, list(range(r.heads))) for lr in range(ls + 1, r.layers)]
            for site in PATH_SITES:
                for lr, _ in later:
                    if not torch.equal(saved[(lr, site)], r.clean[(lr, site)]):
                        fail(case, f"sender L{ls}H{hs} from the clean run changes {site} of "
                                   f"layer {lr}")
                got = run2(r, saved, later, site)
                if got != r.ld_clean:
                    fail(case, f"sender L{ls}H{hs} from the clean run: path {site} LD {got!r} "
                               f"!= LD_clean {r.ld_clean!r}")
                count += 1
    return count


def sweep_all(r):
    """{output name without the _ld suffix: raw LD tensor} of every sweep in one dtype."""
    raw = {}
    for direction in DIRECTIONS:
        for key, value in activation_sweep(r, direction).items():
            raw[f"{direction}_{key}"] = value
    for key, value in path_sweep(r).items():
        raw[f"path_{key}"] = value
    return raw


def fp64_gaps(case, r32, r64, raw32, raw64):
    """(max |normalised32 - normalised64|, max raw-LD relative gap); fails beyond tolerance."""
    if (r64.a, r64.b) != (r32.a, r32.b):
        fail(case, "float64 picks another target / distractor")
    scale = max(abs(r64.ld_clean), abs(r64.ld_corr))
    norm_gap, ld_gap = 0.0, 0.0
    for key, v32 in raw32.items():
        v64 = raw64[key]
        if not torch.equal(v32.isnan(), v64.isnan()):
            fail(case, f"{key}: float32 and float64 disagree on the NaN cells")
        ok = ~v32.isnan()
        n32, n64 = r32.normalised(v32[ok]), r64.normalised(v64[ok])
        norm_gap = max(norm_gap, (n32 - n64).abs().max().item())
        rel = (v32[ok] - v64[ok]).abs() / torch.clamp(v64[ok].abs(), min=scale)
        ld_gap = max(ld_gap, rel.max().item())
    if not norm_gap <= NORM_FP64:
        fail(case, f"float32 normalised metrics off float64 by {norm_gap:.2e} > {NORM_FP64}")
    if not ld_gap <= LD_FP64_RTOL:
        fail(case, f"float32 raw LD off float64 by {ld_gap:.2e} relative > {LD_FP64_RTOL}")
    return norm_gap, ld_gap


def prepare(folder, entry, tensors, dtype=torch.float32):
    """(Runs in dtype, shift, margin): picks the corruption on a float32 pass (module
    docstring), then records both prompts in `dtype` with float32's a and b."""
    model32 = ph.Model(folder, tensors, torch.float32)
    ids = entry["inputs"][INPUT]
    ordinary = ph.ordinary_ids(folder, model32.cfg)
    corr, shift, a, b, _, _, margin = ph.pick_corruption(model32, ids, ordinary,
                                                         model32.run(ids))
    model = model32 if dtype == torch.float32 else ph.Model(folder, tensors, dtype)
    return Runs(model, ids, corr, a, b), shift, margin


def outputs(r, raw):
    """The tensors of patching_1.safetensors from the float32 runs and their raw LDs."""
    out = {"clean_ids": torch.tensor(r.clean_ids, dtype=torch.int64),
           "corrupted_ids": torch.tensor(r.corr_ids, dtype=torch.int64),
           "ld": torch.tensor([r.ld_clean, r.ld_corr], dtype=torch.float32)}
    for key, value in raw.items():
        out[key] = r.normalised(value).float().contiguous()
        out[key + "_ld"] = value.float().contiguous()
    return out


def run_case(root, entry):
    """Both dtypes, the checks and patching_1.safetensors of one manifest entry; returns the
    report's facts."""
    case, folder = entry["case"], os.path.join(root, entry["case"])
    tensors = st_io.load_checkpoint(folder)
    r32, shift, margin = prepare(folder, entry, tensors)
    checks = check_identities(case, r32)
    raw32 = sweep_all(r32)
    r64 = Runs(ph.Model(folder, tensors, torch.float64), r32.clean_ids, r32.corr_ids,
               r32.a, r32.b)
    checks += check_identities(case + " (float64)", r64)
    norm_gap, ld_gap = fp64_gaps(case, r32, r64, raw32, sweep_all(r64))
    meta = {"case": case, "model_type": entry["model_type"], "input": str(INPUT),
            "target": str(r32.a), "distractor": str(r32.b), "metric_position": str(r32.m),
            "corrupted_positions": json.dumps(ph.corrupted_positions(r32.n)),
            "shift": str(shift), "corruption_rule": ph.CORRUPTION_RULE,
            "metric_rule": ph.METRIC_RULE, "kv_rule": ph.KV_RULE, "min_gap": str(ph.MIN_GAP),
            "compute_dtype": "float32", "normalised_gap_vs_float64": f"{norm_gap:.3e}",
            "ld_rel_gap_vs_float64": f"{ld_gap:.3e}"}
    st_io.save_file(outputs(r32, raw32), os.path.join(folder, f"patching_{INPUT}.safetensors"),
                    meta)
    return dict(r=r32, raw=raw32, shift=shift, margin=margin, checks=checks, norm_gap=norm_gap,
                ld_gap=ld_gap, runs=r32.model.runs + r64.model.runs)


def report(case, facts, seconds):
    r, raw = facts["r"], facts["raw"]
    head = r.normalised(raw["denoise_head"])
    top = int(torch.argmax(head.abs()))
    print(f"  {case:<26} n={r.n} corrupt@{ph.corrupted_positions(r.n)} s={facts['shift']} "
          f"a={r.a} b={r.b} LD clean/corr={r.ld_clean:+.4f}/{r.ld_corr:+.4f} "
          f"margin={facts['margin']:.1e} top denoise head L{top // r.heads}H{top % r.heads}="
          f"{head.flatten()[top]:+.4f} identities={facts['checks']} runs={facts['runs']} "
          f"fp64 norm={facts['norm_gap']:.1e} ld={facts['ld_gap']:.1e} {seconds:.1f} s")


def run(out_dir, only=None):
    """Every case of CASES in OUT/checkpoints/manifest.json (or those in `only`)."""
    torch.set_num_threads(1)
    start = time.monotonic()
    root = os.path.join(out_dir, "checkpoints")
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = {e["case"]: e for e in json.load(f)}
    missing = [c for c in only or CASES if c not in manifest]
    if missing:
        raise SystemExit(f"patching_reference: cases not in the manifest: {missing}")
    for case in only or CASES:
        t0 = time.monotonic()
        try:
            facts = run_case(root, manifest[case])
        except ValueError as e:
            fail(case, str(e))
        report(case, facts, time.monotonic() - t0)
    print(f"patching: {len(only or CASES)} cases, {time.monotonic() - start:.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="folder holding checkpoints/manifest.json")
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    args = parser.parse_args()
    run(args.dir, args.case)


if __name__ == "__main__":
    main()
