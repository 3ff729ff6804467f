"""Independent reference for AttnScope's coreference head scoring (issue 16; Clark et al. 2019
§4.3, methods.md §1.4): reads CorefUD `Entity=` annotations, cuts documents into windows,
runs the checkpoint with torch and scores every head, plus the three baselines.

The rules, as the lead decided them (R1-R8; the code is in coref_rules.py):
R1 A sentence preceded by `# newdoc` (with or without `id = ...`) starts a document; sentences
   before the first `# newdoc` form a document of their own; id = the newdoc id or "".
R2 `Entity=` holds openers `(eid-...`, closers `eid)` and single-word mentions `(eid-...)`,
   possibly concatenated; eid runs to the first `-` or `)`. A closer closes the most recently
   opened still-open mention with its eid in the same sentence. Discontinuous mentions (eid with
   `[`), openers left open at the sentence end and closers with no open mention are counted and
   not scored. Malformed values (empty eid, stray characters) are "<file>:<line>: <reason>":
   FormatError with --strict, else a warning and that sentence's mentions are dropped.
R3 Head word: the word of the span whose HEAD is outside the span (or 0), leftmost if several;
   sentences without a tree (HEAD `_`): the last word.
R4 Windows per document, greedy: sentences' surface texts (as dependency scoring rebuilds them)
   joined by one space while the tokenized text, special tokens included, fits
   min(model positions, --max-tokens); the overflowing sentence starts the next window; a
   sentence that alone does not fit is skipped and counted. Never across documents.
R5 A mention is scored when its entity has another mention in the window that starts earlier
   (by (sentence, first word)) with a different head word; those head words are its antecedents.
R6 Per head, the mention head word's row of word-level attention (from = mean over its tokens,
   to = sum over tokens; alignment as in dependency scoring); candidates = every other word of
   the window; argmax, ties to the lowest index; all-zero candidates = no prediction (accuracy =
   correct / predicted). Correct iff the prediction is an antecedent head word.
R7 Type from the head word's UPOS: PRON pronoun, PROPN proper, else nominal.
R8 Baselines over earlier mentions (any entity) starting before m with another head word;
   correct iff the pick is m's entity: nearest (starts last, then ends last); head match
   (nearest with the same head lemma, case-insensitive; none = wrong); sieve (nearest of the
   first non-empty: exact string match of the forms, head lemma match, Number/Gender/Person
   agreement (equal or absent on a side), any).
Choices the rules leave open are listed in coref_rules.py's docstring.

The final decisions D1-D12 (reader details, case folding, words without a token) are listed in
coref_rules.py's docstring.

Tokenization: Hugging Face `tokenizers` (Rust, via tests/reference/tokenizer_ref's Node
bindings) on the tokenizer.json given by --tokenizer (default MODEL/tokenizer.json); attention:
torch_reference.py's float32 forward pass. Neither shares code with the C++.

Output (--out, JSON): the counts under the names of AttnScope's results file (documents,
sentences, windows, sentences_skipped, mentions, scored_mentions, mentions_without_token,
discontinuous, unclosed, unmatched, malformed_sentences) and the warnings, per head (0-based
layer and head) and mention type correct / predicted / no_prediction / total, and the baselines.

Parity (--dump DUMP.h5 --results RESULTS.h5, both from `attnscope-cli coref`): windows are cut
with this script's own tokenizer; each window it runs must be a dump group with the same text
(and no other group may exist) whose token offsets and special flags equal its own; the
attention is the dump's, checked against torch on six windows (max abs difference 1e-5); then
every count must equal the results file's. Exit 1 on any difference.
`--write-expected RESULTS.h5 DUMP.h5` writes both files in AttnScope's layout from this script's own run
(torch attention), to check the parity mode itself.
`--self-test` runs coref_selftest.py instead (no model, no tokenizer).
"""
import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import coref_rules  # noqa: E402


