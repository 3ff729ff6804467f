#!/usr/bin/python3
"""GGUF benchmark (issue 32): AttnScope's forward pass with every map recorded, on a Llama-3-shaped
GGUF in Q4_K_M, Q8_0 and BF16, against llama.cpp's prompt processing of the same file (npm
node-llama-cpp, tests/peer/llama_cpp), the same token ids, the same thread count, the same run.

    gguf_bench.py --build BUILD [--shape 8b|1b] [--layers N] [--types Q4_K_M,Q8_0,BF16]
                  [--n 128,512] [--threads 2] [--rounds 3] [--dir /tmp/attnscope-gguf-bench]
                  [--out BUILD/tests/bench/results-gguf] [--kv-type F16|F32] [--flash-attn]
                  [--schedule auto|together|apart] [--peer-dir BUILD/llama_peer] [--note TEXT]
                  [--int8-activations] [--generate [--prompt 128] [--decode 32]]

--generate (issue 34): instead of prompt passes, greedy KV-cached generation timed per token
against llama.cpp decoding one token at a time (gguf_generation.py); KV cache F32 by default.

Files: make_big_gguf.py writes them into --dir (outside the repository), named
llama-<shape>-L<layers>-<type>.gguf with a .json sidecar written last; a file whose sidecar
matches (shape, layers, type, size, the generator's hash) is reused.

Schedule, one file at a time (never two files' workers alive at once: the 8 B BF16 file alone
takes 16 GB of a 24 GiB machine). For each file and thread count, when AttnScope's estimated
footprint (its weights, fp32 when the loader widens BF16, plus every map at the largest n) and
llama.cpp's (the mapped file + 1 GiB) fit in MemAvailable together ("together"), both workers
load once and serve every n: per n one untimed pass each, then --rounds rounds, the order
alternating (A B, B A, ...). Otherwise ("apart": 8 B BF16) each round starts one worker at a time,
which loads the file, runs every n (an untimed pass, then the timed ones) and exits; the other
follows. Ratios are paired by round: median(ours in round r) / median(llama.cpp in round r),
then the median over rounds.

Reported per file, t and n: medians (min–max), the median paired ratio, GFLOP/s of each program
(FLOPs below), peak RSS (VmHWM of each worker's /proc/PID/status, the maximum up to that n),
load times; machine (CPU, avx2/avx512f/avx512_bf16/avx512_vnni), load average at the start and
the end. results.md and results.json in --out, workers' stderr in workers.log.

FLOPs per pass: 2 × n × (the layers' matrix parameters: q, k, v, o, gate, up, down) + per layer
4 × n² × heads × head_dim (QKᵀ and PV over the full square): bench_report.forward_flops.
Embeddings, norms, softmax and LM heads are not counted (llama.cpp also computes the last token's
logits, 2 × width × vocabulary more; AttnScope's pass stops at the final hidden states).
"""

import argparse
import hashlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import bench_report
import gguf_bench_report
import gguf_generation
from make_big_gguf import SHAPES
from run_forward_bench import IDLE_BETWEEN_PROGRAMS_S, ROUND_BUDGET_S, Worker, machine_info, \
    token_ids

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
MAKE = HERE / "make_big_gguf.py"
PEER_DIR = REPO / "tests" / "peer" / "llama_cpp"
GIB = 1 << 30
AUTO_HALF_BYTES = 8 * GIB  # model.h kAutoHalfBytes: BF16 is widened to fp32 below this
PROGRAMS = ("attnscope", "llama.cpp")


class ServingWorker(Worker):
    """run_forward_bench's worker (one JSON request per line) plus its memory from /proc."""

    def __init__(self, name, argv, log):
        start = time.monotonic()
        super().__init__(name, argv, log)
        self.info["wall_load_s"] = time.monotonic() - start
        self.info.update(self.memory_kb())

    def memory_kb(self):
        out = {}
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                key = line.split(":", 1)[0]
                if key in ("VmHWM", "VmRSS"):
                    out[key] = int(line.split()[1])
        return out


