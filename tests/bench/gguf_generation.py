"""The generation benchmark of gguf_bench.py (`--generate`, issue 34): greedy KV-cached decoding
of the same GGUF file by AttnScope (forward/generation.h through `forward_bench --serve`, every
step's attention row of every head recorded, as the product must) and by llama.cpp
(node-llama-cpp through `llama_peer.mjs serve`, one token at a time against its KV cache), the
same prompt ids, the same number of tokens and the same thread count, interleaved by round.

Each generation is timed per token on both sides: the first interval is the prompt pass (one
batch, plus the first token's LM head and choice), every later one a decode step (the previous
token alone through the layers against the cache, the LM head, the greedy choice). Reported per
file and thread count: the medians (min–max) of all decode steps of all rounds and of the prompt
passes; the ratio, paired by round (median of AttnScope's steps in the round / median of
llama.cpp's), its median over rounds against issue 34's target (≤ 1.2); and whether both
generated the same tokens.
"""

import json
import statistics
import time

import bench_report
from bench_report import fmt_mib, fmt_ms
from run_forward_bench import IDLE_BETWEEN_PROGRAMS_S, token_ids

TARGET_RATIO = 1.2  # issue 34: a generation step within 1.2× of llama.cpp's per-token decode
NAMES = {"attnscope": "AttnScope", "llama.cpp": "llama.cpp"}


def generate(worker, prompt, steps, threads, repeats=1, warmup=0):
    """One serve request: `repeats` timed greedy generations of `steps` tokens after `prompt`."""
    worker.proc.stdin.write(json.dumps({
        "generate": prompt, "steps": steps, "threads": threads, "repeats": repeats,
        "warmup": warmup}) + "\n")
    worker.proc.stdin.flush()
    line = worker.proc.stdout.readline()
    if not line:
        raise RuntimeError(f"{worker.name} died (see the log)")
    reply = json.loads(line)
    if "error" in reply:
        raise RuntimeError(f"{worker.name}: {reply['error']}")
    return reply


def run(workers, path_info, threads, args):
    """Both workers loaded: one untimed generation each, then --rounds rounds in alternating
    order (A B, B A, ...), one timed generation per program and round. Returns one row."""
    prompt = token_ids(args.prompt, path_info["vocab"])
    steps = args.decode + 1  # the first token comes from the prompt pass
    for w in workers:
        generate(w, prompt, steps, threads)
        time.sleep(IDLE_BETWEEN_PROGRAMS_S)
    rounds = {w.name: [] for w in workers}
    for r in range(args.rounds):
        for w in (workers if r % 2 == 0 else workers[::-1]):
            rounds[w.name].append(generate(w, prompt, steps, threads))
            time.sleep(IDLE_BETWEEN_PROGRAMS_S)
    memory = {w.name: w.memory_kb() for w in workers}
    row = make_row(path_info, threads, rounds, memory, args)
    print_row(row)
    return row


def make_row(path_info, threads, rounds, memory, args):
    """rounds: {program: [reply per round]} (prompt_ms, step_ms: one list per generation)."""
    programs = {}
    for p, replies in rounds.items():
        steps = [[t for gen in rep["step_ms"] for t in gen] for rep in replies]
        prompts = [t for rep in replies for t in rep["prompt_ms"]]
        programs[p] = {"step_ms_by_round": steps, "prompt_ms": prompts,
                       "step": bench_report.summarize([t for s in steps for t in s]),
                       "prompt": bench_report.summarize(prompts),
                       "tokens": [rep.get("tokens", []) for rep in replies],
                       "vmhwm_kb": memory[p].get("VmHWM")}
    row = {"mode": "generate", "type": path_info["type"], "threads": threads,
           "prompt_n": args.prompt, "decode_steps": args.decode, "programs": programs}
    if len(programs) == 2:
        ours, peer = programs["attnscope"], programs["llama.cpp"]
        row["paired_ratios"] = [statistics.median(a) / statistics.median(b)
                                for a, b in zip(ours["step_ms_by_round"], peer["step_ms_by_round"])]
        row["ratio_median"] = statistics.median(row["paired_ratios"])
        row["prompt_ratio"] = ours["prompt"]["median"] / peer["prompt"]["median"]
        row["parity"] = parity(ours["tokens"], peer["tokens"])
    return row


def parity(ours, peer):
    """Whether every round's tokens agree; else the first step where one round's differ."""
    for a, b in zip(ours, peer):
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            return {"same": False, "first_difference": at, "ours": a, "llama.cpp": b}
    return {"same": True, "tokens": ours[0] if ours else []}


def print_row(row):
    p = row["programs"]
    parts = [f"{row['type']:<6} t={row['threads']} prompt {row['prompt_n']} + "
             f"{row['decode_steps']} steps"]
    parts += [f"{n} step {fmt_ms(p[x]['step'])} ms, prompt {fmt_ms(p[x]['prompt'])} ms"
              for x, n in NAMES.items() if x in p]
    if "ratio_median" in row:
        parts.append(f"ours/llama.cpp per step {row['ratio_median']:.2f}, "
                     f"same tokens: {'yes' if row['parity']['same'] else 'NO'}")
    print("  " + " | ".join(parts), flush=True)


