"""Self-test of coref_rules.py (R1-R8 of issue 16) without a model or tokenizer.

Small CoNLL-U documents written here by hand (word lines as "ID FORM LEMMA UPOS FEATS HEAD
DEPREL MISC", expanded to the ten columns with XPOS and DEPS `_`), a whitespace tokenizer with
[CLS]/[SEP], and four hand-made heads:
  0 uniform  every token attends equally to all tokens: ties, so the window's first word wins;
  1 self     every token attends only to itself: no word ever has a prediction;
  2 previous token t attends to t-1 ([CLS] to itself);
  3 pointer  a word listed in POINTER attends to the first word of the window spelled as its
             target (itself, so no prediction, when there is none).
Every expected count below was worked out by hand from the documents; the comments say why.
Run: coref_reference.py --self-test (or this file directly); exit 0 when every check passes.
"""
import pathlib
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import coref_rules  # noqa: E402

DOCS = """
# text = John slept .
1 John John PROPN Number=Sing 2 nsubj Entity=(1-person-new)
2 slept sleep VERB _ 0 root _
3 . . PUNCT _ 2 punct _

# newdoc id = d1
# text = John saw his dog .
1 John John PROPN Number=Sing 2 nsubj Entity=(1-person)
2 saw see VERB _ 0 root _
3 his he PRON Gender=Masc|Number=Sing|Person=3 4 nmod:poss Entity=(2-animal(1-person)
4 dog dog NOUN Number=Sing 2 obj Entity=2)
5 . . PUNCT _ 2 punct _

# text = He liked the dog .
1 He he PRON Gender=Masc|Number=Sing|Person=3 2 nsubj Entity=(1-person)
2 liked like VERB _ 0 root _
3 the the DET _ 4 det Entity=(2-animal
4 dog dog NOUN Number=Sing 2 obj Entity=2)
5 . . PUNCT _ 2 punct _

# newdoc id = d2
1 Mary Mary PROPN Gender=Fem|Number=Sing 2 nsubj Entity=(3-person)
2 met meet VERB _ 0 root _
3 the the DET _ 4 det Entity=(4-person
4 queen queen NOUN Gender=Fem|Number=Sing 2 obj Entity=4)
5 . . PUNCT _ 2 punct _

1 Mary Mary PROPN Gender=Fem|Number=Sing 2 nsubj Entity=(3-person)
2 thanked thank VERB _ 0 root _
3 the the DET _ 4 det Entity=(5-person
4 guards guard NOUN Number=Plur 2 obj Entity=5)
5 . . PUNCT _ 2 punct _

1 She she PRON Gender=Fem|Number=Sing|Person=3 2 nsubj Entity=(3-person)
2 left leave VERB _ 0 root _
3 . . PUNCT _ 2 punct _

1 It it PRON Gender=Neut|Number=Sing|Person=3 2 nsubj Entity=(4-person)
2 ended end VERB _ 0 root _
3 . . PUNCT _ 2 punct _

# newdoc
1 the the DET _ _ _ Entity=(6-person
2 old old ADJ _ _ _ _
3 man man NOUN Number=Sing _ _ _
4 here here ADV _ _ _ Entity=6)
5 . . PUNCT _ _ _ _

1 the the DET _ 2 det Entity=(7-group(6-person
2 man man NOUN Number=Sing 6 nsubj Entity=6)
3 and and CCONJ _ 5 cc _
4 his he PRON Gender=Masc|Number=Sing|Person=3 5 nmod:poss Entity=(8-person(6-person)
5 friend friend NOUN Number=Sing 2 conj Entity=8)7)
6 left leave VERB _ 0 root _
7 . . PUNCT _ 6 punct _

1 He he PRON Gender=Masc|Number=Sing|Person=3 2 nsubj Entity=(6-person)
2 lied lie VERB _ 0 root Entity=9)(e10[1/2]-thing)
3 . . PUNCT _ 2 punct Entity=(11-event

1 It it PRON _ 2 nsubj Entity=(12-thing)
2 broke break VERB _ 0 root Entity=(-x)
3 . . PUNCT _ 2 punct _

1 It it PRON _ 2 nsubj Entity=(13-thing)junk
2 fell fall VERB _ 0 root _
3 . . PUNCT _ 2 punct _

# newdoc id = d4
1 Bob Bob PROPN _ 2 nsubj Entity=(20-person)(21-team)
2 ran run VERB _ 0 root _
3 . . PUNCT _ 2 punct _

1 Bob Bob PROPN _ 2 nsubj Entity=(21-team)
2 won win VERB _ 0 root _
3 . . PUNCT _ 2 punct _

# newdoc id = d5
1 The the DET _ 2 det Entity=(30-org
2 team team NOUN Number=Sing 3 nsubj Entity=30)
3 met meet VERB _ 0 root _
4 a a DET _ 5 det Entity=(31-org
5 team team NOUN Number=Sing 3 obj Entity=31)
6 . . PUNCT _ 3 punct _

1 the the DET _ 2 det Entity=(30-org
2 team team NOUN Number=Sing 3 nsubj Entity=30)
3 won win VERB _ 0 root _
4 . . PUNCT _ 3 punct _

# newdoc id = d6
1 Tom Tom PROPN Gender=Masc|Number=Sing 2 nsubj Entity=(41-person)
2 called call VERB _ 0 root _

1 Anna Anna PROPN Gender=Fem|Number=Sing 2 nsubj Entity=(40-person)
2 answered answer VERB _ 0 root _

1 He he PRON Gender=Masc|Number=Sing|Person=3 2 nsubj Entity=(41-person)
2 waved wave VERB _ 0 root _

1 I I PRON Number=Sing|Person=1 2 nsubj Entity=(40-person)
2 smiled smile VERB _ 0 root _
"""

