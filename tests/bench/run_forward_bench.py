#!/usr/bin/python3
"""Forward-pass benchmark driver (issue 6): AttnScope against PyTorch and ONNX Runtime on the
same random-weight models, the same token ids, the same machine and the same run.

For each model and thread count it starts the three programs once (each loads the model and
then serves timing requests on stdin), and for each n runs them interleaved, A B C A B C ...,
for --rounds rounds, with ~50 ms idle between programs (benchmarking.md: spinning worker threads
of one program slow the next). Prints medians (min–max), our/peer ratios, achieved GFLOP/s
against the sgemm 1024³ peak measured in the same run, and peak resident memory; writes
results.json and results.md into --out.

    run_forward_bench.py --build BUILD_DIR [--models bert-base,gpt2] [--n 8,32] [--threads 1,2]
                         [--rounds 5] [--peers pytorch,onnxruntime]

Model folders come from make_forward_models.py (BUILD/tests/bench/models); ONNX exports go to
BUILD/tests/bench/onnx/<model>/ and are redone when the checkpoint is newer.
"""

import argparse
import datetime
import json
import os
import pathlib
import random
import subprocess
import sys
import time

import bench_report

HERE = pathlib.Path(__file__).resolve().parent
IDLE_BETWEEN_PROGRAMS_S = 0.05
# Per-round repeats are chosen so each program runs for about this long per round (at least
# once, at most 10 times): short passes get more samples without slowing the long ones.
ROUND_BUDGET_S = 0.3


class Worker:
    """One serving process: JSON request per line in, JSON reply per line out."""

    def __init__(self, name, argv, log):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=log, text=True, bufsize=1)
        self.info = self._read_until_ready()

    def _read_until_ready(self):
        for line in self.proc.stdout:
            if line.startswith("{"):
                reply = json.loads(line)
                if reply.get("ready"):
                    return reply
        raise RuntimeError(f"{self.name} exited before it was ready (see the log)")

    def request(self, ids, threads, repeats, warmup=0):
        self.proc.stdin.write(json.dumps({"ids": ids, "threads": threads, "repeats": repeats,
                                          "warmup": warmup}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name} died (see the log)")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"{self.name}: {reply['error']}")
        return reply

    def close(self):
        try:
            self.proc.stdin.write('{"quit": true}\n')
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def machine_info():
    model = "unknown"
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    flags = open("/proc/cpuinfo").read()
    return {"cpu": model, "cpus": os.cpu_count(), "avx512f": " avx512f" in flags,
            "loadavg_start": os.getloadavg()[0],
            "time_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")}