def model_cfg(args):
    """The shape as config.json keys, for bench_report.forward_flops."""
    s = SHAPES[args.shape]
    return {"model_type": "llama", "hidden_size": s["hidden"], "num_attention_heads": s["heads"],
            "num_key_value_heads": s["kv_heads"], "intermediate_size": s["ffn"],
            "num_hidden_layers": args.layers, "vocab_size": s["vocab"]}


def bench_file(args, type_name):
    """The GGUF file of --shape/--layers in type_name: reused when its sidecar matches, else written
    (to a .partial name first, so an interrupted write is never taken for a finished file)."""
    path = args.dir / f"llama-{args.shape}-L{args.layers}-{type_name}.gguf"
    sidecar = path.with_suffix(".json")
    want = {"shape": args.shape, "layers": args.layers, "type": type_name,
            "generator_sha256": hashlib.sha256(MAKE.read_bytes()).hexdigest()[:16]}
    if path.exists() and sidecar.exists():
        have = json.loads(sidecar.read_text())
        if {k: have.get(k) for k in want} == want and have.get("bytes") == path.stat().st_size:
            print(f"  reusing {path}", flush=True)
            return path
    args.dir.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    print(f"  writing {path} ...", flush=True)
    start = time.monotonic()
    subprocess.run([sys.executable, str(MAKE), "--out", str(partial), "--type", type_name,
                    "--shape", args.shape, "--layers", str(args.layers)], check=True)
    partial.replace(path)
    sidecar.write_text(json.dumps({**want, "bytes": path.stat().st_size}) + "\n")
    print(f"  written in {time.monotonic() - start:.0f} s", flush=True)
    return path


