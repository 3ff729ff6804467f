#!/usr/bin/python3
"""Independent reference of attention while generating (methods.md §12.5): greedy decoding by
FULL forward passes (no KV cache; the C++ generator caches, and that independence is the point),
plus llama.cpp's sampling filters on the first step's logits. Never written from AttnScope's C++.

Usage: generation_reference.py --dir DIR        (DIR holds checkpoints/manifest.json)

For each case of CASES, with prompt = the manifest entry's inputs[INPUT] (n tokens) and
S = min(MAX_STEPS, max_position_embeddings - n) steps (GPT-2: n_positions), step s (0-based)
runs torch_reference.forward on prompt + the s tokens generated so far (length n + s), takes the
last position's output logits (the model's own lm_logits: after Gemma 2's final soft-cap),
picks the argmax (ties: the lowest id) and records that position's attention row of every
layer x query head over its n + s keys. Writes checkpoints/<case>/generation_1.safetensors:
    prompt_ids   I64 [n]
    generated    I64 [S]              the greedy tokens
    chosen_prob  F32 [S]              softmax(logits)[chosen]: temperature 1, no filter
    top_logits   F32 [S, vocab]       the last position's logits at each step
    rows         F32 [S, L, H, n+S-1] step s on keys 0..n+s-1, 0 beyond (H = query heads)
    rows_valid   I64 [S]              n + s
    sample_dist  F32 [3, vocab]       step 0's final sampling distribution for each setting of
                                      SETTINGS (0 for removed tokens)
Metadata: case, model_type, input, steps, tie_rule, positions, sampler_chain, sampler_source,
sample_settings (JSON list), chosen_prob_rule, compute_dtype, max_abs_diff_vs_float64 (rows),
logits_gap_vs_float64, greedy_margin (the smallest top-1 minus top-2 logit over the steps),
step0_check (what step 0 was compared with).

Positions: every case numbers its tokens 0..n+s-1 and none of them changes its position
handling with the total length, so a KV-cached step sees exactly these rows. (Phi-3 longrope
would not: it switches factors for every position once a pass is longer than
original_max_position_embeddings, while a cached key keeps its old rotation; it is no case here.)

Sampler chain (llama.cpp, ggml-org/llama.cpp): common/common.h `common_params_sampling::samplers`
defaults to penalties, dry, top_n_sigma, top_k, typical_p, top_p, min_p, xtc, temperature, and
common/sampling.cpp `common_sampler_init` adds them in that order to a `llama_sampler_chain`,
then `llama_sampler_init_dist` last. With every other filter off (penalties 1, dry 0,
top_n_sigma -1, typical_p 1, min_p 0 -- note llama.cpp's own default min_p is 0.05 -- xtc 0),
the chain is top_k -> top_p -> temperature -> dist. From src/llama-sampling.cpp:
  top_k (`llama_sampler_top_k_impl`): k <= 0 is off; else keep the k largest logits (sorted
    descending; ties: llama.cpp's std::partial_sort is not stable, here the lowest id first,
    and a tie at the cut fails the run);
  top_p (`llama_sampler_top_p_apply`): p >= 1 is off; else softmax over the CURRENT candidates
    (after top-k, before temperature), sorted descending, keep the smallest prefix whose
    cumulative sum >= p and at least min_keep (common passes min_keep 0; 1 is the same here,
    the first token always stays);
  temperature (`llama_sampler_temp_impl`, via temp_ext with dynatemp_range 0): logits / t
    (t <= 0 keeps only the largest logit);
  dist (`llama_sampler_dist_apply`): softmax over what is left -> the distribution written.
Computed in float64 from the float32 logits; llama.cpp uses float32 (differences ~1e-7).

Run-time checks (else the run fails): a float64 generation picks the same tokens and its rows
are within ROWS_FP64 of the float32 ones; no step's greedy choice is a near-tie (top-1 minus
top-2 logit < NEAR_TIE, where float32 and float64 could pick differently); every row sums to 1
within ROW_SUM; the step-0 rows and logits equal the last row of the plain forward over the
prompt (reference_1.safetensors when torch_reference.py wrote it, else a separate forward) within
STEP0; each sampling distribution sums to 1, agrees with the float64 logits' within ROWS_FP64,
and no top-k / top-p cut is within NEAR_TIE of flipping.
"""