# The final rules' decisions (issue 16, coref_rules_v2.md): v1 words without a token (D11:
# "calledBo" and "thankedAnn" are single whitespace tokens, so "Bo" and the second "Ann" get none),
# v2 full case folding (D8: casefold("STRASSE") == casefold("Straße"), lower() differs), v3 the
# reader (D1 "(72(73)", D2 an open discontinuous part and a stray discontinuous closer, D3 a
# closer with attributes, D4 two Entity= attributes).
DOCS_V2 = """
# newdoc id = v1
1 Ann Ann PROPN Number=Sing 2 nsubj Entity=(50-person)
2 called call VERB _ 0 root SpaceAfter=No
3 Bo Bo PROPN Number=Sing 2 obj Entity=(51-person)
4 . . PUNCT _ 2 punct _

1 Bo Bo PROPN Number=Sing 2 nsubj Entity=(51-person)
2 thanked thank VERB _ 0 root SpaceAfter=No
3 Ann Ann PROPN Number=Sing 2 obj Entity=(50-person)
4 . . PUNCT _ 2 punct _

1 She she PRON Gender=Fem|Number=Sing|Person=3 2 nsubj Entity=(50-person)
2 smiled smile VERB _ 0 root _

# newdoc id = v2
1 Die die DET _ 2 det Entity=(60-place
2 Straße Straße NOUN _ 3 nsubj Entity=60)
3 war sein VERB _ 0 root _
4 leer leer ADJ _ 3 xcomp Entity=(61-abstract)

1 STRASSE STRASSE NOUN _ 2 nsubj Entity=(60-place)
2 endet enden VERB _ 0 root _

# newdoc id = v3
1 A a DET _ 2 det Entity=(72(73)
2 cat cat NOUN _ 0 root Entity=72)(71[1/2]-y
3 ran run VERB _ 2 dep Entity=74[2/2])

1 It it PRON _ 0 root Entity=(75-x)
2 went go VERB _ 1 dep Entity=(76-x
3 away away ADV _ 2 dep Entity=76-x)

1 Go go VERB _ 0 root Entity=(77-x)|Entity=(78-x)
"""

# Only for the parity tests with real tokenizers (--write-conllu): words without a token in
# context, "]." (one GPT-2 token, so "." gets none) and "[MASK]" (a special token for BERT, D12).
DOCS_TOKENS = """
# newdoc id = t1
1 Kim Kim PROPN Number=Sing 2 nsubj Entity=(80-person)
2 said say VERB _ 0 root _
3 [ [ PUNCT _ 4 punct SpaceAfter=No
4 hi hi INTJ _ 2 obj SpaceAfter=No|Entity=(81-x)
5 ] ] PUNCT _ 4 punct SpaceAfter=No|Entity=(82-y)
6 . . PUNCT _ 2 punct Entity=(81-x)

1 She she PRON Gender=Fem|Number=Sing|Person=3 2 nsubj Entity=(80-person)
2 typed type VERB _ 0 root _
3 [MASK] [MASK] X _ 2 obj Entity=(82-y)
4 ] ] PUNCT _ 2 punct SpaceAfter=No|Entity=(80-person)
5 . . PUNCT _ 2 punct Entity=(81-x)
"""