def measure_gemm(paths, log, peers, when):
    """The FMA units' peak (a register-only loop) and sgemm 1024³, GFLOP/s (median of 10) per
    program and thread count, labelled `when`."""
    out, blas = {}, None
    runs = [("FMA peak (register-only loop)", [paths["forward_bench"], "--fma-peak"]),
            ("Eigen sgemm 1024³", [paths["forward_bench"], "--gemm", "1024"])]
    if "pytorch" in peers:
        runs.append(("PyTorch torch.mm 1024³", [sys.executable, str(HERE / "torch_peer.py"),
                                          "--gemm", "1024"]))
    for name, argv in runs:
        r = json.loads(subprocess.run(argv + ["--threads", "1,2", "--repeats", "10"], check=True,
                                      capture_output=True, text=True).stdout)
        out[f"{name}, {when}"] = {str(x["threads"]): sorted(x["gflops"])[len(x["gflops"]) // 2]
                     for x in r["results"]}
        blas = r.get("blas", blas)
        time.sleep(IDLE_BETWEEN_PROGRAMS_S)
    return out, blas


def gemm_peaks(gemm):
    """The peak for the % column: the best FMA peak seen at each thread count, at the start or
    the end of the run (one disturbed measurement must not inflate the percentages)."""
    return {t: max(v[t] for k, v in gemm.items() if t in v and k.startswith("FMA peak"))
            for t in ("1", "2")}


def export_onnx(model_dir, onnx_path, log):
    """The ORT peer's model, exported by torch_peer.py; redone when the checkpoint changed."""
    st = model_dir / "model.safetensors"
    if onnx_path.exists() and onnx_path.stat().st_mtime >= st.stat().st_mtime:
        return
    print(f"  exporting {model_dir.name} to ONNX ...", flush=True)
    start = time.monotonic()
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    for f in onnx_path.parent.iterdir():  # stale external-data files of an older export
        f.unlink()
    subprocess.run([sys.executable, str(HERE / "torch_peer.py"), str(model_dir), "--export-onnx",
                    str(onnx_path)], check=True, stdout=log, stderr=log)
    print(f"  exported in {time.monotonic() - start:.0f} s", flush=True)


def start_workers(model_dir, onnx_path, threads, paths, peers, log, skipped):
    """AttnScope must start; a peer that cannot is left out and named in the notes."""
    workers = [Worker("attnscope", [paths["forward_bench"], str(model_dir), "--serve"], log)]
    argv = {"pytorch": [sys.executable, str(HERE / "torch_peer.py"), str(model_dir), "--serve"]}
    if onnx_path is not None:
        argv["onnxruntime"] = ["node", str(HERE / "ort_peer" / "ort_peer.mjs"), str(onnx_path),
                               "--threads", str(threads), "--modules", str(paths["ort_modules"])]
    for name in peers:
        if name in argv:
            try:
                workers.append(Worker(name, argv[name], log))
            except (RuntimeError, OSError) as e:
                skipped.append(f"{model_dir.name}, {threads} thread(s): {name} left out: {e}")
                print(f"  {skipped[-1]}", flush=True)
    return workers


def token_ids(n, vocab):
    """The same ids for every program; seeded by n so reruns time the same inputs."""
    rng = random.Random(1000 + n)
    return [rng.randrange(vocab) for _ in range(n)]


def bench_one(workers, cfg, n, threads, rounds):
    """Interleaved rounds for one (model, threads, n); returns the row for the tables."""
    ids = token_ids(n, cfg["vocab_size"])
    warm = {}
    for w in workers:  # one untimed pass each (first-touch of the maps, thread pools)
        warm[w.name] = w.request(ids, threads, repeats=1, warmup=1)["times_ms"][0]
        time.sleep(IDLE_BETWEEN_PROGRAMS_S)
    slowest = max(warm.values()) / 1e3
    repeats = max(1, min(10, int(ROUND_BUDGET_S / max(slowest, 1e-3))))
    samples = {w.name: [] for w in workers}
    last = {}
    for _ in range(rounds):
        for w in workers:
            last[w.name] = w.request(ids, threads, repeats)
            samples[w.name] += last[w.name]["times_ms"]
            time.sleep(IDLE_BETWEEN_PROGRAMS_S)
    programs = {name: {"times_ms": samples[name],
                       "summary": bench_report.summarize(samples[name]),
                       "maxrss_kb": last[name]["maxrss_kb"], "check": last[name]["check"],
                       "threads_reported": last[name]["threads"]} for name in samples}
    return {"n": n, "threads": threads, "gflop": bench_report.forward_flops(cfg, n) / 1e9,
            "repeats_per_round": repeats, "rounds": rounds, "programs": programs}


def print_row(row):
    s = {p: v["summary"] for p, v in row["programs"].items()}
    parts = [f"{row['model']:<9} t={row['threads']} n={row['n']:<4}"]
    for p in bench_report.PROGRAMS:
        if p in s:
            parts.append(f"{p} {bench_report.fmt_ms(s[p])}")
    ours = s["attnscope"]
    for p in ("pytorch", "onnxruntime"):
        if p in s:
            parts.append(f"ours/{p} {bench_report.fmt_ratio(ours, s[p])}")
    print("  " + " | ".join(parts), flush=True)
    warning = bench_report.check_agreement(row)
    if warning:
        row["agreement_warning"] = warning
        print(f"    WARNING: programs disagree: {warning}", flush=True)


def run_model(name, args, paths, log, skipped):
    model_dir = paths["models"] / name
    cfg = json.loads((model_dir / "config.json").read_text())
    onnx_path = None
    if "onnxruntime" in args.peers:
        onnx_path = paths["onnx"] / name / "model.onnx"
        try:
            export_onnx(model_dir, onnx_path, log)
        except subprocess.CalledProcessError as e:
            skipped.append(f"{name}: ONNX Runtime skipped, export failed ({e})")
            print(f"  {skipped[-1]}", flush=True)
            onnx_path = None
    ns = args.n if not (name.startswith("llama") and args.llama_n) else args.llama_n
    rounds = args.llama_rounds if name.startswith("llama") and args.llama_rounds else args.rounds
    rows, loads = [], []
    for threads in args.threads:
        workers = start_workers(model_dir, onnx_path, threads, paths, args.peers, log, skipped)
        loads.append({"threads": threads, **{w.name: w.info for w in workers}})
        try:
            for n in ns:
                row = {"model": name, **bench_one(workers, cfg, n, threads, rounds)}
                print_row(row)
                rows.append(row)
        finally:
            for w in workers:
                w.close()
    return rows, loads


def run_interactive(binary, model_dir, log):
    """bench-interactive's Google Benchmark binary: keystroke and grid medians (ms)."""
    env = dict(os.environ, ATTNSCOPE_BENCH_MODEL=str(model_dir))
    out = subprocess.run([binary, "--benchmark_format=json"], env=env, check=True,
                         capture_output=True, text=True).stdout
    medians = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["run_name"]] = b["real_time"]
    return medians


