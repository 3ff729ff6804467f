"""Check that three other tokenizers give the ids of wordpiece.py on the held-out text.

Usage: check_tokenizer.py DATA_DIR MODEL_DIR ATTNSCOPE_CLI [--cli-sample N] [--out FILE.json]

* Hugging Face tokenizers, Rust crate (Node binding) and tokenizers.js, through the project's
  tests/reference/tokenizer_ref/make_reference.mjs, on every held-out sentence plus a few
  awkward strings (accents, CJK, controls, long words);
* AttnScope (`attnscope-cli tokenize`, one process per sentence, so only every k-th sentence).
A mismatch is printed with its text; the exit code is 1 if there is any. The report is merged
into MODEL_DIR/metrics.json under "tokenizer_check" (the model card is written from it).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from metrics_file import merge_metrics
import wordpiece as wp

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "..", "..", "tests", "reference", "tokenizer_ref", "make_reference.mjs")

AWKWARD = [
    "Héllo, WORLD!  Don't stop — naïve café, Ærøskøbing, straße.",
    "漢字 mixed with English, and 한국어 too.",
    "tab\tnew\nline\rcarriage\x00nul\u200bzero-width\ufffdreplacement\u00adsoft-hyphen",
    "a" * 101 + " and " + "b" * 100,
    "ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΎΣ İstanbul ǅemal ﬁnancial ½ ² ①",
    "e-mail: someone@example.org, $5.00 + 3% ~ 20 <html> `code` ^_^ |pipe|",
    "",
]


def python_ids(tok, texts):
    return [tok.encode(t) for t in texts]


def reference_ids(model_dir, texts):
    with tempfile.TemporaryDirectory() as tmp:
        extra = os.path.join(tmp, "texts.json")
        with open(extra, "w", encoding="utf-8") as f:
            json.dump(texts, f, ensure_ascii=False)
        subprocess.run(["node", REF, "--out-dir", tmp, "--extra", extra,
                        "--model", f"m={model_dir}/tokenizer.json"], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "m.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
    return [r["ids"] for r in rows], [r["rs_ids"] for r in rows]


def attnscope_ids(cli, model_dir, text):
    out = subprocess.run([cli, "tokenize", model_dir, text], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    return [int(line.split("\t")[1]) for line in out[1:] if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir")
    ap.add_argument("model_dir")
    ap.add_argument("cli")
    ap.add_argument("--cli-sample", type=int, default=300)
    ap.add_argument("--out")
    a = ap.parse_args()

    with open(f"{a.data_dir}/heldout.txt", encoding="utf-8") as f:
        texts = [line.rstrip("\n") for line in f if line.strip()] + AWKWARD
    tok = wp.WordPiece.load(f"{a.model_dir}/vocab.txt")
    mine = python_ids(tok, texts)
    report = {"sentences": len(texts)}
    bad = 0

    refs = []
    if os.path.isdir(os.path.join(os.path.dirname(REF), "node_modules")):
        js, rs = reference_ids(a.model_dir, texts)
        refs = [("tokenizers (Rust)", rs), ("tokenizers.js", js)]
    else:
        print("Hugging Face references skipped: run packaging/install-deps.sh --test first")
    for name, ref in refs:
        diff = [i for i in range(len(texts)) if ref[i] != mine[i]]
        report[name] = {"compared": len(texts), "mismatches": len(diff)}
        for i in diff[:5]:
            print(f"{name} differs on {texts[i]!r}:\n  python {mine[i]}\n  ref    {ref[i]}")
        bad += len(diff)

    step = max(1, (len(texts) - len(AWKWARD)) // a.cli_sample)
    picked = list(range(0, len(texts) - len(AWKWARD), step))[:a.cli_sample]
    # argv cannot hold NUL, and an empty TEXT is a usage error: those only go to the references.
    picked += [i for i in range(len(texts) - len(AWKWARD), len(texts))
               if texts[i] and "\0" not in texts[i]]
    diff = [i for i in picked if attnscope_ids(a.cli, a.model_dir, texts[i]) != mine[i]]
    for i in diff[:5]:
        print(f"AttnScope differs on {texts[i]!r}:\n  python {mine[i]}\n"
              f"  cli    {attnscope_ids(a.cli, a.model_dir, texts[i])}")
    report["attnscope-cli"] = {"compared": len(picked), "mismatches": len(diff)}
    bad += len(diff)

    # [UNK] is counted on the held-out text alone: the awkward strings are made to produce it.
    n_held = len(texts) - len(AWKWARD)
    n_tok = sum(len(m) - 2 for m in mine[:n_held])
    n_unk = sum(m.count(wp.UNK) for m in mine[:n_held])
    report.update({"heldout_sentences": n_held, "awkward_strings": len(AWKWARD),
                   "heldout_tokens": n_tok, "heldout_unk": n_unk,
                   "unk_rate": round(n_unk / max(1, n_tok), 6),
                   "awkward_unk": sum(m.count(wp.UNK) for m in mine[n_held:])})
    print(json.dumps(report, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(report, f, indent=1)
    merge_metrics(a.model_dir, {"tokenizer_check": report})
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