POINTER = {"his": "John", "He": "his", "dog": "dog", "She": "Mary", "It": "queen",
           "Mary": "Mary", "man": "here", "Bob": "Bob", "team": "team",
           "I": "Anna", "STRASSE": "Straße"}


def conllu_text(docs=DOCS):
    """`docs` with word lines expanded to CoNLL-U's ten tab-separated columns."""
    out = []
    for line in docs.strip("\n").split("\n"):
        if line and not line.startswith("#"):
            c = line.split(" ")
            line = "\t".join([c[0], c[1], c[2], c[3], "_", c[4], c[5], c[6], "_", c[7]])
        out.append(line)
    return "\n".join(out) + "\n\n"


def tokens(text):
    """Whitespace tokens as (begin, end), with [CLS] and [SEP] at (0, 0)."""
    spans, at = [], 0
    for piece in text.split(" "):
        spans.append((at, at + len(piece)))
        at += len(piece) + 1
    return [(0, 0)] + spans + [(0, 0)]


def encode(text):
    offsets = tokens(text)
    return offsets, [1] + [0] * (len(offsets) - 2) + [1]


def attend(text):
    """[1, 4, n, n]: the uniform, self, previous and pointer heads of the docstring."""
    offsets = tokens(text)
    forms = [text[b:e] if k not in (0, len(offsets) - 1) else None
             for k, (b, e) in enumerate(offsets)]
    n = len(offsets)
    a = np.zeros((1, 4, n, n), dtype=np.float32)
    a[0, 0] = 1.0 / n
    a[0, 1] = np.eye(n)
    for t in range(n):
        a[0, 2, t, max(t - 1, 0)] = 1.0
        wanted = POINTER.get(forms[t]) if forms[t] else None
        a[0, 3, t, forms.index(wanted) if wanted in forms else t] = 1.0
    return a


def check(name, got, want):
    if got != want:
        raise AssertionError(f"{name}: got {got}, want {want}")
    print(f"ok  {name}: {got}")


def run(path, limit):
    """The tally of the fake model's heads over `path` in windows of at most `limit` tokens."""
    docs, _ = coref_rules.read_corefud(path)
    return coref_rules.score_corpus(docs, lambda t: len(tokens(t)), encode, attend, limit)


def windows(tally):
    """(windows scored, sentences skipped as longer than the limit)."""
    return tally.c["windows"], tally.c["sentences_skipped"]


def per_type(counts):
    """A count per mention type, in coref_rules.TYPES order."""
    return [counts[t] for t in coref_rules.TYPES]


def baselines(tally):
    """Each baseline's count per mention type."""
    return {b: per_type(tally.base[b]) for b in tally.base}


def head_cells(tally, head, kind):
    k = coref_rules.TYPES.index(kind)
    return tuple(int(v) for v in tally.heads[0, head, k])  # correct, predicted, none, total


def test_units():
    check("R2 concatenated opener/single", coref_rules.parse_entity("(7-a-b(3-c-d)"),
          [("open", "7"), ("single", "3")])
    check("R2 concatenated closers", coref_rules.parse_entity("7)6)5)"),
          [("close", "7"), ("close", "6"), ("close", "5")])
    check("R2 attribute with comma", coref_rules.parse_entity("(6-abstract-new-cf3-2,4-sgl"),
          [("open", "6")])
    check("D1 eid ends at '(': opener without attributes", coref_rules.parse_entity("(e1(e2)"),
          [("open", "e1"), ("single", "e2")])
    for bad in ("", "(-x)", "3", "(4-x)junk", "()", "e1-foo)", "(e\x01-x)", "(e 1)", "e\t1)"):
        try:
            coref_rules.parse_entity(bad)
        except ValueError:
            print(f"ok  R2 malformed {bad!r} refused")
        else:
            raise AssertionError(f"R2 malformed {bad!r} accepted")
    check("R3 leftmost of several outside heads", coref_rules.head_word([3, 3, 0], 1, 2), 1)
    check("R3 the word whose head is outside", coref_rules.head_word([2, 0, 2], 1, 3), 2)
    check("R3 no tree: last word", coref_rules.head_word(None, 1, 3), 3)


