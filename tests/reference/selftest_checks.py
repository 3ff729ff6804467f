"""What the reference self-tests share: the check recorder (each check prints one "ok"/"FAIL" line
under the case being run, and the failures are kept for the summary and the exit status), the
skip of an absent fixture checkpoint, the closing summary and the command line."""

import os
import sys


class Checks:
    def __init__(self):
        self.failed, self.count, self.case = [], 0, ""

    def __call__(self, name, ok, detail=""):
        self.count += 1
        label = f"{self.case}: {name}"
        print(f"  {'ok  ' if ok else 'FAIL'} {label}{f'  ({detail})' if detail else ''}")
        if not ok:
            self.failed.append(label)


def have_case(root, name):
    """Whether fixture checkpoint `name` is under `root`; an absent one is skipped, and said so."""
    if os.path.isdir(os.path.join(root, name)):
        return True
    print(f"  skip {name}: not in {root}")
    return False


def finish(what, check, seen, root, tail):
    """Prints the summary of a self-test on `seen` fixture checkpoints (`tail` ends its line) and
    returns the exit status: 1 on a failed check, or when no checkpoint was there to check."""
    print(f"{what} self-test: {check.count} checks on {seen} checkpoints, "
          f"{len(check.failed)} failed{tail}")
    if not seen:
        print(f"no fixture checkpoint under {root}")
        return 1
    return 1 if check.failed else 0


def main(run, script):
    """The command line of a self-test on the fixture checkpoints: `script` CHECKPOINTS_DIR."""
    if len(sys.argv) != 2:
        sys.exit(f"usage: {script} CHECKPOINTS_DIR")
    sys.exit(run(sys.argv[1]))