def mem_available():
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def footprints(args, type_name, size):
    """(AttnScope, llama.cpp) bytes, estimated: AttnScope keeps quantized blocks and BF16 as
    stored, but widens BF16 to fp32 when that copy stays under 8 GiB (WeightPrecision::Auto), and
    records logits and probabilities (n² each) and head outputs (n × head_dim) per layer and head
    (forward::fullRecordBytes); llama.cpp maps the file and adds its KV cache and buffers."""
    s = SHAPES[args.shape]
    n = max(args.n)
    weights = 2 * size if type_name == "BF16" and 2 * size <= AUTO_HALF_BYTES else size
    maps = args.layers * s["heads"] * (2 * n * n + n * s["hidden"] // s["heads"]) * 4
    return weights + maps + GIB // 2, size + GIB


def choose_schedule(args, type_name, size):
    if args.schedule != "auto":
        return args.schedule, None
    ours, peer = footprints(args, type_name, size)
    available = mem_available()
    fits = ours + peer + GIB <= available
    why = (f"estimated {ours / GIB:.1f} GiB (AttnScope) + {peer / GIB:.1f} GiB (llama.cpp) "
           f"{'fit in' if fits else 'exceed'} MemAvailable {available / GIB:.1f} GiB less 1 GiB")
    return ("together" if fits else "apart"), why


def start_worker(program, path, threads, args, log):
    if program == "attnscope":
        argv = [str(args.build / "tests" / "bench" / "forward_bench"), str(path), "--serve"]
        argv += ["--int8-activations"] if args.int8_activations else []
    else:
        max_n = max(args.n + ([args.prompt + args.decode + 2] if args.generate else []))
        argv = ["node", str(PEER_DIR / "llama_peer.mjs"), "serve", str(path), "--max-n",
                str(max_n), "--threads", str(threads), "--kv-type", args.kv_type,
                "--modules", str(args.peer_dir)] + (["--flash-attn"] if args.flash_attn else [])
    return ServingWorker(program, argv, log)


def repeats_for(warm_ms):
    """Per-round passes so a round of the slower program lasts about ROUND_BUDGET_S (1 to 10)."""
    return max(1, min(10, int(ROUND_BUDGET_S / max(max(warm_ms) / 1e3, 1e-3))))


def run_together(workers, path_info, threads, args):
    """Both workers loaded; per n an untimed pass each, then rounds in alternating order."""
    rows = []
    for n in args.n:
        ids = token_ids(n, path_info["vocab"])
        warm = []
        for w in workers:
            warm.append(w.request(ids, threads, repeats=1, warmup=1)["times_ms"][0])
            time.sleep(IDLE_BETWEEN_PROGRAMS_S)
        repeats = repeats_for(warm)
        rounds = {w.name: [] for w in workers}
        for r in range(args.rounds):
            for w in (workers if r % 2 == 0 else workers[::-1]):
                rounds[w.name].append(w.request(ids, threads, repeats)["times_ms"])
                time.sleep(IDLE_BETWEEN_PROGRAMS_S)
        memory = {w.name: w.memory_kb() for w in workers}
        rows.append(make_row(path_info, threads, n, rounds, memory, "together", args))
        print_row(rows[-1])
    return rows


def run_apart(path, path_info, threads, args, log, notes, loads):
    """One worker alive at a time: each round, each program loads, runs every n, exits."""
    programs = list(PROGRAMS) if not args.no_peer else ["attnscope"]
    rounds = {p: {n: [] for n in args.n} for p in programs}
    memory = {p: {n: {} for n in args.n} for p in programs}
    for r in range(args.rounds):
        for program in (programs if r % 2 == 0 else programs[::-1]):
            if program not in rounds:
                continue
            try:
                w = start_worker(program, path, threads, args, log)
            except (RuntimeError, OSError) as e:
                note_peer_failure(program, path_info, threads, e, notes)
                del rounds[program]
                continue
            if r == 0:
                loads.append(load_entry(path_info, threads, w))
            try:
                for n in args.n:
                    ids = token_ids(n, path_info["vocab"])
                    warm = w.request(ids, threads, repeats=1, warmup=1)["times_ms"][0]
                    rounds[program][n].append(w.request(ids, threads, repeats_for([warm]))
                                              ["times_ms"])
                    now = w.memory_kb()
                    memory[program][n] = {k: max(v, memory[program][n].get(k, 0))
                                          for k, v in now.items()}
            finally:
                w.close()
            time.sleep(IDLE_BETWEEN_PROGRAMS_S)
    rows = []
    for n in args.n:
        rows.append(make_row(path_info, threads, n, {p: rounds[p][n] for p in rounds},
                             {p: memory[p][n] for p in rounds}, "apart", args))
        print_row(rows[-1])
    return rows


def note_peer_failure(program, path_info, threads, error, notes):
    if program == "attnscope":
        raise RuntimeError(f"AttnScope's worker failed on {path_info['file']}: {error}")
    notes.append(f"{path_info['type']}, {threads} thread(s): llama.cpp left out: {error}")
    print(f"  {notes[-1]}", flush=True)


def load_entry(path_info, threads, worker):
    i = worker.info
    return {"type": path_info["type"], "threads": threads, "program": worker.name,
            "load_ms": i.get("load_ms"), "wall_load_s": i["wall_load_s"],
            "rss_after_load_kb": i.get("VmRSS"), "hwm_after_load_kb": i.get("VmHWM"),
            "stored_dtypes": i.get("stored_dtypes"), "parameters": i.get("parameters"),
            "node_llama_cpp": i.get("node_llama_cpp"), "kv_type": i.get("kv_type"),
            "flash_attention": i.get("flash_attention"), "context_size": i.get("context_size")}


def make_row(path_info, threads, n, rounds, memory, schedule, args):
    """rounds: {program: [[ms, ...] per round]}; memory: {program: {VmHWM, VmRSS}} (KiB)."""
    programs = {}
    for p, per_round in rounds.items():
        flat = [t for r in per_round for t in r]
        programs[p] = {"rounds_ms": per_round, "summary": bench_report.summarize(flat),
                       "vmhwm_kb": memory[p].get("VmHWM"), "vmrss_kb": memory[p].get("VmRSS")}
    row = {"type": path_info["type"], "threads": threads, "n": n, "schedule": schedule,
           "gflop": bench_report.forward_flops(model_cfg(args), n) / 1e9, "programs": programs}
    if len(programs) == 2:
        ours, peer = rounds["attnscope"], rounds["llama.cpp"]
        row["paired_ratios"] = [statistics.median(a) / statistics.median(b)
                                for a, b in zip(ours, peer)]
        row["ratio_median"] = statistics.median(row["paired_ratios"])
    return row


def print_row(row):
    s = {p: v["summary"] for p, v in row["programs"].items()}
    parts = [f"{row['type']:<6} t={row['threads']} n={row['n']:<4}"]
    parts += [f"{p} {bench_report.fmt_ms(s[p])} ms" for p in PROGRAMS if p in s]
    if "ratio_median" in row:
        parts.append(f"ours/llama.cpp {row['ratio_median']:.2f}")
    print("  " + " | ".join(parts), flush=True)


def run_file(type_name, args, log, notes, loads, phases):
    path = bench_file(args, type_name)
    size = path.stat().st_size
    path_info = {"type": type_name, "file": str(path), "bytes": size,
                 "vocab": SHAPES[args.shape]["vocab"]}
    rows = []
    for threads in args.threads:
        schedule, why = choose_schedule(args, type_name, size)
        phases.append({**path_info, "threads": threads, "schedule": schedule, "why": why,
                       "loadavg_start": os.getloadavg()[0]})
        print(f"{type_name}, {threads} thread(s): {schedule}" + (f" ({why})" if why else ""),
              flush=True)
        if schedule == "apart" and args.generate:
            notes.append(f"{type_name}, {threads} thread(s): left out (generation runs both "
                         "programs together, and they do not fit in memory together)")
            continue
        if schedule == "apart":
            rows += run_apart(path, path_info, threads, args, log, notes, loads)
            continue
        workers = [start_worker("attnscope", path, threads, args, log)]
        if not args.no_peer:
            try:
                workers.append(start_worker("llama.cpp", path, threads, args, log))
            except (RuntimeError, OSError) as e:
                note_peer_failure("llama.cpp", path_info, threads, e, notes)
        loads += [load_entry(path_info, threads, w) for w in workers]
        try:
            if args.generate:
                rows.append(gguf_generation.run(workers, path_info, threads, args))
            else:
                rows += run_together(workers, path_info, threads, args)
        finally:
            for w in workers:
                w.close()
    return rows


def setup_peer(args, notes):
    """Installs node-llama-cpp into --peer-dir (a no-op when up to date); exit 77 means it cannot
    be, and the run goes on with AttnScope alone."""
    if args.no_peer or args.no_peer_setup:
        return
    r = subprocess.run([str(PEER_DIR / "setup_llama_peer.sh"), str(args.peer_dir)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        args.no_peer = True
        notes.append(f"llama.cpp peer not available: {r.stderr.strip() or r.returncode}")
        print(notes[-1], flush=True)


def machine():
    """run_forward_bench's machine_info plus what tells AMD's Zen 3, 4 and 5 apart (family, model)
    and the vector extensions llama.cpp's and AttnScope's kernels pick from."""
    m = machine_info()
    fields = {}
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if not line.strip():
                break  # the first processor's block is enough
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    flags = set(fields.get("flags", "").split())
    m["cpu_family_model"] = (f"family {fields.get('cpu family', '?')} "
                             f"model {fields.get('model', '?')}")
    m["flags"] = {f: f in flags for f in ("avx2", "avx512f", "avx512_bf16", "avx512_vnni")}
    m["mem_total_gib"] = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GIB
    m["mem_available_gib_start"] = mem_available() / GIB
    return m


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ints = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
    parser.add_argument("--build", required=True, type=pathlib.Path, help="the build tree")
    parser.add_argument("--shape", default="8b", choices=sorted(SHAPES))
    parser.add_argument("--layers", type=int, default=None, help="default: the shape's")
    parser.add_argument("--types", default="Q4_K_M,Q8_0,BF16")
    parser.add_argument("--n", type=ints, default=[128, 512])
    parser.add_argument("--threads", type=ints, default=[2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=pathlib.Path,
                        default=pathlib.Path("/tmp/attnscope-gguf-bench"),
                        help="where the GGUF files are written and reused")
    parser.add_argument("--out", type=pathlib.Path, default=None,
                        help="results folder (default BUILD/tests/bench/results-gguf)")
    parser.add_argument("--peer-dir", type=pathlib.Path, default=None,
                        help="node-llama-cpp's install folder (default BUILD/llama_peer)")
    parser.add_argument("--kv-type", default=None, choices=["F16", "F32"],
                        help="llama.cpp's KV cache type (default F16, llama.cpp's own; with "
                             "--generate F32, as AttnScope's cache)")
    parser.add_argument("--flash-attn", action="store_true", help="llama.cpp flash attention")
    parser.add_argument("--schedule", default="auto", choices=["auto", "together", "apart"])
    parser.add_argument("--no-peer", action="store_true", help="AttnScope alone")
    parser.add_argument("--int8-activations", action="store_true",
                        help="AttnScope's optional mode: quantized products with 8-bit "
                             "activations, as llama.cpp's (exact mode otherwise)")
    parser.add_argument("--no-peer-setup", action="store_true",
                        help="do not run setup_llama_peer.sh first")
    parser.add_argument("--generate", action="store_true",
                        help="time greedy generation per token instead of prompt passes")
    parser.add_argument("--prompt", type=int, default=128, help="--generate: prompt length")
    parser.add_argument("--decode", type=int, default=32, help="--generate: decode steps")
    parser.add_argument("--note", action="append", default=[], help="a line for results.md")
    args = parser.parse_args()
    args.build = args.build.resolve()
    args.kv_type = args.kv_type or ("F32" if args.generate else "F16")
    args.layers = args.layers or SHAPES[args.shape]["layers"]
    args.types = [t for t in args.types.split(",") if t]
    args.dir = args.dir.resolve()
    if REPO in args.dir.parents or args.dir == REPO:
        parser.error(f"--dir {args.dir} is inside the repository; the files are GBs")
    results = "results-gguf-generation" if args.generate else "results-gguf"
    args.out = (args.out or args.build / "tests" / "bench" / results).resolve()
    args.peer_dir = (args.peer_dir or args.build / "llama_peer").resolve()
    return args


def write_results(args, m, rows, loads, phases, notes, started):
    """results.json and results.md so far: written after each file, so a run cut short (the 8 B
    one takes an hour) keeps the files it finished."""
    m["loadavg_end"] = os.getloadavg()[0]
    m["wall_s"] = round(time.monotonic() - started)
    result = {"machine": m, "shape": {"name": args.shape, **SHAPES[args.shape],
                                      "layers": args.layers},
              "settings": {"kv_type": args.kv_type, "flash_attention": args.flash_attn,
                           "rounds": args.rounds, "build": str(args.build),
                           "prompt": args.prompt, "decode": args.decode},
              "phases": phases, "rows": rows, "loads": loads, "notes": notes,
              "args": {k: str(v) for k, v in vars(args).items()}}
    (args.out / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    md = (gguf_generation if args.generate else gguf_bench_report).markdown(result)
    (args.out / "results.md").write_text(md)
    return md


def main():
    args = parse_args()
    if not (args.build / "tests" / "bench" / "forward_bench").exists():
        sys.exit(f"gguf_bench: no {args.build}/tests/bench/forward_bench; build the forward_bench "
                 "target first")
    args.out.mkdir(parents=True, exist_ok=True)
    notes = list(args.note)
    if args.int8_activations:
        notes.insert(0, "AttnScope ran with --int8-activations: quantized products with 8-bit "
                        "activations as llama.cpp's (not the exact mode)")
    m = machine()
    print(f"machine: {m['cpu']}, {m['cpus']} vCPUs, load {m['loadavg_start']:.2f}", flush=True)
    if m["loadavg_start"] > 1.5:
        print("WARNING: the machine is busy (load average above 1.5); timings will be noisy",
              flush=True)
    setup_peer(args, notes)
    started = time.monotonic()
    rows, loads, phases = [], [], []
    with open(args.out / "workers.log", "w") as log:
        for type_name in args.types:
            rows += run_file(type_name, args, log, notes, loads, phases)
            md = write_results(args, m, rows, loads, phases, notes, started)
    print()
    print(md)
    print(f"written: {args.out / 'results.json'}, {args.out / 'results.md'} ({m['wall_s']} s)")


if __name__ == "__main__":
    main()