def test_reader(path):
    docs, counts = coref_rules.read_corefud(path)
    check("R1 documents and ids", [d.ident for d in docs], ["", "d1", "d2", "", "d4", "d5", "d6"])
    check("R1 sentences per document", [len(d.sentences) for d in docs], [1, 2, 4, 5, 2, 2, 4])
    # 1 + 5 + 6 + (1 + 4 + 1; the two malformed sentences dropped) + 3 + 3 + 4
    check("R2 mentions", counts.mentions, 28)
    check("R2 discontinuous/unclosed/unmatched",
          (counts.discontinuous, counts.unclosed, counts.unmatched), (1, 1, 1))
    check("R2 warnings name file and line", [w[len(path) + 1:].split(":")[0] for w in counts.warnings],
          ["62", "65"])
    check("R2 warning text", counts.warnings[0].startswith(f"{path}:62: empty entity id"), True)
    d3 = docs[3].mentions
    check("R2 nesting (entity, sentence, first, last, head)",
          [(m.entity, m.sent, m.first, m.last, m.head) for m in d3],
          [("6", 0, 1, 4, 4), ("7", 1, 1, 5, 2), ("6", 1, 1, 2, 2), ("8", 1, 4, 5, 5),
           ("6", 1, 4, 4, 4), ("6", 2, 1, 1, 1)])
    try:
        coref_rules.read_corefud(path, strict=True)
    except coref_rules.FormatError as e:
        check("R2 strict: FormatError", str(e).startswith(f"{path}:62: "), True)
    else:
        raise AssertionError("strict reader accepted a malformed Entity=")


def test_units_without_token():
    """D11: a word without a token has unit None with missing_ok; the default is unchanged."""
    text, spans = "ab c", [(0, 1), (1, 2), (3, 4)]
    offsets, special = [(0, 0), (0, 2), (3, 4), (0, 0)], [1, 0, 0, 1]
    check("D11 deps alignment unchanged: no units",
          coref_rules.deps_reference.units_for(offsets, special, text, spans, spans), None)
    check("D11 word without a token: unit None",
          coref_rules.deps_reference.units_for(offsets, special, text, spans, spans,
                                               missing_ok=True),
          ([[0], [1], [2], [3]], [1, None, 2]))


def line_of(path, needle):
    """1-based line number of the first line containing `needle`."""
    lines = pathlib.Path(path).read_text(encoding="utf-8").split("\n")
    return next(k for k, line in enumerate(lines, 1) if needle in line)


def test_final_rules(path):
    docs, counts = coref_rules.read_corefud(path)
    v3 = docs[2].mentions
    # D1: "(72(73)" opens 72 (closed on "cat") and makes 73; D7: the longer 72 first
    check("D1/D7 v3 mentions (entity, first, last)",
          [(m.entity, m.first, m.last) for m in v3], [("72", 1, 2), ("73", 1, 1)])
    # D2: the open "(71[1/2]" is discontinuous, not unclosed; "74[2/2])" has no opener
    check("D2 discontinuous/unclosed/unmatched",
          (counts.discontinuous, counts.unclosed, counts.unmatched), (1, 0, 1))
    # D3 "76-x)" and D4 two Entity= drop those sentences (and It's mention 75)
    check("D3/D4 malformed sentences", [w[len(path) + 1:].split(":")[0] for w in counts.warnings],
          [str(line_of(path, "76-x)")), str(line_of(path, "|Entity="))])
    check("D3/D4 malformed_sentences", counts.malformed_sentences, 2)
    check("D6 mentions (v1 5, v2 3, v3 2)", counts.mentions, 10)
    tally = run(path, 1000)
    check("D11 windows kept", windows(tally), (3, 0))
    # v1: Ann 2 has no token; Bo 2's only antecedent (Bo 1) has none; She keeps Ann 1
    check("D11 scored / without token",
          (tally.c["scored_mentions"], tally.c["mentions_without_token"]), (2, 2))
    check("D11 scored per type", per_type(tally.types), [2, 1, 0, 1])
    # uniform: She -> Ann 1 (first word), right; STRASSE -> Die, wrong
    check("D11 uniform head", head_cells(tally, 0, "all"), (1, 2, 0, 2))
    check("D11 pointer head (STRASSE -> Straße; She has no Mary)", head_cells(tally, 3, "all"),
          (1, 1, 1, 2))
    base = baselines(tally)
    # nearest: She -> Ann 2 (no token, still a baseline candidate), STRASSE -> leer
    check("D10 nearest", base["nearest"], [1, 1, 0, 0])
    check("D8 head match by casefold (lower() misses STRASSE/Straße)", base["head_match"],
          [1, 0, 0, 1])
    check("D8/D9 sieve", base["sieve"], [2, 1, 0, 1])


