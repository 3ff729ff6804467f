"""Coreference scoring rules R1-R8 of issue 16, re-implemented independently of the C++.

Pure Python (plus numpy for the per-head predictions): the CorefUD reader (R1-R3), the windows
(R4), the scored mentions (R5), per-head predictions (R6), mention types (R7) and the three
baselines (R8). Tokenization and attention come from outside (callables), so the same code runs
on a real checkpoint (coref_reference.py) and on hand-made attention (coref_selftest.py). The
word alignment and word-level attention are the dependency reference's (deps_reference.py
units_for / unit_map), because R6 says "as in dependency scoring".

Choices the rules leave open, made here and stated so the C++ can agree or object:
- Discontinuous parts, openers left open and closers without an opener are counted and then
  ignored completely: they are neither scored nor antecedents nor baseline candidates.
  Discontinuous parts are counted once per opening bracket (a single-word part counts once).
- A sentence has no tree when any of its words has HEAD `_`; then every mention's head is its
  last word.
- `mentions` counts the complete continuous mentions of every sentence (windows or not).
- Baseline "nearest": start last, then end last, then the mention whose opening bracket comes
  first in the file (a mention's reading order: sentence, first word, longest first, bracket).
- Discontinuous parts whose opener is left open count as discontinuous, not unclosed.
- Lemma and string comparisons are case-insensitive through Python's str.lower().
- A window in which some word gets no token (alignment fails) is not scored and is counted as
  `windows_unaligned`.
"""
import collections
import dataclasses
import re

import numpy as np

import deps_reference

TYPES = ("all", "pronoun", "proper", "nominal")
AGREEMENT = ("Number", "Gender", "Person")


class FormatError(Exception):
    """A malformed file in strict mode; the message is "<file>:<line>: <reason>"."""


@dataclasses.dataclass
class Sentence:
    """One sentence: its words (syntactic words only, no ranges or empty nodes) and text."""
    line: int
    forms: list
    lemmas: list
    upos: list
    feats: list  # dict per word
    heads: list  # int per word, or None for the whole sentence when it has no tree
    text: str  # surface text as deps_reference rebuilds it
    spans: list  # (begin, end) per word in `text`; the words of a multiword token share it
    own: list  # each word's own piece of a multiword token when the forms spell it


@dataclasses.dataclass
class Mention:
    """A complete continuous mention: entity id, sentence index in its document, first and
    last word (1-based, inclusive), head word (1-based) and reading order in the file."""
    entity: str
    sent: int
    first: int
    last: int
    head: int
    order: int


@dataclasses.dataclass
class Document:
    ident: str
    sentences: list = dataclasses.field(default_factory=list)
    mentions: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class ReadCounts:
    mentions: int = 0
    discontinuous: int = 0
    unclosed: int = 0
    unmatched: int = 0
    warnings: list = dataclasses.field(default_factory=list)


# --- R2: the Entity= attribute ---------------------------------------------------------------

def parse_entity(value):
    """Splits an Entity= value into ("open" | "close" | "single", eid) items, in order.
    eid = the characters after `(` (or at the start of a closer) up to the first `-` or `)`;
    an opener's other attributes run to the next `(` or `)`. Raises ValueError(reason)."""
    items, i, n = [], 0, len(value)
    if n == 0:
        raise ValueError("empty Entity value")
    while i < n:
        opener = value[i] == "("
        start = i + 1 if opener else i
        m = re.compile(r"[^-)(]*").match(value, start)
        eid, i = m.group(0), m.end()
        if not eid:
            raise ValueError(f"empty entity id at character {start + 1} of Entity={value}")
        if opener:
            if i < n and value[i] == "-":
                while i < n and value[i] not in "()":
                    i += 1
            if i < n and value[i] == ")":
                items.append(("single", eid))
                i += 1
            else:
                items.append(("open", eid))
        else:
            if i < n and value[i] == "-":
                while i < n and value[i] not in "()":
                    i += 1
            if i >= n or value[i] != ")":
                raise ValueError(f"stray characters in Entity={value}: closer {eid!r} "
                                 f"without ')'")
            items.append(("close", eid))
            i += 1
    return items


