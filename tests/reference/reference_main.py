"""The command line the *_reference.py scripts share: the parser with its --model (and
--self-test) options, and the run that turns a refused input into one line on standard error and
exit status 1 instead of a traceback. Independent of the C++ code, like every script here."""

import argparse
import sys


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
