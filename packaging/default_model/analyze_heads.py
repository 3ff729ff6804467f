"""What the heads of the trained model do, measured through AttnScope itself.

Usage: analyze_heads.py DATA_DIR MODEL_DIR ATTNSCOPE_CLI TREEBANK [--sentences N] [--out-md F]

* Positional heads (Voita et al. 2019; methods.md §2.2) over held-out sentences: for every
  non-special query i, r_i = argmax_j A[i][j] - i (first maximum, all keys); a head is
  positional iff its most frequent r has frequency >= 0.9. Also given: the same with the
  special tokens removed as keys, since small BERTs park much attention on [CLS]/[SEP].
* Mean attention entropy per head (nats, over non-special queries) and its range per layer,
  next to the uniform distribution's (mean ln n); Voita's confidence (mean max weight) and how
  often the maximum falls on [CLS]/[SEP].
* `attnscope-cli deps` on the treebank: best head per relation against the offset baseline.
* `attnscope-cli coref` on a CorefUD treebank (--coref, e.g. UD English GUM dev) in windows of
  128 tokens as Clark et al.: the best head per mention type against the three baselines.
* `attnscope-cli importance` on held-out sentences (--importance-only, or in the full run): the
  loss change of zero-ablating each head alone (masked LM, 15 % of the non-special tokens masked
  with a fixed seed) and Michel et al.'s pruning curve in 10 % steps.
* A parity check: AttnScope's attention against this recipe's torch model on a few sentences.

Evaluation data (the treebank) is only read here; it never enters training.
Results are merged into MODEL_DIR/metrics.json; markdown tables go to --out-md.
"""

import argparse
import collections
import csv
import json
import os
import subprocess
import tempfile

import h5py
import numpy as np
import torch

import model as bert
from metrics_file import merge_metrics
import wordpiece as wp


def run_attention(cli, model_dir, text, path):
    subprocess.run([cli, "attention", model_dir, "--text", text, "--out", path], check=True,
                   capture_output=True, text=True)
    with h5py.File(path) as f:
        return f["token_ids"][:], f["attention"][:], f["entropy"][:]


def offsets_of(att, ids, special_keys):
    """Per head: list of argmax offsets over non-special queries."""
    n = len(ids)
    queries = [i for i in range(n) if ids[i] > wp.MASK]
    a = att.copy()
    if not special_keys:
        a[..., [j for j in range(n) if ids[j] <= wp.MASK]] = -1.0
    best = a[:, :, queries, :].argmax(-1)  # (L, H, q): first maximum, like np.argmax
    return best - np.array(queries)[None, None, :]


VOITA_THRESHOLD = 0.9  # Voita et al.: positional iff the top offset covers >= 90 % of queries


def positional_table(hists, threshold=VOITA_THRESHOLD):
    rows = []
    for (l, h), hist in sorted(hists.items()):
        total = sum(hist.values())
        r, c = max(hist.items(), key=lambda kv: (kv[1], -abs(kv[0])))
        top3 = [(int(k), round(v / total, 3)) for k, v in hist.most_common(3)]
        rows.append({"layer": l, "head": h, "r_star": int(r), "freq": round(c / total, 4),
                     "positional": c / total >= threshold, "top3": top3})
    return rows


def deps(cli, model_dir, treebank, work, max_sentences=0):
    out = os.path.join(work, "deps.csv")
    limit = ["--max-sentences", str(max_sentences)] if max_sentences else []
    p = subprocess.run([cli, "deps", model_dir, treebank, "--out", out, "--threads", "2"] + limit,
                       check=True, capture_output=True, text=True)
    notes = [l for l in p.stderr.replace("\r", "\n").splitlines()
             if l.strip() and "sentences" not in l[:3] and not l.startswith("[")]
    with open(out) as f:
        rows = list(csv.DictReader(f))
    table = [{"relation": r["relation"], "count": int(r["count"]),
              "best_head": f"{r['best_layer']}-{r['best_head']}", "direction": r["direction"],
              "accuracy": round(float(r["accuracy"]), 4),
              "baseline_offset": int(r["baseline_offset"]),
              "baseline_accuracy": round(float(r["baseline_accuracy"]), 4)}
             for r in rows if r["rare"] == "0"]
    return table, notes


