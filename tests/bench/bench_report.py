"""FLOP counts and the result tables of the forward-pass benchmark (run_forward_bench.py).

FLOPs are counted analytically from config.json: 2 per multiply-add of every matrix product of
one forward pass, batch 1, n tokens. That is the Q/K/V, output and feed-forward projections, and
the two attention products QKᵀ and PV, counted over the full n x n square even for causal models
(every program here computes and returns the whole square: AttnScope records the pre-mask
logits of every cell). Embedding look-ups, norms, softmax, activations and the LM head (not run)
are left out. For BERT-base this gives benchmarking.md's figures: n = 8: 1.36 G, 32: 5.47 G,
128: 22.3 G, 512: 96.6 G.
"""

import statistics


def shape_of(cfg):
    """(layers, d_model, heads, kv_heads, head_dim, ffn, ffn matrices) from a config.json."""
    kind = cfg["model_type"]
    if kind == "gpt2":
        h = cfg["n_embd"]
        return cfg["n_layer"], h, cfg["n_head"], cfg["n_head"], h // cfg["n_head"], \
            cfg.get("n_inner") or 4 * h, 2
    h, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads", heads)
    d = cfg.get("head_dim") or h // heads
    gated = kind in ("llama", "mistral", "qwen2")
    return cfg["num_hidden_layers"], h, heads, kv, d, cfg["intermediate_size"], 3 if gated else 2


def forward_flops(cfg, n):
    layers, h, heads, kv, d, ffn, ffn_mats = shape_of(cfg)
    projections = 2 * n * h * (heads * d + 2 * kv * d) + 2 * n * heads * d * h
    attention = 2 * 2 * n * n * heads * d  # QKᵀ and PV
    feed_forward = 2 * n * h * ffn * ffn_mats
    return layers * (projections + attention + feed_forward)


def summarize(times):
    if not times:
        return None
    return {"median": statistics.median(times), "min": min(times), "max": max(times),
            "samples": len(times)}


def fmt_ms(s):
    if s is None:
        return "—"
    def one(v):
        return f"{v:.0f}" if v >= 100 else f"{v:.1f}"
    return f"{one(s['median'])} ({one(s['min'])}–{one(s['max'])})"


def fmt_ratio(ours, peer):
    if ours is None or peer is None:
        return "—"
    return f"{ours['median'] / peer['median']:.2f}"


def fmt_mib(kb):
    return "—" if kb is None else f"{kb / 1024:.0f}"


PROGRAMS = ("attnscope", "pytorch", "onnxruntime")


def markdown_table(results, peaks):
    """One row per model x threads x n: medians (min–max) in ms, ratios, GFLOP/s, peak RSS."""
    lines = [
        "| model | t | n | AttnScope ms | PyTorch ms | ORT ms | ours/PyTorch | ours/ORT "
        "| GFLOP | AttnScope GFLOP/s (% of peak) | peak RSS MiB: ours / PyTorch / ORT |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in results:
        s = {p: row["programs"].get(p, {}).get("summary") for p in PROGRAMS}
        ours = s["attnscope"]
        gflops = row["gflop"] / (ours["median"] / 1e3) if ours else None
        peak = peaks.get(str(row["threads"]))
        rate = "—" if gflops is None else (
            f"{gflops:.0f} ({100 * gflops / peak:.0f} %)" if peak else f"{gflops:.0f}")
        rss = " / ".join(fmt_mib(row["programs"].get(p, {}).get("maxrss_kb")) for p in PROGRAMS)
        lines.append(
            f"| {row['model']} | {row['threads']} | {row['n']} | {fmt_ms(ours)} "
            f"| {fmt_ms(s['pytorch'])} | {fmt_ms(s['onnxruntime'])} "
            f"| {fmt_ratio(ours, s['pytorch'])} | {fmt_ratio(ours, s['onnxruntime'])} "
            f"| {row['gflop']:.2f} | {rate} | {rss} |")
    return "\n".join(lines)


def gemm_table(gemm):
    lines = ["| GFLOP/s | 1 thread | 2 threads |", "|---|--:|--:|"]
    for name, by_threads in gemm.items():
        cells = [f"{by_threads[t]:.0f}" if t in by_threads else "—" for t in ("1", "2")]
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def check_agreement(row, tolerance=1e-3):
    """The programs' fingerprints (mean attended key position in the first and last layer)
    must agree; a peer that computed a different model would make the timing meaningless.
    Returns a warning string or None. Layer 0 must agree tightly; the last layer of a
    random-weight model may drift a little with fp32 summation order, so it only warns."""
    checks = {p: v["check"] for p, v in row["programs"].items() if v.get("check")}
    if len(checks) < 2:
        return None
    ref = checks.get("attnscope") or next(iter(checks.values()))
    bad = []
    for p, c in checks.items():
        for layer, (a, b) in enumerate(zip(ref, c)):
            if abs(a - b) > tolerance * max(1.0, abs(a)):
                bad.append(f"{p} {'first' if layer == 0 else 'last'} layer {b:.5f} vs {a:.5f}")
    return "; ".join(bad) or None


def issue35_targets(rows, peaks):
    """Issue 35's targets, one line each: AttnScope at most 0.9 of ONNX Runtime's time at every
    n and thread count; at n = 512 on 2 threads, at least 75 % of the measured FMA peak."""
    lines = []
    for row in rows:
        s = {p: v["summary"] for p, v in row["programs"].items()}
        ours = s["attnscope"]
        where = f"{row['model']} t={row['threads']} n={row['n']}"
        if "onnxruntime" in s:
            r = ours["median"] / s["onnxruntime"]["median"]
            lines.append(f"{where}: ours/ORT {r:.2f} (target ≤ 0.90) "
                         f"{'met' if r <= 0.9 else 'MISSED'}")
        if row["n"] == 512 and row["threads"] == 2 and peaks.get("2"):
            share = row["gflop"] / (ours["median"] / 1e3) / peaks["2"]
            lines.append(f"{where}: {100 * share:.0f} % of the FMA peak (target ≥ 75 %) "
                         f"{'met' if share >= 0.75 else 'MISSED'}")
    return lines


def load_table(loads):
    """Load time and resident memory right after loading, per model and program (from the
    first thread count's processes)."""
    lines = ["| model | program | load s | RSS after load MiB | peak RSS while loading MiB |",
             "|---|---|--:|--:|--:|"]
    for model, per_threads in loads.items():
        if not per_threads:
            continue
        for program in PROGRAMS:
            info = per_threads[0].get(program)
            if info:
                lines.append(f"| {model} | {program} | {info['load_ms'] / 1e3:.1f} "
                             f"| {fmt_mib(info.get('rss_after_load_kb'))} "
                             f"| {fmt_mib(info.get('maxrss_kb'))} |")
    return "\n".join(lines)