def header(result):
    m, s, cfg = result["machine"], result["shape"], result["settings"]
    flags = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in m["flags"].items())
    peer = next((x for x in result["loads"] if x["program"] == "llama.cpp"), None)
    lines = [
        "# GGUF generation benchmark: AttnScope's KV-cached generator against llama.cpp's decoding",
        "",
        f"- Machine: {m['cpu']} ({m['cpu_family_model']}), {m['cpus']} vCPUs, "
        f"{m['mem_total_gib']:.1f} GiB; {flags}.",
        f"- {m['time_utc']} UTC, {m['wall_s']} s; load average {m['loadavg_start']:.2f} at the "
        f"start, {m['loadavg_end']:.2f} at the end.",
        f"- Model: Llama-3 `{s['name']}` shape, {s['layers']} layers, width {s['hidden']}, "
        f"{s['heads']} heads over {s['kv_heads']} key/value heads, SwiGLU {s['ffn']}, "
        f"vocabulary {s['vocab']}, {'tied' if s['tied'] else 'untied'} output; random weights.",
        f"- Greedy, prompt of {cfg['prompt']} random ids (the same for both), then "
        f"{cfg['decode']} decode steps; {cfg['rounds']} round(s), one generation per program "
        "and round, interleaved.",
        "- AttnScope: `forward::generate` (prompt pass, then one row per step against its fp32 "
        "KV cache), every step's attention row of every layer × head and its entropies "
        "recorded, the LM head's logits kept, the greedy choice and its probability.",
        "- llama.cpp: " + (f"node-llama-cpp {peer.get('node_llama_cpp')}, "
                           "`sequence.evaluate(prompt, {temperature: 0})`: the prompt in one "
                           "batch, then each token alone against the KV cache "
                           f"({peer.get('kv_type')}), flash attention "
                           f"{'on' if peer.get('flash_attention') else 'off'}."
                           if peer else "not run."),
        "- A step's time: from one token to the next (layers, LM head, choice); the first "
        "interval (the prompt pass) is reported apart. Ratio: the median over rounds of "
        "median(AttnScope's steps in the round) / median(llama.cpp's); < 1: AttnScope faster.",
    ]
    if m["loadavg_start"] > 1.5 or m["loadavg_end"] > 1.5:
        lines += ["", "**The machine was busy (load average above 1.5): timings are noisy.**"]
    return lines


def table(rows):
    lines = ["| file | t | decode step ms AttnScope | llama.cpp | ours/llama.cpp (paired) "
             "| tokens/s ours / llama.cpp | prompt pass ms AttnScope | llama.cpp | prompt ratio "
             "| same greedy tokens | peak RSS MiB ours / llama.cpp |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|"]
    for row in rows:
        p = row["programs"]
        step = [fmt_ms(p.get(x, {}).get("step")) for x in NAMES]
        prompt = [fmt_ms(p.get(x, {}).get("prompt")) for x in NAMES]
        rate = " / ".join(f"{1e3 / p[x]['step']['median']:.1f}" if x in p else "—"
                          for x in NAMES)
        rss = " / ".join(fmt_mib(p.get(x, {}).get("vmhwm_kb")) for x in NAMES)
        same = row.get("parity")
        same = "—" if same is None else ("yes" if same["same"] else
                                         f"no, from step {same['first_difference']}")
        ratio = f"{row['ratio_median']:.2f}" if "ratio_median" in row else "—"
        pr = f"{row['prompt_ratio']:.2f}" if "prompt_ratio" in row else "—"
        lines.append(f"| {row['type']} | {row['threads']} | {step[0]} | {step[1]} | {ratio} "
                     f"| {rate} | {prompt[0]} | {prompt[1]} | {pr} | {same} | {rss} |")
    return lines


def markdown(result):
    rows = result["rows"]
    md = header(result) + ["", "Medians (min–max) of all decode steps (all rounds), ms.", ""]
    md += table(rows)
    per_round = [f"{r['type']} t={r['threads']}: "
                 + ", ".join(f"{x:.2f}" for x in r.get("paired_ratios", [])) for r in rows]
    md += ["", "Paired ratios per round: " + "; ".join(per_round), ""]
    md += ["Issue 34's target (a generation step within 1.2× of llama.cpp's per-token decode):",
           ""]
    md += [f"- {r['type']} t={r['threads']}: {r['ratio_median']:.2f} "
           f"{'met' if r['ratio_median'] <= TARGET_RATIO else 'MISSED'}"
           for r in rows if "ratio_median" in r]
    md += [f"\nNote: {note}" for note in result["notes"]]
    return "\n".join(md) + "\n"