def head_word(heads, first, last):
    """R3: the word of [first, last] whose HEAD lies outside the span (or is 0), leftmost when
    several qualify; without a tree (heads is None) the last word."""
    if heads is None:
        return last
    for w in range(first, last + 1):
        h = heads[w - 1]
        if h == 0 or not first <= h <= last:
            return w
    return last  # unreachable in a tree; a cycle inside the span falls back to the last word


def sentence_mentions(rows, counts):
    """R2 for one sentence: rows are (line, word id, MISC). Returns [(eid, first, last)] of
    complete continuous mentions, by first word, then longest first, then opening bracket
    order; counts discontinuous / unclosed / unmatched. Raises
    ValueError((line, reason)) on a malformed value."""
    stack, done, tally, seq = [], [], collections.Counter(), 0
    for line, word, misc in rows:
        values = [a[len("Entity="):] for a in misc.split("|") if a.startswith("Entity=")]
        for value in values:
            try:
                items = parse_entity(value)
            except ValueError as e:
                raise ValueError((line, str(e))) from None
            for kind, eid in items:
                seq += kind != "close"
                if kind == "single":
                    done.append((eid, word, word, seq))
                elif kind == "open":
                    stack.append((eid, word, seq))
                else:
                    match = next((k for k in range(len(stack) - 1, -1, -1)
                                  if stack[k][0] == eid), None)
                    if match is None:
                        tally["unmatched"] += 1
                    else:
                        _, first, opened = stack.pop(match)
                        done.append((eid, first, word, opened))
    tally["unclosed"] += len(stack)
    tally["discontinuous"] += sum(1 for eid, _, _, _ in done if "[" in eid)
    tally["discontinuous"] += sum(1 for eid, _, _ in stack if "[" in eid)
    tally["unclosed"] -= sum(1 for eid, _, _ in stack if "[" in eid)
    counts.discontinuous += tally["discontinuous"]
    counts.unclosed += tally["unclosed"]
    counts.unmatched += tally["unmatched"]
    done.sort(key=lambda d: (d[1], -d[2], d[3]))
    return [(eid, f, l) for eid, f, l, _ in done if "[" not in eid]


def _build_sentence(start, rows):
    """Sentence fields from the 10-column rows (text and spans as deps_reference builds them)."""
    words = [r for r in rows if r[1][0].isdigit() and "-" not in r[1][0] and "." not in r[1][0]]
    _, forms, heads, _, text, spans, own = deps_reference._finish(
        start, [[c if k != 6 else "0" for k, c in enumerate(r[1])] for r in rows])
    raw_heads = [r[1][6] for r in words]
    tree = None if any(h == "_" for h in raw_heads) else [int(h) for h in raw_heads]
    feats = [dict(f.split("=", 1) for f in r[1][5].split("|") if "=" in f) for r in words]
    return Sentence(start, forms, [r[1][2] for r in words], [r[1][3] for r in words], feats,
                    tree, text, spans, own)


