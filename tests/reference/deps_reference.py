"""Independent re-implementation of AttnScope's dependency scoring (Clark et al. 2019, methods.md
§1.1-1.3), used to check `attnscope-cli deps` count by count.

Inputs: the CoNLL-U treebank, the attention dump AttnScope wrote for every sentence it scored
(`--dump`: token-level maps, token offsets, special flags) and AttnScope's results file
(`--out results.h5`). This script parses the treebank itself, rebuilds each sentence's text and
word spans, aligns tokens to words from their offsets (the words of a multiword token split
where their forms spell it and each gets a token, else shared; `--mwt share` always shares),
aggregates word-level attention (mean/first/max, in float64 in token order), predicts heads
(self and special tokens excluded, ties to the lowest index, no prediction when no other word
gets any attention), applies the fixed-offset baselines and Clark's `poss` rule, and sums counts
over the treebank. Every count must equal AttnScope's exactly; exit 0 when they do.
"""
import argparse
import collections
import sys

import h5py
import numpy as np

OFFSETS = list(range(-3, 3))  # Clark's range(-3, 3): +3 is not evaluated


def read_conllu(path):
    """Yields (line, words, heads, relations, text, spans, own) per sentence, skipping empty
    nodes.

    Words inside a multiword token share the range's span in `spans`; in `own` they get their
    own consecutive pieces of it when their forms, joined, are the token's text (else the shared
    span too). The text is built from the surface tokens honouring SpaceAfter=No."""
    sentence, start = [], None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\r\n")
            if not line:
                if sentence:
                    yield _finish(start, sentence)
                sentence, start = [], None
                continue
            if line.startswith("#"):
                start = start or number
                continue
            start = start or number
            sentence.append(line.split("\t"))
    if sentence:
        yield _finish(start, sentence)


def _own_spans(form, span, forms):
    """Each word's piece of the multiword token when the forms spell it, else None."""
    if "".join(forms) != form:
        return None
    pieces, at = [], span[0]
    for f in forms:
        pieces.append((at, at + len(f)))
        at += len(f)
    return pieces


def _finish(start, rows):
    words, heads, relations, spans = [], [], [], []
    ranges = []  # (form, span, first word index, last word number)
    text, range_end, range_span = "", 0, None
    for cols in rows:
        ident = cols[0]
        if "." in ident:
            continue
        space = "SpaceAfter=No" not in cols[9]
        if "-" in ident:
            first, last = (int(x) for x in ident.split("-"))
            range_end, begin = last, len(text)
            text += cols[1]
            range_span = (begin, len(text))
            ranges.append((cols[1], range_span, len(words), last))
            text += " " if space else ""
            continue
        number = int(ident)
        if number <= range_end:
            span = range_span
        else:
            begin = len(text)
            text += cols[1]
            span = (begin, len(text))
            text += " " if space else ""
        words.append(cols[1])
        heads.append(int(cols[6]))
        relations.append(cols[7])
        spans.append(span)
    own = list(spans)
    for form, span, first, last in ranges:
        pieces = _own_spans(form, span, words[first:last])
        if pieces:
            own[first:last] = pieces
    return start, words, heads, relations, text.rstrip(" "), spans, own