import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_io  # noqa: E402
import torch_reference  # noqa: E402

CASES = ("gpt2_f32", "llama_gqa2_headdim_bf16", "gemma2_window_softcap_f32",
         "qwen3_gqa_qknorm_f32", "gptneox_parallel_f16")
INPUT = 1
MAX_STEPS = 6
ROWS_FP64 = 1e-5
NEAR_TIE = 1e-4
ROW_SUM = 1e-5
STEP0 = 1e-6
# (temperature, top_k, top_p); top_k 0 = off, top_p 1.0 = off.
SETTINGS = ((0.8, 5, 0.9), (1.5, 0, 0.5), (1.0, 3, 1.0))
CHAIN = ("top_k", "top_p", "temperature")
CHAIN_TEXT = "top_k -> top_p -> temperature -> dist"
SAMPLER_SOURCE = ("ggml-org/llama.cpp common/common.h common_params_sampling::samplers, "
                  "common/sampling.cpp common_sampler_init, src/llama-sampling.cpp "
                  "llama_sampler_top_k_impl / llama_sampler_top_p_apply / "
                  "llama_sampler_temp_impl / llama_sampler_dist_apply")
TIE_RULE = "argmax of the last position's logits; ties to the lowest token id"


def fail(case, what):
    raise SystemExit(f"generation_reference: {case}: {what}")


def max_positions(cfg):
    """The model's usable positions: max_position_embeddings, or GPT-2's n_positions."""
    text = cfg.get("text_config", cfg)
    for key in ("max_position_embeddings", "n_positions"):
        if key in text:
            return int(text[key])
    raise KeyError("config.json has neither max_position_embeddings nor n_positions")


def steps_for(folder, n):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        return min(MAX_STEPS, max_positions(json.load(f)) - n)


def greedy(logits):
    """(id, margin): the argmax of logits [vocab], ties to the lowest id, and the gap between
    the largest logit and the largest of the other ids (0 on a tie)."""
    best = logits.max()
    chosen = int(torch.nonzero(logits == best)[0])
    others = torch.cat([logits[:chosen], logits[chosen + 1:]])
    return chosen, (best - others.max()).item()


def generate(folder, tensors, prompt, steps, dtype):
    """Greedy decoding by full passes (no cache). Returns dict: generated (list of S ids),
    logits [S, vocab], rows (list of S tensors [L, H, n+s]), margins (list of S floats)."""
    ids, logits, rows, margins = list(prompt), [], [], []
    for _ in range(steps):
        probs, _, _, _, lm = torch_reference.forward(folder, ids, dtype, tensors)
        if lm is None:
            raise ValueError(f"{folder}: the checkpoint has no LM head")
        token, margin = greedy(lm[-1])
        logits.append(lm[-1])
        rows.append(probs[:, :, -1, :])
        margins.append(margin)
        ids.append(token)
    return dict(generated=ids[len(prompt):], logits=torch.stack(logits), rows=rows,
                margins=margins)


def padded_rows(rows, n):
    """[S, L, H, n+S-1]: step s on keys 0..n+s-1, zero beyond."""
    steps = len(rows)
    out = torch.zeros(steps, *rows[0].shape[:2], n + steps - 1, dtype=rows[0].dtype)
    for s, row in enumerate(rows):
        out[s, ..., :n + s] = row
    return out


# --- llama.cpp's filters on candidates kept sorted by logit descending (ties: lowest id) ---

def sorted_candidates(logits):
    """(ids, logits) of every token, float64, sorted descending; stable, so ties keep id order."""
    z = logits.double()
    order = torch.sort(z, descending=True, stable=True).indices
    return order, z[order]


def top_k(cand, k, cuts):
    ids, z = cand
    if k <= 0 or k >= len(ids):
        return cand
    cuts.append(("top_k", (z[k - 1] - z[k]).item()))
    return ids[:k], z[:k]


def top_p(cand, p, cuts, min_keep=1):
    """Smallest prefix whose softmax (over the current candidates) sums to >= p."""
    ids, z = cand
    if p >= 1.0:
        return cand
    cum = torch.cumsum(torch.softmax(z, dim=0), dim=0)
    reached = torch.nonzero(cum >= p)
    last = max(int(reached[0]) if len(reached) else len(ids) - 1, min_keep - 1)
    margin = (cum[last] - p).item()
    if last > 0:
        margin = min(margin, (p - cum[last - 1]).item())
    cuts.append(("top_p", margin))
    return ids[:last + 1], z[:last + 1]


