"""The circuit of the trained model, measured in PyTorch on the exported weights and through
AttnScope's own CLI.

Usage: analyze.py DATA_DIR MODEL_DIR WORK_DIR [--cli ATTNSCOPE_CLI] [--treebank CONLLU]

PyTorch, on MODEL_DIR's F16 weights (probes.py has the definitions):

* held-out prose loss (every held-out window) against the chance and unigram baselines, and
  the in-context score on it (Olsson et al.: the loss late in the context minus early);
* per head: TransformerLens induction and previous-token scores on repeated random tokens
  ([BOS, r_1..r_N, r_1..r_N], N = 25, batch 10), the in-context loss on the two copies, and
  the same with the previous-token head, the induction head or both zero-ablated;
* K-, Q- and V-composition of every layer-0 head into every layer-1 head, against the mean
  score of random matrices of the same shapes;
* the same scores for every checkpoint of MODEL_DIR/series (the training series).

AttnScope (only when the CLI exists): its tokenizer against wordpiece.py on held-out text,
its next-token logits against this torch model, `attnscope-cli survey` on the treebank and on
held-out sentences written twice ("S S", where an induction head has something to do), with
the repeated-random-token probe at N = 25, for the model and every series checkpoint,
`attnscope-cli series` over the series, `attnscope-cli circuits` (composition and copying
scores), and `attnscope-cli patch --by head` and `dla` on a repeated random sequence. The
doubled sentences are written to MODEL_DIR/doubled_sentences.txt, so the card's survey claims
can be rerun (tests/core/cli/circuits_model_cli_test.cpp does).

Everything is merged into MODEL_DIR/metrics.json (sections "evaluation", "circuit", "series",
"attnscope"); write_card.py writes the model card from it.
"""

import argparse
import csv
import glob
import json
import math
import os
import re
import subprocess

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import torch.nn.functional as F

import default_recipe as dr
import gpt2
import probes
import train as recipe_train
import wordpiece as wp

PROBE = {"n": 25, "batch": 10, "seed": 0}
EARLY, LATE = (5, 10), (50, 64)  # target positions of the in-context score
SURVEY_PROBE = ["--probe-repeats", "10", "--probe-length", "25", "--probe-seed", "0"]


def rounded(x, k=4):
    if isinstance(x, (torch.Tensor, np.ndarray)):
        x = x.tolist()
    if isinstance(x, list):
        return [rounded(v, k) for v in x]
    return round(float(x), k)


def heldout_windows(data_dir, tok, body):
    stream, starts = recipe_train.token_stream(f"{data_dir}/heldout.txt", tok, None)
    w = recipe_train.window_starts(len(stream), starts, body)
    return torch.stack([torch.from_numpy(np.concatenate([[wp.CLS], stream[s:s + body]])
                                         .astype(np.int64)) for s in w])


@torch.no_grad()
def prose_eval(model, held):
    """Mean held-out loss, the loss per target position, and the in-context score."""
    per_pos = []
    for chunk in held.split(64):
        logits = model(chunk)
        loss = F.cross_entropy(logits[:, :-1].transpose(1, 2), chunk[:, 1:], reduction="none")
        per_pos.append(loss)
    per_pos = torch.cat(per_pos).mean(0)  # [n - 1]: index t is the target at position t + 1
    at = lambda lo, hi: per_pos[lo - 1:hi - 1].mean().item()
    return {"loss": per_pos.mean().item(), "loss_early": at(*EARLY), "loss_late": at(*LATE),
            "icl_score": at(*LATE) - at(*EARLY), "per_position": per_pos}


def unigram_loss(data_dir, tok, held):
    """Cross-entropy of the training unigram distribution (add-one) on the held-out targets."""
    cache = glob.glob(f"{os.environ.get('WORK', '/tmp/circuits_model_work')}/run/"
                      "train_stream_*.npz")
    if cache:
        stream = np.load(cache[0])["stream"]
    else:
        stream, _ = recipe_train.token_stream(f"{data_dir}/train.txt", tok, None)
    counts = np.bincount(stream, minlength=len(tok.vocab)).astype(np.float64) + 1.0
    logp = np.log(counts / counts.sum())
    return float(-logp[held[:, 1:].numpy()].mean())


