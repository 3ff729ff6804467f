"""results.md of the GGUF benchmark (gguf_bench.py): the machine, how it ran, one row per file ×
threads × n, the loads and issue 32's target, from the result gguf_bench.py writes to
results.json."""

from bench_report import fmt_mib, fmt_ms

NAMES = {"attnscope": "AttnScope", "llama.cpp": "llama.cpp"}
TARGET_RATIO = 2.0  # issue 32: the exact mode within 2× of llama.cpp's prompt time


def header(result):
    m, s, cfg = result["machine"], result["shape"], result["settings"]
    flags = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in m["flags"].items())
    peer = next((x for x in result["loads"] if x["program"] == "llama.cpp"), None)
    lines = [
        "# GGUF benchmark: AttnScope (every map recorded) against llama.cpp's prompt processing",
        "",
        f"- Machine: {m['cpu']} ({m['cpu_family_model']}), {m['cpus']} vCPUs, {m['mem_total_gib']:.1f} GiB "
        f"({m['mem_available_gib_start']:.1f} GiB available at the start); {flags}.",
        f"- {m['time_utc']} UTC, {m['wall_s']} s; load average {m['loadavg_start']:.2f} at the "
        f"start, {m['loadavg_end']:.2f} at the end.",
        f"- Model: Llama-3 `{s['name']}` shape, {s['layers']} layers, width {s['hidden']}, "
        f"{s['heads']} heads over {s['kv_heads']} key/value heads, SwiGLU {s['ffn']}, "
        f"vocabulary {s['vocab']}, {'tied' if s['tied'] else 'untied'} output; random weights "
        "(make_big_gguf.py).",
        "- AttnScope: `forward_bench --serve`, `runForward` with every head recorded (logits, "
        "probabilities, entropies, head outputs), weights dequantized exactly as ggml does, fp32 "
        "activations; stops at the final hidden states.",
        "- llama.cpp: " + (f"node-llama-cpp {peer.get('node_llama_cpp')}, `llama_peer.mjs "
                           f"serve`: the n ids in one batch from an empty cache, logits of the "
                           f"last one, greedy sample; KV cache {peer.get('kv_type')}, flash "
                           f"attention {'on' if peer.get('flash_attention') else 'off'}, "
                           f"context {peer.get('context_size')}." if peer else "not run."),
        f"- Same random token ids for both, {cfg['rounds']} round(s); ratio = median over rounds "
        "of median(AttnScope's passes in the round) / median(llama.cpp's); < 1: AttnScope faster.",
        "- GFLOP = 2 × n × matrix parameters (q, k, v, o, gate, up, down of every layer) + layers "
        "× 4 × n² × heads × head_dim; embeddings, norms, softmax, LM heads not counted.",
        "- Peak RSS: each worker's VmHWM (/proc/PID/status) so far, up to that n (llama.cpp's "
        "includes the mapped file's resident pages and node).",
    ]
    for ph in result["phases"]:
        lines.append(f"- {ph['type']}, {ph['threads']} thread(s): {ph['schedule']}"
                     + (f" ({ph['why']})" if ph.get("why") else "")
                     + f"; load average {ph['loadavg_start']:.2f} when it began.")
    if m["loadavg_start"] > 1.5 or m["loadavg_end"] > 1.5:
        lines += ["", "**WARNING: the machine was busy (load average above 1.5): the timings "
                  "are noisy and mean little.**"]
    return lines


def gflops(row, program):
    s = row["programs"].get(program, {}).get("summary")
    return None if s is None else row["gflop"] / (s["median"] / 1e3)


def fmt(value, spec):
    return "—" if value is None else format(value, spec)


def vs_bf16(rows, row):
    """Medians against the BF16 file's at the same t and n (other phases: not paired)."""
    base = next((r for r in rows if r["type"] == "BF16" and r["threads"] == row["threads"]
                 and r["n"] == row["n"]), None)
    if base is None or row["type"] == "BF16":
        return "—"
    cells = []
    for p in NAMES:
        a = row["programs"].get(p, {}).get("summary")
        b = base["programs"].get(p, {}).get("summary")
        cells.append("—" if a is None or b is None else f"{a['median'] / b['median']:.2f}")
    return " / ".join(cells)


def main_table(rows):
    lines = ["| file | t | n | GFLOP | AttnScope ms | llama.cpp ms | ours/llama.cpp (paired) "
             "| GFLOP/s ours / llama.cpp | peak RSS MiB ours / llama.cpp | vs BF16 ours / "
             "llama.cpp |", "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for row in rows:
        p = row["programs"]
        ms = [fmt_ms(p.get(x, {}).get("summary")) for x in NAMES]
        rate = " / ".join(fmt(gflops(row, x), ".1f") for x in NAMES)
        rss = " / ".join(fmt_mib(p.get(x, {}).get("vmhwm_kb")) for x in NAMES)
        lines.append(f"| {row['type']} | {row['threads']} | {row['n']} | {row['gflop']:.1f} "
                     f"| {ms[0]} | {ms[1]} | {fmt(row.get('ratio_median'), '.2f')} | {rate} "
                     f"| {rss} | {vs_bf16(rows, row)} |")
    return lines


def load_table(loads):
    lines = ["| file | t | program | load s (wall) | RSS after load MiB | peak RSS while loading "
             "MiB |", "|---|--:|---|--:|--:|--:|"]
    for x in loads:
        lines.append(f"| {x['type']} | {x['threads']} | {NAMES[x['program']]} "
                     f"| {x['wall_load_s']:.1f} | {fmt_mib(x['rss_after_load_kb'])} "
                     f"| {fmt_mib(x['hwm_after_load_kb'])} |")
    return lines


def targets(rows):
    """Issue 32: on the quantized files, AttnScope's exact mode with every map recorded within
    2× of llama.cpp's prompt processing (the median paired ratio)."""
    out = []
    for row in rows:
        if row["type"] != "BF16" and "ratio_median" in row:
            r = row["ratio_median"]
            out.append(f"- {row['type']} t={row['threads']} n={row['n']}: ours/llama.cpp "
                       f"{r:.2f} (target ≤ {TARGET_RATIO:.1f}) "
                       f"{'met' if r <= TARGET_RATIO else 'MISSED'}")
    return out


def markdown(result):
    rows = result["rows"]
    md = header(result) + ["", "Medians (min–max) of all timed passes, ms.", ""]
    md += main_table(rows)
    md += ["", "Paired ratios per round: " + "; ".join(
        f"{r['type']} t={r['threads']} n={r['n']}: "
        + ", ".join(f"{x:.2f}" for x in r.get("paired_ratios", [])) for r in rows), ""]
    md += ["Loading (not timed above):", ""] + load_table(result["loads"])
    goal = targets(rows)
    if goal:
        md += ["", "Issue 32's target (exact mode within 2× of llama.cpp's prompt time, every map "
               "recorded):", ""] + goal
    md += [f"\nNote: {note}" for note in result["notes"]]
    return "\n".join(md) + "\n"