def units_for(offsets, special, text, spans, own, missing_ok=False):
    """Alignment units, as methods.md §1.1 and AttnScope's word_alignment.h define them:
    each special token alone; a token belongs to the word holding its first non-space character
    (a whitespace-only token to the word starting where it ends); any other token alone. The
    words of a multiword token (identical spans) are one group, split into one unit per word
    when they have their own pieces (`own`) and each piece holds the first character of at
    least one of the group's tokens; else they share. Units are ordered by their first token.
    Returns (units, unit of each word), or None when a word gets no token; with missing_ok
    such a word's unit is None instead (coreference scoring, issue 16 D11)."""
    members = collections.defaultdict(list)  # shared span -> word indices
    for w, span in enumerate(spans):
        members[span].append(w)
    tokens_of = collections.defaultdict(list)  # shared span -> [(token, first character)]
    alone = []
    for t, (begin, end) in enumerate(offsets):
        if special[t]:
            alone.append([t])
            continue
        first = begin
        while first < end and text[first].isspace():
            first += 1
        owner = next((span for span in members if span[0] <= first < span[1]), None)
        if owner is None:
            alone.append([t])
        else:
            tokens_of[owner].append((t, first))
    word_tokens = {}  # word -> the tokens of its unit
    for span, ws in members.items():
        found = tokens_of.get(span, [])
        if not found:
            if not missing_ok:
                return None
            for w in ws:
                word_tokens[w] = None
            continue
        split = [[t for t, c in found if own[w][0] <= c < own[w][1]] for w in ws]
        if len(ws) > 1 and all(own[w] != span for w in ws) and all(split):
            for w, tokens in zip(ws, split):
                word_tokens[w] = tokens
        else:
            for w in ws:
                word_tokens[w] = [t for t, _ in found]
    groups = {tuple(tokens) for tokens in word_tokens.values() if tokens}
    units = sorted(alone + [list(g) for g in groups], key=lambda u: u[0])
    index = {u[0]: i for i, u in enumerate(units)}
    return units, [index[word_tokens[w][0]] if word_tokens[w] else None
                   for w in range(len(spans))]


def unit_map(attn, units, mode):
    """[units, units] word-level attention: columns of a unit summed, rows combined by mean,
    first or max (renormalised), in float64 in token order, then rounded to float32."""
    n = len(units)
    to_units = np.zeros((attn.shape[0], n), dtype=np.float64)
    for u, tokens in enumerate(units):
        for t in tokens:
            to_units[:, u] += attn[:, t].astype(np.float64)
    out = np.zeros((n, n), dtype=np.float32)
    for u, tokens in enumerate(units):
        row = to_units[tokens[0]].copy()
        if mode == "mean":
            for t in tokens[1:]:
                row += to_units[t]
            row /= len(tokens)
        elif mode == "max":
            for t in tokens[1:]:
                row = np.maximum(row, to_units[t])
            total = row.sum()
            if total > 0:
                row /= total
        out[u] = row.astype(np.float32)
    return out


def predict(umap, word_unit, transpose):
    """1-based predicted head of each word, or None: special and lone units dropped, candidates
    are the other words, first maximum wins; a word whose candidates all have zero attention
    (or that has none) gets None (issue 16)."""
    source = umap.T if transpose else umap
    words = source[np.ix_(word_unit, word_unit)]
    preds = []
    for i, row in enumerate(words):
        candidates = [(float(v), j) for j, v in enumerate(row) if j != i]
        value, best = max(candidates, key=lambda c: (c[0], -c[1]), default=(0.0, -1))
        preds.append(best + 1 if value > 0.0 else None)
    return preds


def verdict(words, preds, heads, i, relation):
    """True, False, or None when the prediction that is scored does not exist."""
    pred = preds[i]
    if pred is None:
        return None
    if relation == "poss" and pred < len(words) and i + 1 < len(words):
        if words[i + 1] in ("'s", "s'"):
            pred = preds[i + 1]
            if pred is None:
                return None
    return pred == heads[i]


