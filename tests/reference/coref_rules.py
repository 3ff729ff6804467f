"""Coreference scoring rules R1-R8 of issue 16, re-implemented independently of the C++.

Pure Python (plus numpy for the per-head predictions): the CorefUD reader (R1-R3), the windows
(R4), the scored mentions (R5), per-head predictions (R6), mention types (R7) and the three
baselines (R8). Tokenization and attention come from outside (callables), so the same code runs
on a real checkpoint (coref_reference.py) and on hand-made attention (coref_selftest.py). The
word alignment and word-level attention are the dependency reference's (deps_reference.py
units_for / unit_map), because R6 says "as in dependency scoring".

The decisions D1-D12 of issue 16 (the final rules, shared with the C++), as implemented here:
- D1 An eid runs to the first `-`, `(` or `)`: `(e1(e2)` is an opener e1 without attributes,
  then the single-word mention e2.
- D2 Every opening item (opener or single-word item) whose eid contains `[` is one
  discontinuous part: counted once, never a mention, never unclosed; a closer with `[` closes it
  as usual, or counts as unmatched when nothing of its eid is open.
- D3 A closer is exactly `eid)`; `e1-foo)` is malformed. D4 Two `Entity=` attributes in one
  MISC field are malformed. D5 Also malformed: an empty value or eid, a closer without `)`, a
  an ASCII control character or space (code points 0-32, as the C++ reader) in an eid. Non-strict: the
  sentence gives no mentions and adds nothing to discontinuous / unclosed / unmatched; one
  warning "<file>:<line>: <reason>" (line of the word) per such sentence.
- D6 `mentions` counts the complete continuous mentions of every sentence (windows or not).
- D7 Mention order: sentence, first word, longer first, then the order of the opening brackets;
  an entity is (document, eid).
- D8 Lemma and form-string comparisons through str.casefold() (full case folding).
- D9 Agreement: for each of Number, Gender, Person, disagree only when both head words have the
  feature with different values; FEATS `_` = no features.
- D10 nearest: start last, then end last, then earlier in mention order (D7).
- D11/D12 A word that gets no token (including one covered only by a special token) is no
  candidate; a scored mention (R5) loses its antecedent head words without a token and is not
  scored at all (heads and baselines) when its own head word has none or no antecedent is left:
  it counts in `mentions_without_token`. Windows are never dropped for this.
Also: a sentence has no tree when any of its words has HEAD `_`; then every mention's head is
its last word. The model runs only on windows with at least one mention scored after D11 (the
windows attnscope-cli coref dumps; the rules do not say, and no count depends on it).
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

    @property
    def malformed_sentences(self):
        return len(self.warnings)


# --- R2: the Entity= attribute ---------------------------------------------------------------

_EID = re.compile(r"[^-()]*")


def _read_eid(value, start):
    """D1, D5: the eid starting at `start` (up to the first `-`, `(` or `)`) and its end."""
    eid = _EID.match(value, start).group(0)
    if not eid:
        raise ValueError(f"empty entity id at character {start + 1} of Entity={value}")
    bad = next((c for c in eid if ord(c) <= 32), None)
    if bad is not None:
        raise ValueError(f"character {bad!r} in entity id {eid!r} of Entity={value}")
    return eid, start + len(eid)


def parse_entity(value):
    """Splits an Entity= value into ("open" | "close" | "single", eid) items, in order.
    An opener's attributes (after `-`) run to the next `(` or `)`; a closer is exactly `eid)`
    (D3). Raises ValueError(reason)."""
    items, i, n = [], 0, len(value)
    if n == 0:
        raise ValueError("empty Entity value")
    while i < n:
        if value[i] == "(":
            eid, i = _read_eid(value, i + 1)
            if i < n and value[i] == "-":
                while i < n and value[i] not in "()":
                    i += 1
            if i < n and value[i] == ")":
                items.append(("single", eid))
                i += 1
            else:
                items.append(("open", eid))
            continue
        eid, i = _read_eid(value, i)
        if i < n and value[i] == "-":
            raise ValueError(f"closer {eid!r} with attributes in Entity={value} (a closer is "
                             f"'eid)')")
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
        if len(values) > 1:
            raise ValueError((line, f"{len(values)} Entity= attributes in one MISC field"))
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
    return " ".join(doc.sentences[m.sent].forms[m.first - 1:m.last]).casefold()


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
    lemma = _head_attr(doc, m, "lemmas").casefold()
    same_lemma = [c for c in candidates if _head_attr(doc, c, "lemmas").casefold() == lemma]
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
    """Counts per (layer, head, type): correct, predicted, no_prediction, total; per baseline
    and type: correct; scored mentions per type; the corpus counts in `c`."""

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


def _with_tokens(doc, scored, index, word_unit, tally):
    """D11: [(mention, type, head word, antecedent words, candidates)] of the mentions left
    after dropping head words without a token; counts the others."""
    kept = []
    for m, kind, ante, candidates in scored:
        head = index[(m.sent, m.head)]
        targets = {index[k] for k in ante if word_unit[index[k]] is not None}
        if word_unit[head] is None or not targets:
            tally.c["mentions_without_token"] += 1
            continue
        kept.append((m, kind, head, targets, candidates))
    return kept


def _add_heads(attention, units, word_unit, kept, tally, from_mode):
    """R6 for every head: argmax over the words that have a unit (D11)."""
    tally.ensure(*attention.shape[:2])
    words = [w for w, u in enumerate(word_unit) if u is not None]
    position = {w: p for p, w in enumerate(words)}
    rows = [position[head] for _, _, head, _, _ in kept]
    kinds = [(0, TYPES.index(kind)) for _, kind, _, _, _ in kept]
    for layer in range(attention.shape[0]):
        for h in range(attention.shape[1]):
            umap = deps_reference.unit_map(np.asarray(attention[layer, h]), units, from_mode)
            words_map = umap[np.ix_([word_unit[w] for w in words], [word_unit[w] for w in words])]
            for (_, _, _, targets, _), pred, ks in zip(kept, predict_rows(words_map, rows), kinds):
                for t in ks:
                    cell = tally.heads[layer, h, t]
                    cell[3] += 1
                    if pred is None:
                        cell[2] += 1
                    else:
                        cell[1] += 1
                        cell[0] += words[pred] in targets


def score_window(doc, window, encode, attend, tally, mwt="split", from_mode="mean"):
    """Scores one window: encode(text) -> (offsets, special); attend(text) ->
    [layers, heads, n, n] token attention (row = query), or None to score no head (the parity
    mode's missing dump group). The model runs only when some mention is scored."""
    tally.c["windows"] += 1
    scored = scored_mentions(doc, window)
    if not scored:
        return
    text, spans, own, index = window_words(doc, window)
    offsets, special = encode(text)
    units, word_unit = deps_reference.units_for(offsets, special, text, spans,
                                                spans if mwt == "share" else own,
                                                missing_ok=True)
    kept = _with_tokens(doc, scored, index, word_unit, tally)
    attention = attend(text) if kept else None
    tally.c["scored_mentions"] += len(kept)
    for m, kind, _, _, candidates in kept:
        tally.types["all"] += 1
        tally.types[kind] += 1
        for name, pick in baselines(doc, m, candidates).items():
            ok = pick is not None and pick.entity == m.entity
            for t in ("all", kind):
                tally.base[name][t] += ok
    if kept and attention is not None:
        _add_heads(attention, units, word_unit, kept, tally, from_mode)


def score_corpus(docs, n_tokens, encode, attend, limit, mwt="split", from_mode="mean"):
    """Runs R4-R8 over every document; returns the Tally."""
    tally = Tally()
    for doc in docs:
        windows, skipped = make_windows(doc, n_tokens, limit)
        tally.c["sentences_skipped"] += skipped
        for window in windows:
            score_window(doc, window, encode, attend, tally, mwt, from_mode)
    return tally