def temperature(cand, t, cuts):
    ids, z = cand
    if t <= 0:
        return ids[:1], z[:1]
    return ids, z / t


def sample_distribution(logits, setting, order=CHAIN, cuts=None):
    """[vocab] float64: the filters of `order` (names from CHAIN) applied to logits [vocab] with
    setting (temperature, top_k, top_p), then dist's softmax over what is left, 0 elsewhere.
    cuts: None, or a list that gets (filter, margin) for each top-k / top-p cut."""
    t, k, p = setting
    cuts = [] if cuts is None else cuts
    filters = {"top_k": lambda c: top_k(c, k, cuts), "top_p": lambda c: top_p(c, p, cuts),
               "temperature": lambda c: temperature(c, t, cuts)}
    cand = sorted_candidates(logits)
    for name in order:
        cand = filters[name](cand)
    ids, z = cand
    out = torch.zeros(logits.shape[0], dtype=torch.float64)
    out[ids] = torch.softmax(z, dim=0)
    return out


def sample_dists(case, logits32, logits64):
    """[3, vocab] for SETTINGS from step 0's float32 logits, checked against the float64 ones
    and for near-ties at the cuts; returns (dists, support sizes, worst fp64 gap)."""
    dists, sizes, gap = [], [], 0.0
    for setting in SETTINGS:
        cuts = []
        d = sample_distribution(logits32, setting, cuts=cuts)
        d64 = sample_distribution(logits64, setting)
        for name, margin in cuts:
            if not margin >= NEAR_TIE:
                fail(case, f"sampling {setting}: the {name} cut is a near-tie ({margin:.1e})")
        if abs(d.sum().item() - 1.0) > 1e-9:
            fail(case, f"sampling {setting}: the distribution sums to {d.sum().item()}")
        gap = max(gap, (d - d64).abs().max().item())
        dists.append(d)
        sizes.append(int((d > 0).sum()))
    if not gap <= ROWS_FP64:
        fail(case, f"sampling distributions off float64 by {gap:.2e}")
    return torch.stack(dists).float(), sizes, gap


def plain_step0(folder, tensors, prompt):
    """(attention rows [L, H, n], logits [vocab], what they came from) of the plain forward over
    the prompt: reference_<INPUT>.safetensors when present, else a separate forward."""
    path = os.path.join(folder, f"reference_{INPUT}.safetensors")
    if os.path.exists(path):
        ref = st_io.load_file(path)
        if ref["input_ids"].tolist() == list(prompt) and "lm_logits" in ref:
            return ref["attention"][:, :, -1, :], ref["lm_logits"][-1], os.path.basename(path)
    probs, _, _, _, lm = torch_reference.forward(folder, list(prompt), torch.float32, tensors)
    return probs[:, :, -1, :], lm[-1], "a separate forward"


def checked_generation(case, folder, tensors, prompt, steps):
    """Both generations and the run-time checks; returns (float32 generation, gaps dict)."""
    g32 = generate(folder, tensors, prompt, steps, torch.float32)
    g64 = generate(folder, tensors, prompt, steps, torch.float64)
    margin = min(g64["margins"])
    if not margin >= NEAR_TIE:
        step = g64["margins"].index(margin)
        fail(case, f"step {step}: greedy near-tie, top-1 minus top-2 logit {margin:.1e} < "
                   f"{NEAR_TIE} (float32 and float64 may pick differently)")
    if g32["generated"] != g64["generated"]:
        fail(case, f"float32 picks {g32['generated']}, float64 {g64['generated']}")
    gaps = {"margin": margin,
            "fp64": max((a.double() - b).abs().max().item()
                        for a, b in zip(g32["rows"], g64["rows"])),
            "logits_fp64": (g32["logits"].double() - g64["logits"]).abs().max().item(),
            "row_sum": max((r.sum(dim=-1) - 1).abs().max().item() for r in g32["rows"])}
    if not gaps["fp64"] <= ROWS_FP64:
        fail(case, f"float32 rows off float64 by {gaps['fp64']:.2e} > {ROWS_FP64}")
    if not gaps["row_sum"] <= ROW_SUM:
        fail(case, f"a row sums to 1 +- {gaps['row_sum']:.2e} > {ROW_SUM}")
    rows0, logits0, source = plain_step0(folder, tensors, prompt)
    gaps["step0"] = max((g32["rows"][0] - rows0).abs().max().item(),
                        (g32["logits"][0] - logits0).abs().max().item())
    if not gaps["step0"] <= STEP0:
        fail(case, f"step 0 misses the plain forward ({source}) by {gaps['step0']:.2e}")
    return g32, g64, gaps, source