GROUPS = ("all", "pronoun", "proper", "nominal")
BASELINES = ("nearest", "head_match", "sieve")


def coref(cli, model_dir, treebank, work, max_tokens=128):
    """attnscope-cli coref's counts, and per mention group the best head (as the CLI picks it:
    highest correct / predicted, ties to the lowest layer and head) and the baselines."""
    out = os.path.join(work, "coref.h5")
    subprocess.run([cli, "coref", model_dir, treebank, "--out", out, "--threads", "2",
                    "--max-tokens", str(max_tokens)], check=True, capture_output=True, text=True)
    with h5py.File(out) as f:
        counts = {k: int(v) for k, v in f.attrs.items() if k not in
                  ("model", "treebank", "mwt", "from", "attnscope_version")}
        correct, nopred, total = (f["heads"][k][:] for k in ("correct", "no_prediction", "total"))
        base_correct, base_total = f["baselines"]["correct"][:], f["baselines"]["total"][:]
    groups = []
    for g, name in enumerate(GROUPS):
        predicted = total[:, :, g] - nopred[:, :, g]
        acc = np.where(predicted > 0, correct[:, :, g] / np.maximum(predicted, 1), -1.0)
        layer, head = np.unravel_index(int(np.argmax(acc)), acc.shape)  # first maximum
        groups.append({
            "group": name, "scored": int(base_total[g]), "best_head": f"{layer}-{head}",
            "correct": int(correct[layer, head, g]), "predicted": int(predicted[layer, head]),
            "accuracy": round(float(acc[layer, head]), 4),
            **{b: round(float(base_correct[k, g]) / max(int(base_total[g]), 1), 4)
               for k, b in enumerate(BASELINES)}})
    return {"treebank": os.path.abspath(treebank), "max_tokens": max_tokens, "counts": counts,
            "groups": groups}


def importance(cli, model_dir, sentences, work):
    """attnscope-cli importance's per-head loss change and pruning curve on `sentences`."""
    corpus, out = os.path.join(work, "importance.txt"), os.path.join(work, "importance.h5")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write("\n".join(sentences) + "\n")
    subprocess.run([cli, "importance", model_dir, corpus, "--out", out, "--threads", "2"],
                   check=True, capture_output=True, text=True)
    with h5py.File(out) as f:
        attrs = dict(f.attrs.items())
        delta = f["delta_loss"][:]
        pruning = [{"fraction": round(float(fr), 2), "removed": int(n), "loss": round(float(lo), 4),
                    "accuracy": round(float(ac), 4)}
                   for fr, n, lo, ac in zip(*(f["pruning"][k][:] for k in
                                              ("fraction", "removed", "loss", "accuracy")))]
    num = lambda k: float(attrs[k])
    return {"sentences": len(sentences), "items": int(attrs["items"]),
            "targets": int(attrs["targets"]), "seed": int(attrs["seed"]),
            "mask_fraction": num("mask_fraction"), "kind": str(attrs["kind"]),
            "clean_loss": round(num("clean_loss"), 4),
            "clean_accuracy": round(num("clean_accuracy"), 4),
            "delta_loss": {f"{l}-{h}": round(float(delta[l, h]), 4)
                           for l in range(delta.shape[0]) for h in range(delta.shape[1])},
            "pruning": pruning}