def score(args):
    dump = h5py.File(args.dump, "r")
    groups = {int(dump["sentences"][k].attrs["line"]): dump["sentences"][k]
              for k in dump["sentences"]}
    counts = collections.Counter()
    right = collections.defaultdict(lambda: None)
    unpredicted = collections.defaultdict(lambda: None)
    base = collections.defaultdict(lambda: np.zeros(len(OFFSETS), dtype=np.int64))
    skipped = 0
    for line, words, heads, relations, text, spans, own in read_conllu(args.conllu):
        g = groups.get(line)
        if g is None:
            skipped += 1
            continue
        if args.mwt == "share":
            own = spans
        aligned = units_for(g["offsets"][:], g["special"][:], text, spans, own)
        if aligned is None:
            skipped += 1
            continue
        units, word_unit = aligned
        attention = g["attention"][:]
        layers, nheads = attention.shape[:2]
        rels = [r.split(":")[0] if args.merge_subtypes else r for r in relations]
        n = len(words)
        for r in rels:
            counts[r] += 1
            counts["all"] += 1
        for layer in range(layers):
            for head in range(nheads):
                umap = unit_map(attention[layer, head], units, args.from_mode)
                for d in (0, 1):
                    preds = predict(umap, word_unit, transpose=d == 1)
                    for i, r in enumerate(rels):
                        ok = verdict(words, preds, heads, i, r)
                        for key in (r, "all"):
                            if right[key] is None:
                                right[key] = np.zeros((layers, nheads, 2), dtype=np.int64)
                                unpredicted[key] = np.zeros((layers, nheads, 2), dtype=np.int64)
                            right[key][layer, head, d] += ok is True
                            unpredicted[key][layer, head, d] += ok is None
        for k, off in enumerate(OFFSETS):
            preds = [max(0, min(i + off + 1, n)) for i in range(n)]
            for i, r in enumerate(rels):
                ok = verdict(words, preds, heads, i, r) is True
                base[r][k] += ok
                base["all"][k] += ok
    return counts, (right, unpredicted), base, skipped


def compare_head_counts(res, k, name, total, right, unpredicted):
    """Correct and no-prediction counts per (layer, head, direction), and accuracy as
    correct / (words with a prediction)."""
    problems = []
    for dataset, ours in (("correct", right[name]), ("no_prediction", unpredicted[name])):
        theirs = res[dataset][k]
        if ours is not None and not np.array_equal(theirs, ours):
            bad = np.argwhere(theirs != ours)[0]
            problems.append(f"{name}: {dataset} at (layer, head, direction) {tuple(bad)}: "
                            f"{theirs[tuple(bad)]} vs {ours[tuple(bad)]}")
    if right[name] is not None:
        predicted = total - unpredicted[name]
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = np.where(predicted > 0, right[name] / predicted, np.nan)
        if not np.allclose(res["accuracy"][k], expected, rtol=0, atol=1e-12, equal_nan=True):
            problems.append(f"{name}: accuracy is not correct / (count - no_prediction)")
    return problems


def compare(args, counts, head_counts, base, skipped):
    """Every count of AttnScope's results file must equal ours."""
    res = h5py.File(args.results, "r")
    names = [r.decode() if isinstance(r, bytes) else r for r in res["relations"][:]]
    problems = []
    if set(names) != set(counts):
        problems.append(f"relations differ: only AttnScope {sorted(set(names) - set(counts))}, "
                        f"only reference {sorted(set(counts) - set(names))}")
    for k, name in enumerate(names):
        if name not in counts:
            continue
        if int(res["counts"][k]) != counts[name]:
            problems.append(f"{name}: count {int(res['counts'][k])} vs {counts[name]}")
        problems += compare_head_counts(res, k, name, counts[name], *head_counts)
        if not np.array_equal(res["baseline_correct"][k], base[name]):
            problems.append(f"{name}: baseline {list(res['baseline_correct'][k])} vs "
                            f"{list(base[name])}")
    if int(res.attrs["sentences_skipped"]) != skipped:
        problems.append(f"skipped sentences {int(res.attrs['sentences_skipped'])} vs {skipped}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conllu", required=True)
    parser.add_argument("--dump", required=True, help="attention dump from attnscope-cli deps")
    parser.add_argument("--results", required=True, help="results .h5 from attnscope-cli deps")
    parser.add_argument("--from", dest="from_mode", choices=["mean", "first", "max"],
                        default="mean")
    parser.add_argument("--merge-subtypes", action="store_true")
    parser.add_argument("--mwt", choices=["split", "share"], default="split")
    args = parser.parse_args()
    counts, head_counts, base, skipped = score(args)
    problems = compare(args, counts, head_counts, base, skipped)
    scored = sum(1 for _ in read_conllu(args.conllu)) - skipped
    if problems:
        print(f"FAIL: {len(problems)} difference(s); first: {problems[0]}")
        for p in problems[1:10]:
            print("  " + p)
        sys.exit(1)
    print(f"OK: {scored} sentences, {counts['all']} words, {len(counts)} relations: every count "
          f"equals AttnScope's")


if __name__ == "__main__":
    main()
