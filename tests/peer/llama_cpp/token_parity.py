#!/usr/bin/python3
"""AttnScope's tokenizer of a GGUF file against llama.cpp's on the same file: token ids, text by
text, special tokens added and special-token text parsed on both sides.

Usage: token_parity.py --cli ATTNSCOPE_CLI --peer-dir DEST --model FILE.gguf [--texts T.json]

Runs `attnscope-cli tokenize FILE TEXT` for each text and llama_peer.mjs `tokenize --special`
(llama.cpp's llama_tokenize through node-llama-cpp, with its BOS/EOS, or for WPM [CLS]/[SEP],
added as add_special does) once for all of them. T.json is a JSON array of strings; without it
the texts below are used: ordinary sentences and the cases where llama.cpp's WPM parts from
Hugging Face's BertTokenizer (marks, Hangul, White_Space controls, long words, '▁' in a word).
Every list must give the same ids. Exit 0 pass, 1 fail, 77 when the peer is not installed.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

TEXTS = [
    "An attention head looks at every token of a sentence.",
    "Heads attend to the previous word, some to the next one: it's tempting!",
    "Numbers like 2019 and 12345, and words that the tokenizer must split.",
    "[CLS] the [MASK] of a sentence [SEP] and [UNK]",
    "na\u00efve caf\u00e9 \u00c5ngstr\u00f6m \u01d5ber \u0130stanbul",
    "\u4e2d\u6587 \ud55c\uad6d\uc5b4 \u0939\u093f\u0928\u094d\u0926\u0940 x\u0301y",
    "a\u000bb c\u000cd e\u0085f g\u2028h i\u200bj",
    "the" * 40 + " word",
    "a\u2581b \u2581c",
    "",
    "   \t\n ",
]


def peer_ids(args, texts):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(texts, f)
    try:
        out = subprocess.run(["node", os.path.join(HERE, "llama_peer.mjs"), "tokenize",
                              args.model, "--texts", f.name, "--special", "--modules",
                              args.peer_dir], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if out.returncode == 77:
        print("llama.cpp peer not installed: " + out.stderr.strip().splitlines()[-1])
        sys.exit(77)
    if out.returncode != 0:
        sys.exit(f"llama_peer tokenize failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    doc = json.loads(out.stdout)
    return doc["vocab_type"], [r["ids"] for r in doc["results"]]


def cli_ids(args, text):
    out = subprocess.run([args.cli, "tokenize", args.model, text], capture_output=True,
                         text=True)
    if out.returncode != 0:
        sys.exit(f"attnscope-cli tokenize failed: {out.stderr.strip()[-400:]}")
    return [int(line.split("\t")[1]) for line in out.stdout.splitlines()[1:]]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cli", required=True)
    p.add_argument("--peer-dir", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--texts", help="JSON array of strings (default: the texts above)")
    args = p.parse_args()
    texts = TEXTS
    if args.texts:
        with open(args.texts, encoding="utf-8") as f:
            texts = json.load(f)
    vocab_type, theirs = peer_ids(args, texts)
    failed = 0
    for text, want in zip(texts, theirs):
        got = cli_ids(args, text)
        if got != want:
            failed += 1
            print(f"differ on {text!r}:\n  attnscope {got}\n  llama.cpp {want}")
    name = os.path.basename(args.model)
    print(f"{name} ({vocab_type}): {len(texts) - failed} of {len(texts)} texts give "
          "llama.cpp's ids")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