class NodeTokenizer:
    """One long-lived `node coref_tokenize.mjs` process; encodings cached by text (the window
    search tokenizes every window it finally keeps)."""

    def __init__(self, tokenizer_json):
        self.proc = subprocess.Popen(
            ["node", str(HERE / "tokenizer_ref" / "coref_tokenize.mjs"), str(tokenizer_json)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.cache = {}

    def encode(self, text):
        if text not in self.cache:
            self.proc.stdin.write(json.dumps(text) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("coref_tokenize.mjs stopped (are node_modules installed?)")
            self.cache[text] = json.loads(line)
        return self.cache[text]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def model_positions(config):
    """The most tokens the checkpoint takes (RoBERTa's positions start after the pad id)."""
    if config.get("model_type") == "roberta":
        return config["max_position_embeddings"] - config.get("pad_token_id", 1) - 1
    for key in ("max_position_embeddings", "n_positions", "n_ctx"):
        if key in config:
            return config[key]
    raise KeyError("no maximum positions in config.json")


def make_attend(model, tok):
    """text -> [layers, heads, n, n] float32 attention from torch_reference's forward pass."""
    import torch  # only needed with a model; /usr/bin/python3 has it
    import st_io
    import torch_reference
    loaded = st_io.load_checkpoint(model)

    def attend(text):
        probs = torch_reference.forward(model, tok.encode(text)["ids"], torch.float32, loaded)[0]
        return probs.numpy()
    return attend


COUNT_NAMES = ("documents", "sentences", "windows", "sentences_skipped", "mentions",
               "scored_mentions", "mentions_without_token", "discontinuous", "unclosed",
               "unmatched", "malformed_sentences")


def corpus_counts(tally, docs, counts):
    """The corpus counts under the results file's names (COUNT_NAMES)."""
    return {
        "documents": len(docs), "sentences": sum(len(d.sentences) for d in docs),
        "windows": tally.c["windows"], "sentences_skipped": tally.c["sentences_skipped"],
        "mentions": counts.mentions, "scored_mentions": tally.c["scored_mentions"],
        "mentions_without_token": tally.c["mentions_without_token"],
        "discontinuous": counts.discontinuous, "unclosed": counts.unclosed,
        "unmatched": counts.unmatched, "malformed_sentences": counts.malformed_sentences,
    }


def report(tally, docs, counts, args, seconds):
    """The JSON written by --out."""
    heads = []
    if tally.heads is not None:
        for layer in range(tally.heads.shape[0]):
            for head in range(tally.heads.shape[1]):
                cells = {t: dict(zip(("correct", "predicted", "no_prediction", "total"),
                                     (int(v) for v in tally.heads[layer, head, k])))
                         for k, t in enumerate(coref_rules.TYPES)}
                heads.append({"layer": layer, "head": head, **cells})
    return {
        "model": str(args.model), "conllu": str(args.conllu), "limit": args.limit,
        "mwt": args.mwt, "from": args.from_mode, "seconds": round(seconds, 1),
        "counts": {**corpus_counts(tally, docs, counts),
                   "scored_by_type": {t: tally.types[t] for t in coref_rules.TYPES},
                   "warnings": counts.warnings},
        "heads": heads,
        "baselines": {b: {t: {"correct": c[t], "total": tally.types[t]}
                          for t in coref_rules.TYPES} for b, c in tally.base.items()},
    }


def summary(result):
    """A few lines for the console: counts, the best head per type, baselines."""
    c = result["counts"]
    lines = [", ".join(f"{k} {v}" for k, v in c.items() if k != "warnings")
             + f", warnings {len(c['warnings'])}"]
    for t in coref_rules.TYPES:
        best = max(result["heads"], key=lambda h: (h[t]["correct"] / h[t]["predicted"]
                                                   if h[t]["predicted"] else -1), default=None)
        base = ", ".join(f"{b} {v[t]['correct']}/{v[t]['total']}"
                         for b, v in result["baselines"].items())
        if best:
            b = best[t]
            lines.append(f"{t}: best head {best['layer']}-{best['head']} {b['correct']}/"
                         f"{b['predicted']} (no prediction {b['no_prediction']}); {base}")
    return "\n".join(lines)


def _str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


class DumpAttention:
    """attend() of the parity mode: the attention of the dump group with the window's text
    (None when there is none), after checking its offsets and special flags against this
    script's own tokenization."""

    def __init__(self, path, tok):
        import h5py
        self.h5, self.tok = h5py.File(path, "r"), tok
        groups = [self.h5["sentences"][k] for k in self.h5["sentences"]]
        groups.sort(key=lambda g: (int(g.attrs["line"]), _str(g.attrs["sent_id"])))
        self.by_text = collections.defaultdict(collections.deque)
        for g in groups:
            self.by_text[_str(g.attrs["text"])].append(g)
        self.used, self.missing, self.problems = [], [], []

    def __call__(self, text):
        if not self.by_text.get(text):
            self.missing.append(text)
            return None
        g = self.by_text[text].popleft()
        self.used.append((text, g))
        e = self.tok.encode(text)
        for name, ours in (("offsets", np.asarray(e["offsets"], dtype=np.int64).reshape(-1, 2)),
                           ("special", np.asarray(e["special"], dtype=np.int64))):
            theirs = np.asarray(g[name][:], dtype=np.int64)
            if theirs.shape != ours.shape or not np.array_equal(theirs, ours):
                at = next((k for k in range(min(len(theirs), len(ours)))
                           if not np.array_equal(theirs[k], ours[k])), min(len(theirs), len(ours)))
                self.problems.append(
                    f"window {_str(g.attrs['sent_id'])}: dump {name} differ at token {at} "
                    f"of {len(theirs)} (reference {len(ours)} tokens): "
                    f"{theirs[at].tolist() if at < len(theirs) else '-'} vs "
                    f"{ours[at].tolist() if at < len(ours) else '-'}")
        return g["attention"][:]

    def window_problems(self):
        """The first difference between the windows run here and the dump's groups."""
        extra = [g for gs in self.by_text.values() for g in gs]
        extra.sort(key=lambda g: int(g.attrs["line"]))
        out = []
        if self.missing:
            out.append(f"{len(self.missing)} window(s) the reference runs are not in the dump; "
                       f"first: {self.missing[0][:120]!r}")
        if extra:
            out.append(f"{len(extra)} dump group(s) the reference does not run; first: "
                       f"{_str(extra[0].attrs['sent_id'])} (line {int(extra[0].attrs['line'])})"
                       f" {_str(extra[0].attrs['text'])[:120]!r}")
        return out


def check_torch(dump, model, tok):
    """The dump's attention against torch on the first 3 windows and 3 spread-out ones."""
    attend = make_attend(model, tok)
    n = len(dump.used)
    picks = sorted(set(range(min(3, n))) | {n // 4, n // 2, (3 * n) // 4} if n else set())
    problems = []
    for k in picks:
        text, g = dump.used[k]
        ours, theirs = attend(text), g["attention"][:]
        if ours.shape != theirs.shape:
            problems.append(f"torch check, window {_str(g.attrs['sent_id'])}: attention shape "
                            f"{theirs.shape} vs torch {ours.shape}")
            continue
        diff = np.abs(ours.astype(np.float64) - theirs).max(axis=(2, 3))
        layer, head = np.unravel_index(int(np.argmax(diff)), diff.shape)
        print(f"torch check, window {_str(g.attrs['sent_id'])} ({theirs.shape[-1]} tokens): "
              f"max |difference| {diff.max():.2e} (layer {layer}, head {head})")
        if diff.max() > 1e-5:
            problems.append(f"torch check, window {_str(g.attrs['sent_id'])}: layer {layer} "
                            f"head {head} differs by {diff.max():.3e} > 1e-5")
    return problems


def _cells(name, theirs, ours, label):
    """One difference per cell of two integer arrays."""
    theirs, ours = np.asarray(theirs, dtype=np.int64), np.asarray(ours, dtype=np.int64)
    if theirs.shape != ours.shape:
        return [f"{name}: shape {theirs.shape} vs reference {ours.shape}"]
    return [f"{name}{label(tuple(int(i) for i in at))}: {int(theirs[tuple(at)])} vs reference "
            f"{int(ours[tuple(at)])}" for at in np.argwhere(theirs != ours)]


def compare_results(path, tally, docs, counts, args):
    """Every count of AttnScope's results file against ours ("name: theirs vs reference")."""
    import h5py
    res = h5py.File(path, "r")
    problems = []
    for key, ours in (("limit", args.limit), ("mwt", args.mwt), ("from", args.from_mode)):
        theirs = res.attrs[key]
        if (_str(theirs) if isinstance(ours, str) else int(theirs)) != ours:
            problems.append(f"attribute {key}: {theirs} vs reference {ours}")
    for key, ours in corpus_counts(tally, docs, counts).items():
        if int(res.attrs[key]) != ours:
            problems.append(f"{key}: {int(res.attrs[key])} vs reference {ours}")
    names = [_str(v) for v in res["groups"][:]]
    if names != list(coref_rules.TYPES):
        return problems + [f"groups {names} vs reference {list(coref_rules.TYPES)}"]
    shape = res["heads/correct"].shape
    ours = tally.heads if tally.heads is not None else np.zeros(shape + (4,), dtype=np.int64)

    def head_label(at):
        return f" layer {at[0]} head {at[1]} {coref_rules.TYPES[at[2]]}"
    for k, key in ((0, "correct"), (2, "no_prediction"), (3, "total")):
        problems += _cells(f"heads/{key}", res["heads/" + key][:], ours[..., k], head_label)
    bases = [_str(v) for v in res["baselines/names"][:]]
    if bases != list(tally.base):
        return problems + [f"baselines {bases} vs reference {list(tally.base)}"]
    problems += _cells("baselines/correct", res["baselines/correct"][:],
                       [[tally.base[b][t] for t in coref_rules.TYPES] for b in bases],
                       lambda at: f" {bases[at[0]]} {coref_rules.TYPES[at[1]]}")
    problems += _cells("baselines/total", res["baselines/total"][:],
                       [tally.types[t] for t in coref_rules.TYPES],
                       lambda at: f" {coref_rules.TYPES[at[0]]}")
    return problems


def write_expected(results_path, dump_path, tally, docs, counts, args, recorded):
    """AttnScope's results and dump layouts (coref_rules_v2.md) from this script's own run."""
    import h5py
    text_type = h5py.string_dtype()
    with h5py.File(results_path, "w") as f:
        for key, value in (("model", str(args.model)), ("treebank", str(args.conllu)),
                           ("mwt", args.mwt), ("from", args.from_mode)):
            f.attrs[key] = value
        f.attrs["limit"] = np.int64(args.limit)
        for key, value in corpus_counts(tally, docs, counts).items():
            f.attrs[key] = np.int64(value)
        f.create_dataset("groups", data=list(coref_rules.TYPES), dtype=text_type)
        for k, key in ((0, "correct"), (2, "no_prediction"), (3, "total")):
            f.create_dataset("heads/" + key, data=tally.heads[..., k])
        f.create_dataset("baselines/names", data=list(tally.base), dtype=text_type)
        f.create_dataset("baselines/correct", data=np.array(
            [[tally.base[b][t] for t in coref_rules.TYPES] for b in tally.base], np.int64))
        f.create_dataset("baselines/total",
                         data=np.array([tally.types[t] for t in coref_rules.TYPES], np.int64))
    with h5py.File(dump_path, "w") as f:
        for k, (text, offsets, special, attention) in enumerate(recorded):
            g = f.create_group(f"sentences/{k}")
            g.attrs.update({"line": k, "sent_id": f"reference#{k}", "text": text})
            g.create_dataset("offsets", data=np.asarray(offsets, np.int64).reshape(-1, 2))
            g.create_dataset("special", data=np.asarray(special, np.uint8))
            g.create_dataset("attention", data=attention.astype(np.float32))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--model", help="checkpoint folder (config.json, model.safetensors)")
    parser.add_argument("--conllu")
    parser.add_argument("--tokenizer", help="tokenizer.json (default MODEL/tokenizer.json)")
    parser.add_argument("--max-tokens", type=int, default=None)
    parser.add_argument("--mwt", choices=["split", "share"], default="split")
    parser.add_argument("--from", dest="from_mode", choices=["mean", "first", "max"],
                        default="mean")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--out", help="JSON results")
    parser.add_argument("--dump", help="parity: attention dump of attnscope-cli coref")
    parser.add_argument("--results", help="parity: results .h5 of attnscope-cli coref")
    parser.add_argument("--write-expected", nargs=2, metavar=("RESULTS", "DUMP"),
                        help="write both parity files from this script's own run")
    args = parser.parse_args()
    if args.self_test:
        return args
    if not args.model or not args.conllu:
        parser.error("--model and --conllu are required (or --self-test)")
    if bool(args.dump) != bool(args.results):
        parser.error("--dump and --results go together")
    return args


def main():
    args = parse_args()
    if args.self_test:
        import coref_selftest
        sys.exit(coref_selftest.main())
    start = time.time()
    config = json.loads((pathlib.Path(args.model) / "config.json").read_text(encoding="utf-8"))
    args.limit = model_positions(config)
    if args.max_tokens:
        args.limit = min(args.limit, args.max_tokens)
    tok = NodeTokenizer(args.tokenizer or os.path.join(args.model, "tokenizer.json"))
    docs, counts = coref_rules.read_corefud(args.conllu, strict=args.strict)

    def encode(text):
        e = tok.encode(text)
        return e["offsets"], e["special"]

    recorded = []
    if args.dump:
        attend = DumpAttention(args.dump, tok)
    else:
        torch_attend = make_attend(args.model, tok)

        def attend(text):
            attention = torch_attend(text)
            if args.write_expected:
                recorded.append((text, *encode(text), attention))
            return attention
    tally = coref_rules.score_corpus(docs, lambda text: len(tok.encode(text)["ids"]), encode,
                                     attend, args.limit, args.mwt, args.from_mode)
    problems = []
    if args.dump:
        problems = attend.window_problems() + attend.problems
        problems += check_torch(attend, args.model, tok)
        problems += compare_results(args.results, tally, docs, counts, args)
    if args.write_expected:
        write_expected(*args.write_expected, tally, docs, counts, args, recorded)
    tok.close()
    result = report(tally, docs, counts, args, time.time() - start)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(summary(result))
    print(f"time {result['seconds']} s")
    if args.dump:
        if problems:
            print(f"FAIL: {len(problems)} difference(s) with AttnScope; the first 20:")
            for p in problems[:20]:
                print("  " + p)
            sys.exit(1)
        print(f"OK: {len(attend.used)} windows; every count equals AttnScope's")


if __name__ == "__main__":
    main()