def read_corefud(path, strict=False):
    """R1-R3: documents with their sentences and complete continuous mentions, and the counts
    of what was set aside. A malformed Entity= value is FormatError in strict mode; otherwise
    that sentence's mentions are dropped and "<file>:<line>: <reason>" is recorded."""
    docs, counts, order = [], ReadCounts(), 0
    pending_newdoc, pending_id = False, ""
    rows, start = [], None

    def finish():
        nonlocal order
        if not docs or pending_newdoc:
            docs.append(Document(pending_id if pending_newdoc else ""))
        doc = docs[-1]
        sent = _build_sentence(start, rows)
        words = [(line, int(c[0]), c[9]) for line, c in rows
                 if c[0].isdigit()]
        try:
            found = sentence_mentions(words, counts)
        except ValueError as e:
            line, reason = e.args[0]
            message = f"{path}:{line}: {reason}"
            if strict:
                raise FormatError(message) from None
            counts.warnings.append(message)
            found = []
        index = len(doc.sentences)
        doc.sentences.append(sent)
        for eid, first, last in found:
            doc.mentions.append(Mention(eid, index, first, last,
                                        head_word(sent.heads, first, last), order))
            order += 1
            counts.mentions += 1

    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\r\n")
            if not line:
                if rows:
                    finish()
                    pending_newdoc = False
                rows, start = [], None
                continue
            start = start or number
            if line.startswith("#"):
                m = re.match(r"#\s*newdoc(\s+id\s*=\s*(.*))?\s*$", line)
                if m:
                    pending_newdoc, pending_id = True, (m.group(2) or "").strip()
                continue
            rows.append((number, line.split("\t")))
    if rows:
        finish()
    return docs, counts


# --- R4: windows -----------------------------------------------------------------------------

def make_windows(doc, n_tokens, limit):
    """Greedy windows of consecutive sentence indices whose joined text ("one space between")
    has at most `limit` tokens (special tokens included); returns (windows, skipped)."""
    windows, current, skipped = [], [], 0

    def fits(indices):
        return n_tokens(" ".join(doc.sentences[i].text for i in indices)) <= limit

    for i in range(len(doc.sentences)):
        if current and fits(current + [i]):
            current.append(i)
            continue
        if current:
            windows.append(current)
        current = [i] if fits([i]) else []
        skipped += not current
    if current:
        windows.append(current)
    return windows, skipped


def window_words(doc, window):
    """The window's text, each word's span and own piece in it, and (sentence, word) -> index."""
    text, spans, own, index = "", [], [], {}
    for s in window:
        sent = doc.sentences[s]
        base = len(text) + (1 if text else 0)
        text = text + " " + sent.text if text else sent.text
        for w in range(len(sent.forms)):
            index[(s, w + 1)] = len(spans)
            spans.append((sent.spans[w][0] + base, sent.spans[w][1] + base))
            own.append((sent.own[w][0] + base, sent.own[w][1] + base))
    return text, spans, own, index


# --- R5, R7, R8: scored mentions and baselines -----------------------------------------------

def mention_type(upos):
    """R7."""
    return {"PRON": "pronoun", "PROPN": "proper"}.get(upos, "nominal")


def _form_string(doc, m):
    return " ".join(doc.sentences[m.sent].forms[m.first - 1:m.last]).lower()


def _head_attr(doc, m, attr):
    sent = doc.sentences[m.sent]
    return getattr(sent, attr)[m.head - 1]


def _agrees(doc, a, b):
    fa, fb = _head_attr(doc, a, "feats"), _head_attr(doc, b, "feats")
    return all(f not in fa or f not in fb or fa[f] == fb[f] for f in AGREEMENT)


def _nearest(candidates):
    """Starts last, then ends last, then read first (lowest reading order)."""
    if not candidates:
        return None
    return max(candidates, key=lambda c: (c.sent, c.first, c.sent, c.last, -c.order))


def baselines(doc, m, candidates):
    """R8: the pick of each baseline (a Mention or None)."""
    lemma = _head_attr(doc, m, "lemmas").lower()
    same_lemma = [c for c in candidates if _head_attr(doc, c, "lemmas").lower() == lemma]
    text = _form_string(doc, m)
    sieves = ([c for c in candidates if _form_string(doc, c) == text], same_lemma,
              [c for c in candidates if _agrees(doc, m, c)], candidates)
    sieve = next((_nearest(s) for s in sieves if s), None)
    return {"nearest": _nearest(candidates), "head_match": _nearest(same_lemma), "sieve": sieve}