def write_outputs(out_dir, result):
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    m = result["machine"]
    md = [f"Forward pass, every head returned, batch 1, fp32 compute; {m['cpu']}, {m['cpus']} "
          f"vCPUs; {m['time_utc']} UTC; load average {m['loadavg_start']:.2f} at the start, "
          f"{m['loadavg_end']:.2f} at the end.", "",
          "Medians (min–max) over all samples, ms; ratios are AttnScope / peer (< 1: AttnScope "
          "is faster); GFLOP/s is AttnScope's, against the FMA peak measured in the same run at that "
          "thread count (a register-only loop of fused multiply-adds); peak RSS is each process's getrusage maximum up to that n.", "",
          bench_report.markdown_table(result["rows"], result["gemm_peak"]), "",
          "Measured peaks, GFLOP/s (median of 10), BLAS behind torch: "
          f"{', '.join(result['blas'] or ['?'])}", "", bench_report.gemm_table(result["gemm"])]
    md += ["", "Loading (not timed above):", "", bench_report.load_table(result["loads"])]
    targets = bench_report.issue35_targets(result["rows"], result["gemm_peak"])
    if targets:
        md += ["", "Issue 35 targets:", ""] + [f"- {t}" for t in targets]
    if result.get("interactive"):
        md += ["", "Interactive path (bench-interactive, medians, ms): " + ", ".join(
            f"{k} {v:.1f}" for k, v in result["interactive"].items())]
    for note in result["notes"]:
        md.append(f"\nNote: {note}")
    (out_dir / "results.md").write_text("\n".join(md) + "\n")
    return "\n".join(md)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ints = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
    parser.add_argument("--build", required=True, type=pathlib.Path, help="the build tree")
    parser.add_argument("--models", default="bert-base,gpt2,llama-1b")
    parser.add_argument("--n", type=ints, default=[8, 32, 128, 512])
    parser.add_argument("--threads", type=ints, default=[1, 2])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--llama-n", type=ints, default=None, help="n for llama-1b (else --n)")
    parser.add_argument("--llama-rounds", type=int, default=None)
    parser.add_argument("--peers", default="pytorch,onnxruntime")
    parser.add_argument("--interactive", action="store_true",
                        help="also run interactive_bench (keystroke and grid medians)")
    parser.add_argument("--out", type=pathlib.Path, default=None,
                        help="results folder (default BUILD/tests/bench/results)")
    parser.add_argument("--note", action="append", default=[], help="a line for results.md")
    args = parser.parse_args()
    args.peers = [p for p in args.peers.split(",") if p]
    return args


def main():
    args = parse_args()
    bench = args.build.resolve() / "tests" / "bench"
    paths = {"forward_bench": str(bench / "forward_bench"), "models": bench / "models",
             "onnx": bench / "onnx", "ort_modules": bench / "ort_peer"}
    out_dir = args.out or bench / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    machine = machine_info()
    started = time.monotonic()
    print(f"machine: {machine['cpu']}, {machine['cpus']} vCPUs, load {machine['loadavg_start']:.2f}")
    if machine["loadavg_start"] > 1.5:
        print("WARNING: the machine is busy; timings will be noisy", flush=True)
    with open(out_dir / "workers.log", "w") as log:
        gemm, blas = measure_gemm(paths, log, args.peers, "start")
        print(f"sgemm 1024³ GFLOP/s: {json.dumps(gemm)}; BLAS: {blas}", flush=True)
        rows, loads, skipped = [], {}, []
        for name in args.models.split(","):
            print(f"{name}:", flush=True)
            model_rows, loads[name] = run_model(name, args, paths, log, skipped)
            rows += model_rows
        gemm.update(measure_gemm(paths, log, args.peers, "end")[0])
        peaks = gemm_peaks(gemm)
        interactive = None
        if args.interactive:
            interactive = run_interactive(str(bench / "interactive_bench"),
                                          bench / "bert_base_random", log)
    machine["loadavg_end"] = os.getloadavg()[0]
    machine["wall_s"] = round(time.monotonic() - started)
    result = {"machine": machine, "gemm": gemm, "gemm_peak": peaks, "blas": blas,
              "rows": rows, "loads": loads, "interactive": interactive,
              "notes": args.note + skipped, "args": {k: str(v) for k, v in vars(args).items()}}
    print()
    print(write_outputs(out_dir, result))
    print(f"\nwritten: {out_dir / 'results.json'}, {out_dir / 'results.md'} "
          f"({machine['wall_s']} s)")


if __name__ == "__main__":
    main()
