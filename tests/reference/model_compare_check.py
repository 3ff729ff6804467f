#!/usr/bin/python3
"""attnscope-cli compare-models against an independent computation of the same per-head
divergences, on two models with the same layers and heads run on the same token ids.

Usage: model_compare_check.py --cli ATTNSCOPE_CLI --a A.gguf --b B.gguf
       --ref-a A_reference.safetensors --ref-b B_reference.safetensors

The reference files are torch_reference.py's outputs for the two models (attention
[layers, heads, n, n] and input_ids). For each head the Jensen-Shannon divergence of every query
row is computed as Clark et al.'s head_distances.py does (methods.md 1.6: P = 0.001/n + 0.999 A,
M = (P + Q) / 2, 0.5 * sum P ln(P/M) + Q ln(Q/M), no square root, natural log), in float64;
then summed over rows (jsd_total), averaged (jsd_mean), and the largest row (jsd_max_row,
max_row). The CLI's CSV must agree to 1e-5 (its maps agree with the references to 1e-5 and the
divergence is smooth in them) and name the same largest row wherever the top two rows are
further apart than that. Exit 0 pass, 1 fail.
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_io  # noqa: E402

TOLERANCE = 1e-5


def row_divergences(a, b):
    """[rows] JS divergence of each query row of two [n, n] maps, Clark's smoothing."""
    n = a.shape[-1]
    p = 0.001 / n + 0.999 * a
    q = 0.001 / n + 0.999 * b
    m = (p + q) / 2
    return 0.5 * (p * np.log(p / m) + q * np.log(q / m)).sum(axis=-1)


def expected(ref_a, ref_b):
    a = st_io.load_file(ref_a)
    b = st_io.load_file(ref_b)
    if not np.array_equal(a["input_ids"].numpy(), b["input_ids"].numpy()):
        sys.exit("the two references are not of the same input")
    pa = a["attention"].double().numpy()
    pb = b["attention"].double().numpy()
    out = {}
    for layer in range(pa.shape[0]):
        for head in range(pa.shape[1]):
            rows = row_divergences(pa[layer, head], pb[layer, head])
            out[(layer, head)] = (rows.sum(), rows.mean(), rows.max(), int(rows.argmax()),
                                  np.sort(rows)[-2] if rows.size > 1 else -1.0)
    return out, a["input_ids"].tolist()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for flag in ("--cli", "--a", "--b", "--ref-a", "--ref-b"):
        p.add_argument(flag, required=True)
    args = p.parse_args()
    want, ids = expected(args.ref_a, args.ref_b)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "heads.csv")
        run = subprocess.run([args.cli, "compare-models", args.a, args.b, "--token-ids",
                              ",".join(map(str, ids)), "--csv", out], capture_output=True,
                             text=True)
        if run.returncode != 0:
            sys.exit(f"compare-models failed: {run.stderr.strip()}")
        with open(out, encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    if len(rows) != len(want):
        sys.exit(f"{len(rows)} heads in the CSV, {len(want)} expected")
    worst = 0.0
    for row in rows:
        key = (int(row["layer"]), int(row["head"]))
        total, mean, top, top_row, second = want[key]
        for name, value in (("jsd_total", total), ("jsd_mean", mean), ("jsd_max_row", top)):
            gap = abs(float(row[name]) - value)
            worst = max(worst, gap)
            if gap > TOLERANCE:
                sys.exit(f"head {key}: {name} {row[name]}, expected {value:.8g}")
        if top - second > TOLERANCE and int(row["max_row"]) != top_row:
            sys.exit(f"head {key}: largest row {row['max_row']}, expected {top_row}")
    spread = max(v[0] for v in want.values())
    print(f"{len(rows)} heads agree (worst gap {worst:.2e}; largest total divergence "
          f"{spread:.4g} nats over {len(ids)} tokens)")


if __name__ == "__main__":
    main()