def held_out_sample(data_dir, n):
    """Every k-th held-out sentence, n of them (the sentences the positional table uses)."""
    with open(f"{data_dir}/heldout.txt", encoding="utf-8") as f:
        held = [line.strip() for line in f if line.strip()]
    return held[::max(1, len(held) // n)][:n]


def rescore_importance(a):
    with open(f"{a.model_dir}/metrics.json") as f:
        heads = json.load(f).get("heads", {})
    with tempfile.TemporaryDirectory() as tmp:
        heads["importance"] = importance(a.cli, a.model_dir,
                                         held_out_sample(a.data_dir, a.sentences), tmp)
    merge_metrics(a.model_dir, {"heads": heads})


def rescore_coref(a):
    with open(f"{a.model_dir}/metrics.json") as f:
        heads = json.load(f).get("heads", {})
    with tempfile.TemporaryDirectory() as tmp:
        heads["coref"] = coref(a.cli, a.model_dir, a.coref, tmp)
    merge_metrics(a.model_dir, {"heads": heads})


def rescore_deps(a):
    with open(f"{a.model_dir}/metrics.json") as f:
        heads = json.load(f).get("heads", {})
    with tempfile.TemporaryDirectory() as tmp:
        heads["deps"], heads["deps_notes"] = deps(a.cli, a.model_dir, a.treebank, tmp, a.deps_max)
    heads["treebank"] = os.path.abspath(a.treebank)
    merge_metrics(a.model_dir, {"heads": heads})


def main():
    ap = argparse.ArgumentParser()
    for name in ("data_dir", "model_dir", "cli", "treebank"):
        ap.add_argument(name)
    ap.add_argument("--sentences", type=int, default=400)
    ap.add_argument("--parity", type=int, default=20)
    ap.add_argument("--deps-max", type=int, default=0, help="score only N sentences (testing)")
    ap.add_argument("--out-md")
    ap.add_argument("--deps-only", action="store_true",
                    help="re-score only the dependency table (after a change of AttnScope's "
                         "scoring rules) and keep the rest of metrics.json; DATA_DIR is unused")
    ap.add_argument("--coref", help="CorefUD treebank for coreference heads (GUM dev)")
    ap.add_argument("--coref-only", action="store_true",
                    help="score only coreference heads (--coref) and keep the rest of "
                         "metrics.json; DATA_DIR and TREEBANK are unused")
    ap.add_argument("--importance-only", action="store_true",
                    help="measure only head importance on held-out sentences and keep the rest "
                         "of metrics.json; TREEBANK is unused")
    a = ap.parse_args()
    torch.set_num_threads(2)
    if a.importance_only:
        rescore_importance(a)
        return
    if a.deps_only:
        rescore_deps(a)
        return
    if a.coref_only:
        rescore_coref(a)
        return

    info = subprocess.run([a.cli, "info", a.model_dir], check=True, capture_output=True,
                          text=True)
    picked = held_out_sample(a.data_dir, a.sentences)

    tok = wp.WordPiece.load(f"{a.model_dir}/vocab.txt")
    model = bert.load_exported(a.model_dir)
    hists = {k: collections.defaultdict(collections.Counter) for k in ("all", "nonspecial")}
    ent = collections.defaultdict(list)
    max_diff, id_mismatch = 0.0, 0
    conf_sum, special_sum, n_queries, ln_n = 0.0, 0.0, 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for s_i, text in enumerate(picked):
            ids, att, entropy = run_attention(a.cli, a.model_dir, text, f"{tmp}/a.h5")
            id_mismatch += list(ids) != tok.encode(text)
            for key, special in (("all", True), ("nonspecial", False)):
                off = offsets_of(att, ids, special)
                for l in range(att.shape[0]):
                    for h in range(att.shape[1]):
                        hists[key][(l, h)].update(off[l, h].tolist())
            real = ids > wp.MASK
            rows = att[:, :, real, :]
            conf_sum = conf_sum + rows.max(-1).sum(-1)  # Voita's confidence, §2.1
            special_sum = special_sum + (~real[rows.argmax(-1)]).sum(-1)
            n_queries += int(real.sum())
            ln_n.extend([np.log(len(ids))] * int(real.sum()))
            for l in range(att.shape[0]):
                for h in range(att.shape[1]):
                    ent[(l, h)].extend(entropy[l, h, real].tolist())
            if s_i < a.parity:
                t = torch.tensor(ids, dtype=torch.long)[None]
                with torch.no_grad():
                    _, probs = model.encode(t, t != wp.PAD, want_probs=True)
                mine = torch.stack([p[0] for p in probs]).numpy()
                max_diff = max(max_diff, float(np.abs(mine - att).max()))
        deps_table, deps_notes = deps(a.cli, a.model_dir, a.treebank, tmp, a.deps_max)
        coref_result = coref(a.cli, a.model_dir, a.coref, tmp) if a.coref else None
        importance_result = importance(a.cli, a.model_dir, picked, tmp)

    n_layers = 1 + max(l for l, _ in ent)
    head_ent = {k: float(np.mean(v)) for k, v in ent.items()}
    ent_layers = [{"layer": l, "min": round(min(v for (ll, _), v in head_ent.items() if ll == l), 3),
                   "max": round(max(v for (ll, _), v in head_ent.items() if ll == l), 3)}
                  for l in range(n_layers)]
    result = {
        "sentences": len(picked),
        "parity_sentences": min(a.parity, len(picked)),
        "positional_threshold": VOITA_THRESHOLD,
        "treebank": os.path.abspath(a.treebank),
        "tokenizer_id_mismatches": id_mismatch,
        "attnscope_vs_torch_max_abs_diff": max_diff,
        "attnscope_info_stderr": info.stderr.strip(),
        "positional_heads": positional_table(hists["all"]),
        "positional_heads_nonspecial_keys": positional_table(hists["nonspecial"]),
        "head_mean_entropy_nats": {f"{l}-{h}": round(v, 3) for (l, h), v in head_ent.items()},
        "entropy_per_layer": ent_layers,
        "uniform_entropy_mean_ln_n": round(float(np.mean(ln_n)), 3),
        "confidence": np.round(conf_sum / n_queries, 3).tolist(),
        "argmax_on_special_fraction": np.round(special_sum / n_queries, 3).tolist(),
        "deps": deps_table,
        "deps_notes": deps_notes,
        **({"coref": coref_result} if coref_result else {}),
        "importance": importance_result,
    }
    merge_metrics(a.model_dir, {"heads": result})

    md = ["| head | r* (all keys) | freq | positional | r* (no special keys) | freq | "
          "mean entropy (nats) |", "|---|---:|---:|---|---:|---:|---:|"]
    for r1, r2 in zip(result["positional_heads"], result["positional_heads_nonspecial_keys"]):
        k = f"{r1['layer']}-{r1['head']}"
        md.append(f"| {k} | {r1['r_star']:+d} | {r1['freq']:.3f} | "
                  f"{'yes' if r1['positional'] else 'no'} | {r2['r_star']:+d} | "
                  f"{r2['freq']:.3f} | {head_ent[(r1['layer'], r1['head'])]:.2f} |")
    md += ["", "| layer | mean entropy range over heads (nats) | confidence (mean max weight) | "
           "argmax on [CLS]/[SEP] |", "|---:|---|---|---|"]
    rng = lambda v: f"{min(v):.2f} – {max(v):.2f}"
    md += [f"| {e['layer']} | {e['min']:.2f} – {e['max']:.2f} | "
           f"{rng(result['confidence'][e['layer']])} | "
           f"{rng(result['argmax_on_special_fraction'][e['layer']])} |" for e in ent_layers]
    md += ["", "| relation | count | best head | direction | accuracy | best offset | "
           "offset accuracy |", "|---|---:|---|---|---:|---:|---:|"]
    md += [f"| {d['relation']} | {d['count']} | {d['best_head']} | {d['direction']} | "
           f"{100 * d['accuracy']:.1f} | {d['baseline_offset']:+d} | "
           f"{100 * d['baseline_accuracy']:.1f} |" for d in deps_table]
    text = "\n".join(md) + "\n"
    print(text)
    print(json.dumps({k: result[k] for k in ("sentences", "tokenizer_id_mismatches",
                                             "attnscope_vs_torch_max_abs_diff",
                                             "attnscope_info_stderr", "deps_notes")}, indent=1))
    if a.out_md:
        with open(a.out_md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
