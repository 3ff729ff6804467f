#!/usr/bin/env python3
"""The app's include floors (README, "Layout"): a folder of app/ includes only from its own floor
and the floors below it, so a change to a view never rebuilds the session and an analysis never
becomes something the service needs. Prints every include that runs back up; exits 1 if any."""
import pathlib
import re
import sys

# Lowest first. Folders on one floor may include each other; analyses/<name>/ include
# analyses/corpus/ and their own folder only (one analysis never includes another).
FLOORS = [
    ["render", "settings"],
    ["session"],
    ["service"],
    ["widgets"],
    ["views"],
    ["cli"],
    ["analyses"],
    ["panels", "dialogs"],
    ["."],  # main_window, command_line, main.cpp, cli_main.cpp
]
# Arrows known to run up, each with the step that removes it (README, "Layout"). None is left;
# the set stays so that a future exception is written down here, with its reason.
KNOWN = set()
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def floor_of(folder):
    for level, names in enumerate(FLOORS):
        if folder in names:
            return level
    return None


def folder_of(rel):
    parts = rel.parts
    return parts[0] if len(parts) > 1 else "."


def check(app):
    problems = []
    for path in sorted(app.rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        rel = path.relative_to(app)
        here = folder_of(rel)
        for target in INCLUDE.findall(path.read_text(encoding="utf-8")):
            if target.startswith("attnscope/") or "/" not in target:
                continue
            there = target.split("/")[0]
            if floor_of(there) is None:
                continue  # not an app folder
            if f"{rel}: includes {target}" in KNOWN:
                continue
            if floor_of(there) > floor_of(here):
                problems.append(f"{rel}: includes {target}, a higher floor")
            if here == "analyses" and there == "analyses" and len(rel.parts) > 2:
                mine, theirs = rel.parts[1], target.split("/")[1]
                # analyses/registry.h and the shared corpus pieces serve every analysis.
                if theirs not in (mine, "corpus", "registry.h"):
                    problems.append(f"{rel}: includes {target}, another analysis")
    return problems


def main():
    app = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "app")
    problems = check(app)
    for p in problems:
        print(p)
    print(f"{len(problems)} include(s) against the floors")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