def best(matrix, layer=None):
    m = np.array(matrix)
    if layer is not None:
        h = int(m[layer].argmax())
        return layer, h
    l, h = np.unravel_index(m.argmax(), m.shape)
    return int(l), int(h)


def circuit(model):
    s = probes.repeat_scores(model, **PROBE)
    ind, prev = s["induction"].numpy(), s["prev"].numpy()
    ind_head = best(ind)
    # The previous-token head the induction head reads from sits in an earlier layer.
    prev_head = best(prev, layer=max(0, ind_head[0] - 1))
    comp = probes.composition_scores(model, 0, 1)
    d, nh = model.config["n_embd"], model.config["n_head"]
    out = {"probe": dict(PROBE), "induction": rounded(ind), "prev": rounded(prev),
           "loss_first_copy": round(s["loss_first_copy"], 4),
           "loss_second_copy": round(s["loss_second_copy"], 4),
           "induction_head": list(ind_head), "prev_head": list(prev_head),
           "composition": {k: rounded(v) for k, v in comp.items()},
           "composition_random_baseline": round(
               probes.random_composition_baseline(d, d // nh), 4)}
    ablations = {}
    for name, heads in (("prev_head", [tuple(prev_head)]), ("induction_head", [tuple(ind_head)]),
                        ("both", [tuple(prev_head), tuple(ind_head)])):
        a = probes.repeat_scores(model, ablate=heads, **PROBE)
        ablations[name] = {"loss_first_copy": round(a["loss_first_copy"], 4),
                           "loss_second_copy": round(a["loss_second_copy"], 4),
                           "induction_of_induction_head":
                               round(float(a["induction"][ind_head]), 4)}
    # The strongest other layer-1 head, for comparison with the induction head's ablation.
    others = [(float(ind[1][h]), h) for h in range(nh) if (1, h) != tuple(ind_head)]
    if others:
        h = max(others)[1]
        a = probes.repeat_scores(model, ablate=[(1, h)], **PROBE)
        ablations[f"other_layer1_head_1-{h}"] = {
            "loss_first_copy": round(a["loss_first_copy"], 4),
            "loss_second_copy": round(a["loss_second_copy"], 4),
            "induction_of_induction_head": round(float(a["induction"][ind_head]), 4)}
    out["ablation"] = ablations
    return out


def series_dirs(model_dir):
    found = []
    for d in glob.glob(f"{model_dir}/series/step*"):
        m = re.fullmatch(r"step(\d+)", os.path.basename(d))
        if m and os.path.isdir(d):
            found.append((int(m.group(1)), d))
    return sorted(found)


def series_scores(model_dir, held, ind_head, prev_head):
    rows = []
    for step, d in series_dirs(model_dir):
        m = gpt2.load_exported(d)
        s = probes.repeat_scores(m, **PROBE)
        comp = probes.composition_scores(m, 0, 1)
        pe = prose_eval(m, held)
        rows.append({"step": step, "folder": os.path.relpath(d, model_dir),
                     "induction_head_score": round(float(s["induction"][tuple(ind_head)]), 4),
                     "max_induction": round(float(s["induction"].max()), 4),
                     "prev_head_score": round(float(s["prev"][tuple(prev_head)]), 4),
                     "loss_first_copy": round(s["loss_first_copy"], 4),
                     "loss_second_copy": round(s["loss_second_copy"], 4),
                     "k_composition": round(comp["K"][prev_head[1]][ind_head[1]], 4),
                     "heldout_loss": round(pe["loss"], 4), "icl_score": round(pe["icl_score"], 4)})
        print(f"series {rows[-1]}", flush=True)
    return rows


# --- AttnScope ------------------------------------------------------------------------------

def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return p


def cli_tokenize(cli, model_dir, text):
    out = run([cli, "tokenize", model_dir, text]).stdout.splitlines()
    return [int(line.split("\t")[1]) for line in out[1:] if line.strip()]


def tokenizer_parity(cli, model_dir, texts, tok):
    mismatches = []
    for t in texts:
        mine = [wp.CLS] + tok.encode(t, special=False)
        theirs = cli_tokenize(cli, model_dir, t)
        if mine != theirs:
            mismatches.append({"text": t, "python": mine, "attnscope": theirs})
    return {"compared": len(texts), "mismatches": len(mismatches), "examples": mismatches[:3]}


def logit_parity(cli, model_dir, model, texts, tok, work):
    """Top-5 next-token logits of `attnscope-cli predict` against the torch model (F32 on the
    same F16 weights), every position of each text."""
    worst, compared, same_top = 0.0, 0, 0
    for i, t in enumerate(texts):
        ids = [wp.CLS] + tok.encode(t, special=False)
        out = f"{work}/predict_{i}.csv"
        run([cli, "predict", model_dir, "--token-ids", ",".join(map(str, ids)), "--top", "5",
             "--csv", out])
        with torch.no_grad():
            logits = model(torch.tensor([ids]))[0]
        with open(out) as f:
            for row in csv.DictReader(f):
                pos, cand = int(row["position"]), int(row["id"])
                worst = max(worst, abs(float(row["logit"]) - logits[pos, cand].item()))
                compared += 1
                if int(row["rank"]) == 1:
                    same_top += int(int(logits[pos].argmax()) == cand)
    return {"texts": len(texts), "logits_compared": compared,
            "max_abs_logit_diff": float(f"{worst:.3g}"), "top1_agree_positions": same_top}


SURVEY_KEYS = ("prev", "tl_prev_mul", "tl_induction_mul_nobos", "tl_dup_mul_nobos",
               "probe_induction", "first_mass", "entropy_norm")


def survey(cli, model_dir, corpus, out_csv, extra=()):
    p = run([cli, "survey", model_dir, corpus, "--out", out_csv, "--threads", "2"]
            + SURVEY_PROBE + list(extra))
    heads = []
    with open(out_csv) as f:
        for row in csv.DictReader(f):
            h = {"layer": int(row["layer"]), "head": int(row["head"]),
                 "labels": row.get("labels", "")}
            for k in SURVEY_KEYS:
                v = row.get(k, "")
                h[k] = round(float(v), 4) if v not in ("", "nan", "NaN") else None
            heads.append(h)
    summary = [l for l in p.stdout.splitlines() if l.strip()]
    return {"corpus": corpus, "heads": heads, "summary": summary}


def doubled_sentences(data_dir, path, tok, positions, k=300, max_words=14):
    """Held-out sentences of 6-14 words, each written twice on its line ("S S"), those whose
    doubled tokens (and [CLS]) fit the model's positions (`series` refuses longer ones)."""
    with open(f"{data_dir}/heldout.txt", encoding="utf-8") as f:
        sents = [l.strip() for l in f if 6 <= len(l.split()) <= max_words]
    sents = [x for x in sents if 2 * len(tok.encode(x, special=False)) + 1 <= positions]
    picked = sents[::max(1, len(sents) // k)][:k]
    with open(path, "w", encoding="utf-8") as f:
        for s in picked:
            f.write(f"{s} {s}\n")
    return len(picked)


def cli_circuits(cli, model_dir, work, prev_head, ind_head, d_model):
    """`attnscope-cli circuits`: every composition score and each head's OV copying score; the
    K-composition of the previous-token head into the induction head and its rank among all
    writer -> reader pairs and among the writers into the induction head."""
    out_csv = f"{work}/circuits.csv"
    p = run([cli, "circuits", model_dir, "--top", "4", "--out", out_csv])
    comp, copying = {"Q": {}, "K": {}, "V": {}}, {}
    with open(out_csv) as f:
        for r in csv.DictReader(f):
            if r["score"] in ("comp_q", "comp_k", "comp_v") and int(r["layer"]) < int(r["layer2"]):
                key = f"{r['layer']}-{r['head']}->{r['layer2']}-{r['head2']}"
                comp[r["score"][-1].upper()][key] = round(float(r["value"]), 4)
            elif r["score"] == "copying":
                copying[f"{r['layer']}-{r['head']}"] = round(float(r["value"]), 4)
    k = comp["K"]
    pair = f"{prev_head[0]}-{prev_head[1]}->{ind_head[0]}-{ind_head[1]}"
    ranked = sorted(k, key=k.get, reverse=True)
    into = [x for x in ranked if x.endswith(f"->{ind_head[0]}-{ind_head[1]}")]
    from_prev = {}
    for x in ranked:
        w, r = x.split("->")
        if w == f"{prev_head[0]}-{prev_head[1]}":
            into_r = [y for y in ranked if y.endswith(f"->{r}")]
            from_prev[r] = {"k": k[x], "rank_into": into_r.index(x) + 1}
    return {"command": "attnscope-cli circuits MODEL --top 4", "pair": pair,
            "k_from_prev": from_prev,
            "k_pair": k[pair], "k_rank": ranked.index(pair) + 1, "k_pairs": len(ranked),
            "k_top": ranked[0], "k_rank_into_induction": into.index(pair) + 1,
            "k_second_into_induction": k[into[1]] if len(into) > 1 else None,
            "baseline": round(1 / math.sqrt(d_model), 4), "composition": comp,
            "copying": copying, "stdout": [l for l in p.stdout.splitlines() if l.strip()]}


def patch_prompts(vocab_size, n=20, seed=1):
    """Clean [BOS] r_1..r_n r_1..r_{n-1} (induction predicts r_n) and corrupted
    [BOS] s_1..s_n r_1..r_{n-1} (nothing to copy from), of the same length."""
    g = torch.Generator().manual_seed(seed)
    r = torch.randint(probes.FIRST_NORMAL_ID, vocab_size, (2, n), generator=g).tolist()
    clean = [wp.CLS] + r[0] + r[0][:-1]
    corrupted = [wp.CLS] + r[1] + r[0][:-1]
    return clean, corrupted, r[0][-1], r[1][-1]


def cli_patch_and_dla(cli, model_dir, work, prev_head, ind_head, vocab_size):
    """`attnscope-cli patch` (per head, denoising) and
    `attnscope-cli dla` at the last position of the clean prompt, target r_n minus s_n."""
    clean, corrupted, target, distractor = patch_prompts(vocab_size)
    ids = lambda v: ",".join(map(str, v))
    common = ["--clean-ids", ids(clean), "--corrupted-ids", ids(corrupted), "--target-id",
              str(target), "--distractor-id", str(distractor)]
    heads_csv, dla_csv = f"{work}/patch_heads.csv", f"{work}/dla.csv"
    p1 = run([cli, "patch", model_dir] + common + ["--by", "head", "--out", heads_csv])
    p3 = run([cli, "dla", model_dir, "--token-ids", ids(clean), "--target-id", str(target),
              "--distractor-id", str(distractor), "--top", "6", "--out", dla_csv])
    by_head = {}
    with open(heads_csv) as f:
        for r in csv.DictReader(f):
            if r["experiment"] == "head":
                by_head[f"{r['layer']}-{r['head']}"] = round(float(r["metric"]), 4)
    with open(dla_csv) as f:
        terms = {r["term"]: round(float(r["value"]), 4) for r in csv.DictReader(f)}
    head_terms = {k: v for k, v in terms.items() if re.fullmatch(r"L\d+H\d+", k)}
    lines = lambda p: [l for l in p.stdout.splitlines() if l.strip()]
    return {"clean_ids": clean, "corrupted_ids": corrupted, "target_id": target,
            "distractor_id": distractor, "patch_by_head": by_head, "dla_terms": terms,
            "dla_top_head": max(head_terms, key=head_terms.get),
            "stdout_patch": lines(p1), "stdout_dla": lines(p3)}


def attnscope(cli, model_dir, model, data_dir, treebank, work, tok, m_circuit):
    with open(f"{data_dir}/heldout.txt", encoding="utf-8") as f:
        held_texts = [l.strip() for l in f if l.strip()]
    sample = held_texts[::max(1, len(held_texts) // 100)][:100]
    out = {"cli": cli, "tokenizer": tokenizer_parity(cli, model_dir, sample, tok)}
    print("tokenizer parity", out["tokenizer"], flush=True)
    out["logits"] = logit_parity(cli, model_dir, model, sample[:5], tok, work)
    print("logit parity", out["logits"], flush=True)
    # Shipped beside the model: the card's survey claims (and tests/core/cli's check of them)
    # rerun on exactly these sentences.
    doubled = f"{model_dir}/doubled_sentences.txt"
    out["doubled_sentences"] = doubled_sentences(data_dir, doubled, tok,
                                                 model.config["n_positions"])
    if treebank and os.path.exists(treebank):
        out["survey_treebank"] = survey(cli, model_dir, treebank, f"{work}/survey_treebank.csv")
        print("\n".join(out["survey_treebank"]["summary"]), flush=True)
    out["survey_doubled"] = survey(cli, model_dir, doubled, f"{work}/survey_doubled.csv")
    print("\n".join(out["survey_doubled"]["summary"]), flush=True)
    circ = m_circuit["induction_head"], m_circuit["prev_head"]
    out["circuits"] = cli_circuits(cli, model_dir, work, circ[1], circ[0],
                                   model.config["n_embd"])
    print("\n".join(out["circuits"]["stdout"]), flush=True)
    out["patching"] = cli_patch_and_dla(cli, model_dir, work, circ[1], circ[0],
                                        model.config["vocab_size"])
    print("\n".join(out["patching"]["stdout_patch"] + out["patching"]["stdout_dla"]),
          flush=True)
    # AttnScope's probe (its own SplitMix64 draws) on every series checkpoint.
    steps = []
    for step, d in series_dirs(model_dir):
        s = survey(cli, d, doubled, f"{work}/survey_step{step}.csv")
        steps.append({"step": step, "heads": [
            {k: h[k] for k in ("layer", "head", "probe_induction", "tl_prev_mul", "labels")}
            for h in s["heads"]]})
    out["survey_series"] = steps
    if series_dirs(model_dir):
        p = run([cli, "series", f"{model_dir}/series", "--sentences", doubled, "--out",
                 f"{work}/series.csv"])
        out["series_command"] = [l for l in p.stdout.splitlines() if l.strip()]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir")
    ap.add_argument("model_dir")
    ap.add_argument("work_dir")
    ap.add_argument("--cli")
    ap.add_argument("--treebank")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    os.makedirs(a.work_dir, exist_ok=True)

    tok = wp.WordPiece.load(f"{a.model_dir}/vocab.txt")
    model = gpt2.load_exported(a.model_dir)
    held = heldout_windows(a.data_dir, tok, model.config["n_positions"] - 1)
    pe = prose_eval(model, held)
    v = len(tok.vocab)
    evaluation = {"heldout_windows": int(held.shape[0]),
                  "heldout_tokens": int(held.shape[0] * (held.shape[1] - 1)),
                  "loss": round(pe["loss"], 4), "perplexity": round(math.exp(pe["loss"]), 1),
                  "chance_loss": round(math.log(v), 4),
                  "unigram_loss": round(unigram_loss(a.data_dir, tok, held), 4),
                  "icl": {"early_positions": list(EARLY), "late_positions": list(LATE),
                          "loss_early": round(pe["loss_early"], 4),
                          "loss_late": round(pe["loss_late"], 4),
                          "score": round(pe["icl_score"], 4)}}
    print("evaluation", evaluation, flush=True)
    circ = circuit(model)
    print("circuit", json.dumps(circ), flush=True)
    series = series_scores(a.model_dir, held, circ["induction_head"], circ["prev_head"])
    sections = {"evaluation": evaluation, "circuit": circ, "series": series}
    if a.cli and os.access(a.cli, os.X_OK):
        sections["attnscope"] = attnscope(a.cli, a.model_dir, model, a.data_dir, a.treebank,
                                          a.work_dir, tok, circ)
    else:
        print(f"AttnScope checks skipped: no executable CLI at {a.cli}")
    dr.merge_metrics(a.model_dir, sections)


if __name__ == "__main__":
    main()
