"""The command line the *_reference.py scripts share: the parser with its --model (and
--self-test) options, and the run that turns a refused input into one line on standard error and
exit status 1 instead of a traceback; and the command line and manifest the checkpoint writers
(make_checkpoints.py, make_seq2seq_checkpoints.py) and their reference passes (torch_reference.py,
seq2seq_reference.py) share. Independent of the C++ code, like every script here."""

import argparse
import json
import os
import sys
import time


def parser(doc, self_test=False, model_required=True):
    """An argument parser described by the first paragraph of `doc`, with --model (and
    --self-test CHECKPOINTS_DIR first when `self_test`); the script adds its own options."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    if self_test:
        p.add_argument("--self-test", metavar="CHECKPOINTS_DIR")
    p.add_argument("--model", required=model_required, help="checkpoint folder")
    return p


def run_self_test(args, module_name):
    """Runs module_name.run(CHECKPOINTS_DIR) and exits with its status when --self-test is given
    (imported only then: the references themselves never need it)."""
    if args.self_test:
        sys.exit(__import__(module_name).run(args.self_test))


def add_mask_id(p):
    """--mask-id, for the references that mask tokens of a masked LM."""
    p.add_argument("--mask-id", type=int, help="mask token id (default: tokenizer files)")


def add_id_corpus(p, flag):
    """`flag` FILE: a corpus of token ids, one comma-separated list per line (the format
    ablation_reference.read_corpus reads, for the ablation and importance references)."""
    p.add_argument(flag, help="one comma-separated id list per line")


def parse_self_tested(p, module_name, needed):
    """Adds --out, parses the command line and runs module_name's self test when --self-test is
    given (see run_self_test); otherwise --model, `needed` (such as "--ids") and --out must be."""
    p.add_argument("--out", help="output .safetensors")
    args = p.parse_args()
    run_self_test(args, module_name)
    if not (args.model and getattr(args, needed[2:].replace("-", "_")) and args.out):
        p.error(f"--model, {needed} and --out are required (or --self-test)")
    return args


def write_or_exit(write, args, script, does_not_fit=None):
    """Calls write(args); a refused input ends the script with "<script>: <why>". `does_not_fit`
    ("an input", "the input") names what an IndexError of a position table means."""
    try:
        write(args)
    except (ValueError, OSError, KeyError, NotImplementedError) as e:
        sys.exit(f"{script}: {e}")
    except IndexError as e:
        if does_not_fit is None:
            raise
        # Position tables: a sentence longer than the model's positions.
        sys.exit(f"{script}: {args.model}: {does_not_fit} does not fit the model ({e})")


def write_manifest(root, manifest):
    """Writes root/manifest.json (the list of cases written) and returns the list."""
    with open(os.path.join(root, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")
    return manifest


def checkpoints_main(doc, folder, what, write_all, reference, options=()):
    """The command line of a checkpoint writer: --out, --case and --no-reference, plus `options`
    ((flag, help) pairs); `write_all(args)` writes OUT/<folder>/ and returns its manifest, then the
    module `reference` (imported late: it is the slow part and optional here) runs on it."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--out", required=True, help=f"output folder (gets {folder}/)")
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    parser.add_argument("--no-reference", action="store_true",
                        help=f"write checkpoints only, skip {reference}")
    for flag, help_text in options:
        parser.add_argument(flag, help=help_text)
    args = parser.parse_args()
    start = time.monotonic()
    manifest = write_all(args)
    print(f"wrote {len(manifest)} {what} in {time.monotonic() - start:.1f} s")
    if not args.no_reference:
        __import__(reference).run(args.out)
    print(f"total {time.monotonic() - start:.1f} s")


def manifest_pass(doc, folder, run_case, label, gap):
    """run(OUT_DIR) and main() of a reference pass: run_case(root, entry) on every case of
    OUT/<folder>/manifest.json, then one line with how many inputs there were and the worst
    float32/float64 `gap` ("probability") run_case returned; main takes OUT_DIR as --dir."""

    def run(out_dir):
        start = time.monotonic()
        root = os.path.join(out_dir, folder)
        with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        worst = max(run_case(root, entry) for entry in manifest)
        print(f"{label}: {sum(len(e['inputs']) for e in manifest)} inputs, worst fp32/fp64 {gap} "
              f"gap {worst:.2e}, {time.monotonic() - start:.1f} s")

    def main():
        parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
        parser.add_argument("--dir", required=True, help=f"folder holding {folder}/manifest.json")
        run(parser.parse_args().dir)

    return run, main
