"""Build the training corpus from English prose shipped in Debian 12 packages.

Output (in WORK_DIR): train.txt and heldout.txt — one sentence per line, a blank line between
documents — and corpus_stats.json (words and sentences per source).

Each source is reduced to prose paragraphs (markup, code, tables, headings and licence
boilerplate dropped), split into sentences, and exact duplicates (after case/space folding) are
removed globally in a fixed order. A document goes to the held-out slice iff the MD5 of its key
falls in the first HELDOUT_PERCENT of the hash range, so the split never depends on file-system
order, Python's hash seed or the other documents.
"""

import glob
import gzip
import hashlib
import html
import html.parser
import json
import os
import re
import subprocess
import sys

HELDOUT_PERCENT = 2
MIN_WORDS, MAX_WORDS = 3, 80

# Paragraphs mentioning these are licence/copyright boilerplate, not prose we want to learn from.
BOILERPLATE = re.compile(
    r"copyright|licen[cs]e|warrant|permission is granted|free software foundation|"
    r"gnu free documentation|invariant sections|all rights reserved", re.I)


def words(text):
    return len(text.split())


def prose_like(par):
    """Reject paragraphs that look like code, tables or lists of identifiers."""
    letters = sum(c.isalpha() or c.isspace() for c in par)
    return (len(par) > 0 and letters / len(par) > 0.85 and not BOILERPLATE.search(par)
            and words(par) >= MIN_WORDS)