def scored_mentions(doc, window):
    """R5: [(mention, type, antecedent head keys, candidates)] for the window, where a head key
    is (sentence, word). Candidates are all earlier mentions with another head (for R8)."""
    inside = set(window)
    ms = [m for m in doc.mentions if m.sent in inside]
    out = []
    for m in ms:
        key = (m.sent, m.head)
        earlier = [c for c in ms if (c.sent, c.first) < (m.sent, m.first)
                   and (c.sent, c.head) != key]
        antecedents = {(c.sent, c.head) for c in earlier if c.entity == m.entity}
        if antecedents:
            kind = mention_type(_head_attr(doc, m, "upos"))
            out.append((m, kind, antecedents, earlier))
    return out


# --- R6: per-head predictions ----------------------------------------------------------------

def predict_rows(words_map, rows):
    """Argmax over the other words for each row index; ties to the lowest index; None when
    every candidate has zero attention."""
    preds = []
    for i in rows:
        row = words_map[i].astype(np.float64)
        row[i] = -1.0
        best = int(np.argmax(row)) if len(row) > 1 else -1
        preds.append(best if best >= 0 and row[best] > 0.0 else None)
    return preds


class Tally:
    """Counts per (layer, head, type): correct, predicted, no_prediction, total; baselines."""

    def __init__(self):
        self.heads = None
        self.base = {b: collections.Counter() for b in ("nearest", "head_match", "sieve")}
        self.types = collections.Counter()
        self.c = collections.Counter()

    def ensure(self, layers, nheads):
        if self.heads is None:
            self.heads = np.zeros((layers, nheads, len(TYPES), 4), dtype=np.int64)
        elif self.heads.shape[:2] != (layers, nheads):
            raise ValueError("attention shape changed between windows")


def score_window(doc, window, encode, attend, tally, mwt="split"):
    """Scores one window: encode(text) -> (offsets, special); attend(text) ->
    [layers, heads, n, n] token attention (row = query)."""
    scored = scored_mentions(doc, window)
    text, spans, own, index = window_words(doc, window)
    offsets, special = encode(text)
    aligned = deps_reference.units_for(offsets, special, text, spans,
                                       spans if mwt == "share" else own)
    tally.c["windows"] += 1
    if aligned is None:
        tally.c["windows_unaligned"] += 1
        return
    tally.c["scored_mentions"] += len(scored)
    if not scored:
        return
    units, word_unit = aligned
    rows = [index[(m.sent, m.head)] for m, _, _, _ in scored]
    kinds = [[0, TYPES.index(kind)] for _, kind, _, _ in scored]
    for m, kind, _, candidates in scored:
        tally.types["all"] += 1
        tally.types[kind] += 1
        for name, pick in baselines(doc, m, candidates).items():
            ok = pick is not None and pick.entity == m.entity
            for t in ("all", kind):
                tally.base[name][t] += ok
    attention = attend(text)
    tally.ensure(*attention.shape[:2])
    for layer in range(attention.shape[0]):
        for head in range(attention.shape[1]):
            umap = deps_reference.unit_map(np.asarray(attention[layer, head]), units, "mean")
            words_map = umap[np.ix_(word_unit, word_unit)]
            for (m, _, ante, _), pred, ks in zip(scored, predict_rows(words_map, rows), kinds):
                targets = {index[k] for k in ante}
                for t in ks:
                    cell = tally.heads[layer, head, t]
                    cell[3] += 1
                    if pred is None:
                        cell[2] += 1
                    else:
                        cell[1] += 1
                        cell[0] += pred in targets


def score_corpus(docs, n_tokens, encode, attend, limit, mwt="split"):
    """Runs R4-R8 over every document; returns the Tally."""
    tally = Tally()
    for doc in docs:
        windows, skipped = make_windows(doc, n_tokens, limit)
        tally.c["sentences_skipped"] += skipped
        for window in windows:
            score_window(doc, window, encode, attend, tally, mwt)
    return tally