def case_outputs(gen, prompt):
    """The tensors of generation_1.safetensors (without sample_dist) from a generation."""
    n, logits = len(prompt), gen["logits"].float()
    chosen = torch.tensor(gen["generated"], dtype=torch.int64)
    probs = torch.softmax(logits.double(), dim=-1)
    return {"prompt_ids": torch.tensor(list(prompt), dtype=torch.int64),
            "generated": chosen,
            "chosen_prob": probs[torch.arange(len(chosen)), chosen].float(),
            "top_logits": logits.contiguous(),
            "rows": padded_rows(gen["rows"], n).float().contiguous(),
            "rows_valid": torch.arange(n, n + len(chosen), dtype=torch.int64)}


def metadata(entry, steps, gaps, source):
    settings = [dict(temperature=t, top_k=k, top_p=p) for t, k, p in SETTINGS]
    return {"case": entry["case"], "model_type": entry["model_type"], "input": str(INPUT),
            "steps": str(steps), "tie_rule": TIE_RULE,
            "positions": "0..n+s-1 at step s; no length-dependent position handling",
            "sampler_chain": CHAIN_TEXT, "sampler_source": SAMPLER_SOURCE,
            "sample_settings": json.dumps(settings), "sample_step": "0",
            "chosen_prob_rule": "softmax of the step's logits (temperature 1, no filter)",
            "compute_dtype": "float32", "max_abs_diff_vs_float64": f"{gaps['fp64']:.3e}",
            "logits_gap_vs_float64": f"{gaps['logits_fp64']:.3e}",
            "greedy_margin": f"{gaps['margin']:.3e}", "step0_check": source}


def run_case(root, entry):
    """Generation, checks and generation_1.safetensors of one entry; returns the report line."""
    case, folder = entry["case"], os.path.join(root, entry["case"])
    tensors, prompt = st_io.load_checkpoint(folder), entry["inputs"][INPUT]
    steps = steps_for(folder, len(prompt))
    if steps < 1:
        fail(case, f"no room to generate after {len(prompt)} prompt tokens")
    g32, g64, gaps, source = checked_generation(case, folder, tensors, prompt, steps)
    out = case_outputs(g32, prompt)
    out["sample_dist"], sizes, gaps["sample_fp64"] = sample_dists(case, g32["logits"][0],
                                                                  g64["logits"][0])
    st_io.save_file(out, os.path.join(folder, f"generation_{INPUT}.safetensors"),
                    metadata(entry, steps, gaps, source))
    return (f"n={len(prompt)} S={steps} generated={g32['generated']} "
            f"margin={gaps['margin']:.1e} max|r32-r64|={gaps['fp64']:.1e} "
            f"max|sum-1|={gaps['row_sum']:.1e} step0={gaps['step0']:.1e} "
            f"support={sizes} sample_fp64={gaps['sample_fp64']:.1e}")


def run(out_dir, only=None):
    torch.set_num_threads(1)
    start = time.monotonic()
    root = os.path.join(out_dir, "checkpoints")
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = {e["case"]: e for e in json.load(f)}
    missing = [c for c in CASES if c not in manifest]
    if missing:
        raise SystemExit(f"generation_reference: cases not in the manifest: {missing}")
    for case in only or CASES:
        t0 = time.monotonic()
        line = run_case(root, manifest[case])
        print(f"  {case:<26} {line} {1000 * (time.monotonic() - t0):.0f} ms")
    print(f"generation: {len(only or CASES)} cases, {time.monotonic() - start:.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="folder holding checkpoints/manifest.json")
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    args = parser.parse_args()
    run(args.dir, args.case)


if __name__ == "__main__":
    main()