# --- sentence splitting -------------------------------------------------------------------------
# A plain regex splitter: a sentence ends at . ! or ? (plus closing quotes/brackets) followed by
# whitespace and an upper-case letter, digit or opening quote. Common abbreviations are protected.
_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|vs|cf|Mr|Mrs|Dr|St|Jr|Sr|No|Fig|approx|resp)\.$", re.I)
_BOUNDARY = re.compile(r"([.!?][\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(par):
    out, start = [], 0
    for m in _BOUNDARY.finditer(par):
        candidate = par[start:m.end(1)]
        if _ABBREV.search(candidate):
            continue
        out.append(candidate.strip())
        start = m.end()
    out.append(par[start:].strip())
    return [s for s in out if MIN_WORDS <= words(s) <= MAX_WORDS]


def squash(text):
    return re.sub(r"\s+", " ", text).strip()


# --- sources: each yields (document key, [paragraphs]) --------------------------------------------

def kjv():
    """King James Bible via the bible-kjv reader; one document per chapter, one verse a line."""
    text = subprocess.run(["bible", "-l0", "Gen1:1-Rev22:21"], check=True, capture_output=True,
                          text=True).stdout
    key, verses = None, []
    for line in text.splitlines():
        m = re.match(r"^\s+\d+ (.*)$", line)
        if m:
            verses.append(squash(m.group(1)))
        elif line.strip():
            if verses:
                yield key, verses
            key, verses = "kjv:" + line.strip(), []
    if verses:
        yield key, verses


FORTUNE_SKIP = {"art", "ascii-art", "translate-me", "perl", "linux", "linuxcookie"}


def fortunes():
    """Fortune cookies (separated by lines holding only %); attributions (-- Author) dropped."""
    for path in sorted(glob.glob("/usr/share/games/fortunes/*")):
        name = os.path.basename(path)
        if "." in name or name in FORTUNE_SKIP or os.path.isdir(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            cookies = re.split(r"^%\s*$", f.read(), flags=re.M)
        for n, cookie in enumerate(cookies):
            lines = [l for l in cookie.splitlines() if not re.match(r"^\s*--", l)]
            # Dialogues and verse keep their lines apart; anything indented as art is dropped.
            if any(re.match(r"^\s{8,}\S", l) for l in lines):
                continue
            par = squash(" ".join(lines))
            if prose_like(par):
                yield f"fortunes:{name}:{n}", [par]


class _HandbookParser(html.parser.HTMLParser):
    """Collects the text of docbook paragraphs (<div class="para">), without <pre> listings.

    Inline <code> is kept: command names are words of the sentence, and paragraphs that are
    mostly code are rejected later by prose_like."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pars, self.buf, self.depth, self.skip = [], [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag == "div" and self.depth:
            self.depth += 1
        elif tag == "div" and ("class", "para") in attrs:
            self.depth, self.buf = 1, []
        elif tag in ("pre", "script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag == "div" and self.depth:
            self.depth -= 1
            if not self.depth:
                self.pars.append(squash("".join(self.buf)))
        elif tag in ("pre", "script", "style") and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if self.depth and not self.skip:
            self.buf.append(data)


def debian_handbook():
    for path in sorted(glob.glob("/usr/share/doc/debian-handbook/html/en-US/*.html")):
        parser = _HandbookParser()
        with open(path, encoding="utf-8") as f:
            parser.feed(f.read())
        pars = [p for p in parser.pars if prose_like(p)]
        # A chapter is long; cut it into documents of 8 paragraphs so the held-out slice is varied.
        for i in range(0, len(pars), 8):
            yield f"handbook:{os.path.basename(path)}:{i}", pars[i:i + 8]


def _plain_paragraphs(text):
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


_RST_ROLE = re.compile(r":[\w:.+-]+:`(?:[^`<]*<)?([^`>]*)>?`")


def python_docs():
    """reStructuredText sources of the Python 3.11 manual: unindented prose paragraphs only."""
    root = "/usr/share/doc/python3.11/html/_sources"
    for path in sorted(glob.glob(root + "/**/*.rst.txt", recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        pars = []
        for par in _plain_paragraphs(text):
            lines = par.splitlines()
            # Indented blocks are code, directive bodies or quotes; '..' starts a directive;
            # lines of =-~^* are heading underlines; '|' and '+' start tables; '>>>' doctests.
            if (lines[0][:1].isspace() or par.startswith("..")
                    or any(re.match(r"^[=\-~^*#+|]{3,}\s*$|^[|+>]", l) for l in lines)):
                continue
            par = _RST_ROLE.sub(r"\1", par)
            par = re.sub(r"``([^`]*)``", r"\1", par)
            par = re.sub(r"`([^`<]*)(?:<[^>]*>)?`_*", r"\1", par)
            par = re.sub(r"\*\*?([^*]+)\*\*?", r"\1", par)
            par = squash(par.replace("::", ":"))
            if prose_like(par) and not par.startswith(("* ", "- ", "#. ")):
                pars.append(par)
        for i in range(0, len(pars), 8):
            yield f"python:{os.path.relpath(path, root)}:{i}", pars[i:i + 8]


_POD_CODE = re.compile(r"[A-Z]<<+\s+(.*?)\s+>>+|[A-Z]<([^<>]*)>", re.S)


def _pod_unformat(par):
    # Apply until stable so nested codes (B<I<x>>) resolve; L<text|target> keeps the text;
    # X<> and Z<> are index/zero-width markers and vanish.
    for _ in range(5):
        par = re.sub(r"[XZ]<[^<>]*>", "", par)
        new = _POD_CODE.sub(lambda m: (m.group(1) or m.group(2) or "").split("|")[0], par)
        if new == par:
            break
        par = new
    return par


def perl_docs():
    """Perl's POD manual pages: ordinary paragraphs (verbatim = indented = code dropped)."""
    # /usr/share/perl/5.36 is a symlink to 5.36.0: take each file once.
    paths = sorted({os.path.realpath(p) for p in glob.glob("/usr/share/perl/5.*/pod/*.pod")})
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        # Release notes (perl5xxxdelta) are lists of module names and bug numbers.
        if re.search(r"delta\.pod$", path):
            continue
        pars = []
        for par in _plain_paragraphs(text):
            if par[:1].isspace() or par.startswith("="):
                continue
            par = squash(_pod_unformat(par))
            if prose_like(par):
                pars.append(par)
        for i in range(0, len(pars), 8):
            yield f"perl:{os.path.basename(path)}:{i}", pars[i:i + 8]


def gnu_standards():
    """GNU Coding Standards and Information for Maintainers, plain-text renderings."""
    for name in ("standards", "maintain"):
        with gzip.open(f"/usr/share/doc/gnu-standards/{name}.text.gz", "rt",
                       encoding="utf-8") as f:
            text = f.read()
        pars = []
        for par in _plain_paragraphs(text):
            lines = par.splitlines()
            # makeinfo indents examples by 5+ spaces and underlines headings with = * - .
            if (any(re.match(r"^\s{5,}\S", l) for l in lines)
                    or any(re.match(r"^[=*\-.]{3,}\s*$", l) for l in lines)
                    or re.match(r"^\s*[*\d]", par)):
                continue
            par = squash(par.replace("'", "'").replace("`", "'"))
            if prose_like(par):
                pars.append(par)
        for i in range(0, len(pars), 8):
            yield f"gnu:{name}:{i}", pars[i:i + 8]


SOURCES = [("bible-kjv-text", kjv), ("fortunes", fortunes),
           ("debian-handbook", debian_handbook), ("python3.11-doc", python_docs),
           ("perl-doc", perl_docs), ("gnu-standards", gnu_standards)]


def is_heldout(key):
    return int(hashlib.md5(key.encode("utf-8")).hexdigest(), 16) % 100 < HELDOUT_PERCENT


def main(work_dir):
    os.makedirs(work_dir, exist_ok=True)
    seen, stats = set(), {}
    files = {False: open(os.path.join(work_dir, "train.txt"), "w", encoding="utf-8"),
             True: open(os.path.join(work_dir, "heldout.txt"), "w", encoding="utf-8")}
    for package, source in SOURCES:
        st = stats.setdefault(package, {"documents": 0, "sentences": 0, "words": 0,
                                        "heldout_sentences": 0, "duplicates_dropped": 0})
        for key, pars in source():
            sents = []
            for par in pars:
                for s in split_sentences(html.unescape(par)):
                    fold = " ".join(s.lower().split())
                    if fold in seen:
                        st["duplicates_dropped"] += 1
                        continue
                    seen.add(fold)
                    sents.append(s)
            if not sents:
                continue
            held = is_heldout(key)
            files[held].write("\n".join(sents) + "\n\n")
            st["documents"] += 1
            st["sentences"] += len(sents)
            st["words"] += sum(words(s) for s in sents)
            st["heldout_sentences"] += len(sents) if held else 0
        print(package, st, flush=True)
    for f in files.values():
        f.close()
    with open(os.path.join(work_dir, "corpus_stats.json"), "w") as f:
        json.dump(stats, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/default_model_work/data")
