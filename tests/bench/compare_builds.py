#!/usr/bin/python3
"""AttnScope against AttnScope (issue 13): the same forward pass from two or more build trees
(say a native and a portable build), or from one binary with a different environment (say
ATTNSCOPE_ISA=avx2 to force the AVX2 weight kernel on an AVX-512 CPU), on one model.

Each variant's forward_bench loads the model once and serves timing requests; for each n the
variants run interleaved, A B A B ..., for --rounds rounds, ~50 ms idle between them, and the
table gives each variant's median (min–max) and its ratio to the first variant's median.

    compare_builds.py --model DIR --variant native=build-native \\
        --variant portable=build-portable --variant portable-avx2=build-portable:ATTNSCOPE_ISA=avx2 \\
        [--n 8,32,128,512] [--threads 1] [--rounds 7]
"""

import argparse
import os
import pathlib
import random
import statistics
import sys
import time

from run_forward_bench import IDLE_BETWEEN_PROGRAMS_S, ROUND_BUDGET_S, Worker


def ints(text):
    return [int(x) for x in text.split(",")]


def parse_variant(text):
    """NAME=BUILD_DIR[:VAR=VALUE,...] -> (name, forward_bench path, extra environment)."""
    name, _, rest = text.partition("=")
    build, _, env_text = rest.partition(":")
    binary = pathlib.Path(build) / "tests/bench/forward_bench"
    if not name or not binary.is_file():
        raise argparse.ArgumentTypeError(f"{text}: expected NAME=BUILD_DIR with {binary} built")
    env = dict(item.split("=", 1) for item in env_text.split(",") if item)
    return name, binary, env


def start(variant, model, log):
    name, binary, extra = variant
    setting = [f"{key}={value}" for key, value in extra.items()]
    return Worker(name, ["env", *setting, str(binary), str(model), "--serve"], log)


def bench_n(workers, n, threads, rounds, vocab):
    rng = random.Random(n)
    ids = [rng.randrange(1000, vocab) for _ in range(n)]
    probe = {w.name: statistics.median(w.request(ids, threads, 1, warmup=1)["times_ms"])
             for w in workers}
    samples = {w.name: [] for w in workers}
    for _ in range(rounds):
        for w in workers:
            repeats = max(1, min(10, int(ROUND_BUDGET_S * 1000 / max(probe[w.name], 1e-3))))
            samples[w.name] += w.request(ids, threads, repeats)["times_ms"]
            time.sleep(IDLE_BETWEEN_PROGRAMS_S)
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, type=pathlib.Path)
    parser.add_argument("--variant", action="append", type=parse_variant, required=True)
    parser.add_argument("--n", type=ints, default=[8, 32, 128, 512])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--vocab", type=int, default=30000, help="ids are drawn below this")
    args = parser.parse_args()

    with open(os.devnull, "w") as log:
        workers = [start(v, args.model, log) for v in args.variant]
        try:
            print(f"load average at start: {os.getloadavg()[0]:.2f}; {args.threads} thread(s)")
            names = [w.name for w in workers]
            print("| n | " + " | ".join(f"{n} ms" for n in names) + " | " +
                  " | ".join(f"{n} / {names[0]}" for n in names[1:]) + " |")
            print("|---" * (2 * len(names)) + "|")
            for n in args.n:
                samples = bench_n(workers, n, args.threads, args.rounds, args.vocab)
                medians = [statistics.median(samples[name]) for name in names]
                cells = [f"{m:.1f} ({min(samples[name]):.1f}–{max(samples[name]):.1f})"
                         for m, name in zip(medians, names)]
                ratios = [f"{m / medians[0]:.3f}" for m in medians[1:]]
                print(f"| {n} | " + " | ".join(cells + ratios) + " |", flush=True)
            print(f"load average at end: {os.getloadavg()[0]:.2f}")
        finally:
            for w in workers:
                w.close()


if __name__ == "__main__":
    sys.exit(main())