def test_one_window_per_document(path):
    tally = run(path, 1000)
    check("R4 windows / skipped (large limit)", windows(tally), (7, 0))
    check("R5 scored mentions", tally.c["scored_mentions"], 13)
    check("R7 scored per type", per_type(tally.types), [13, 8, 2, 3])
    # uniform: ties -> the window's first word (John, Mary, the, Bob, The, Tom)
    check("R6 ties: uniform head, all", head_cells(tally, 0, "all"), (6, 13, 0, 13))
    check("R6 ties: uniform head, pronoun", head_cells(tally, 0, "pronoun"), (4, 8, 0, 8))
    check("R6 ties: uniform head, proper", head_cells(tally, 0, "proper"), (2, 2, 0, 2))
    check("R6 ties: uniform head, nominal", head_cells(tally, 0, "nominal"), (0, 3, 0, 3))
    check("R6 no prediction: self head", head_cells(tally, 1, "all"), (0, 0, 13, 13))
    check("R6 previous word head", head_cells(tally, 2, "all"), (0, 13, 0, 13))
    # pointer: 'his' in the fourth document points at an absent 'John', 'He' in d6 at an
    # absent 'his' -> no prediction
    check("R6 pointer head, all", head_cells(tally, 3, "all"), (11, 11, 2, 13))
    check("R6 pointer head, pronoun", head_cells(tally, 3, "pronoun"), (6, 6, 2, 8))
    base = baselines(tally)
    # nearest: right for d1 'his' and d3 'the man'; wrong on the end tie (d3 'his' -> group)
    # and the read-first tie of d4 (Bob of entity 20, opened first)
    check("R8 nearest", base["nearest"], [2, 1, 0, 1])
    # head match: d1 'He' (his) and 'the dog'; d2 'Mary'; d3 'He' (his); none for the rest
    check("R8 head match", base["head_match"], [4, 2, 1, 1])
    # sieve: exact string (d2 Mary; d5 'the team' skipping the nearer 'a team' that head
    # match picks), head lemma (d1 He, dog; d3 He), agreement (d1 his,
    # d2 She skipping plural guards, d3 man, d6 He skipping feminine Anna, d6 I skipping He
    # (Person 3 vs 1) for Anna); d2 'It' falls to sieve 4 (She) and is wrong
    check("R8 sieve", base["sieve"], [10, 6, 1, 3])


def test_small_windows(path):
    tally = run(path, 8)
    # d1 2, d2 3 (She + It share one), d3 3 (its 7-word sentence needs 9 tokens: skipped),
    # d4 1 (3 + 3 words + 2 = 8 fits), d5 2, d6 2 (three 2-word sentences, then 'I smiled')
    check("R4 windows / skipped (limit 8)", windows(tally), (14, 1))
    # left: d1 'his', d4 'Bob', d6 'He'
    check("R4 windows split antecedents away", tally.c["scored_mentions"], 3)
    check("R7 scored per type (limit 8)", per_type(tally.types),
          [3, 2, 1, 0])


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--write-conllu":
        # The hand-written documents as one treebank for the parity tests (coref_parity.*.stress)
        pathlib.Path(sys.argv[2]).write_text(conllu_text(DOCS + DOCS_V2 + DOCS_TOKENS),
                                             encoding="utf-8")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = str(pathlib.Path(tmp) / "coref_selftest.conllu")
        pathlib.Path(path).write_text(conllu_text(), encoding="utf-8")
        test_units()
        test_units_without_token()
        test_reader(path)
        test_one_window_per_document(path)
        test_small_windows(path)
        path = str(pathlib.Path(tmp) / "coref_selftest_v2.conllu")
        pathlib.Path(path).write_text(conllu_text(DOCS_V2), encoding="utf-8")
        test_final_rules(path)
    print("coref self-test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
