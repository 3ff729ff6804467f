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

Tokenization: Hugging Face `tokenizers` (Rust, via tests/reference/tokenizer_ref's Node
bindings) on the tokenizer.json given by --tokenizer (default MODEL/tokenizer.json); attention:
torch_reference.py's float32 forward pass. Neither shares code with the C++.

Output (--out, JSON): counts (documents, sentences, windows, skipped sentences, mentions,
scored mentions, discontinuous / unclosed / unmatched, warnings), per head (0-based layer and
head) and mention type correct / predicted / no_prediction / total, and the baselines.
`--self-test` runs coref_selftest.py instead (no model, no tokenizer).
"""
import argparse
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
        "mwt": args.mwt, "seconds": round(seconds, 1),
        "counts": {
            "documents": len(docs), "sentences": sum(len(d.sentences) for d in docs),
            "windows": tally.c["windows"], "windows_unaligned": tally.c["windows_unaligned"],
            "sentences_skipped": tally.c["sentences_skipped"], "mentions": counts.mentions,
            "scored_mentions": tally.c["scored_mentions"],
            "scored_by_type": {t: tally.types[t] for t in coref_rules.TYPES},
            "discontinuous": counts.discontinuous, "unclosed": counts.unclosed,
            "unmatched": counts.unmatched, "warnings": counts.warnings,
        },
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--model", help="checkpoint folder (config.json, model.safetensors)")
    parser.add_argument("--conllu")
    parser.add_argument("--tokenizer", help="tokenizer.json (default MODEL/tokenizer.json)")
    parser.add_argument("--max-tokens", type=int, default=None)
    parser.add_argument("--mwt", choices=["split", "share"], default="split")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--out", help="JSON results")
    args = parser.parse_args()
    if args.self_test:
        import coref_selftest
        sys.exit(coref_selftest.main())
    if not args.model or not args.conllu:
        parser.error("--model and --conllu are required (or --self-test)")
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

    tally = coref_rules.score_corpus(docs, lambda text: len(tok.encode(text)["ids"]), encode,
                                     make_attend(args.model, tok), args.limit, args.mwt)
    tok.close()
    result = report(tally, docs, counts, args, time.time() - start)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(summary(result))
    print(f"time {result['seconds']} s")


if __name__ == "__main__":
    main()
