#!/usr/bin/python3
"""Self-test of survey_reference.py (issue 18): golden cases on hand-made attention maps whose
answers are worked out by hand in the comments (rules S1-S12 of survey_reference.py and
TransformerLens's published detector formulas, methods.md §11.1), then invariants of the survey
on the fixture checkpoints that make_checkpoints.py writes.

  survey_selftest.py CHECKPOINTS_DIR      prints every check; exit status 1 on any failure.
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importance_reference  # noqa: E402
import selftest_checks  # noqa: E402
import st_io  # noqa: E402
import survey_reference as sr  # noqa: E402

CASES = ("bert_f32", "roberta_f32", "gpt2_f32", "llama_f32", "mistral_mqa_window_f32",
         "qwen2_gqa2_bf16")
TOL = 1e-12


class Checks(selftest_checks.Checks):
    def near(self, name, got, want, tol=TOL):
        got = float(got)
        ok = (math.isnan(got) and math.isnan(want)) or abs(got - want) <= tol
        self(name, ok, f"got {got!r}, want {want!r}")


def one_hot_map(n, keys):
    """[1,n,n]: row i is one-hot on keys[i] (None = an all-zero row)."""
    a = np.zeros((1, n, n))
    for i, j in enumerate(keys):
        if j is not None:
            a[0, i, j] = 1.0
    return a


def causal(n):
    return np.tril(np.ones((n, n), dtype=bool))


def full(n):
    return np.ones((n, n), dtype=bool)


def survey_one(a, ids, allowed, **kw):
    scores, dist = sr.survey_maps([a], [ids], [allowed], sr.Options(**kw))
    return {k: v[0] for k, v in scores.items()}, dist


def previous_token_head(check):
    # Causal, n = 5, rows 0 -> 0 and i -> i-1. Clark's denominator is every row: prev = 4/5,
    # self = 1/5 (row 0), first = 2/5 (rows 0, 1). TL prev mul: 4 of the 5 units of mass on the
    # template = 0.8; without BOS, rows 0 and 1 lose their mass: 3/3 = 1. TL abs: row 0 costs
    # |1 - 0| = 1 -> 1 - 1/5 = 0.8; without BOS TL zeroes the difference in column 0
    # (abs_diff[:, 0] = 0), where rows 0 and 1 put all their weight: nothing is left -> 1 (zeroing
    # the attention instead would charge row 1's template |0 - 1| = 1 -> 0.8, 1/n too low).
    # No repeated id: dup mul 0, dup abs
    # 1 - 5/5 = 0. Sinks: first_mass = rows 1..4 on key 0 = 1/4; alpha = 2/5 > 0.3 -> a sink.
    # Voita: offsets 0, -1, -1, -1, -1 -> r* = -1 with 4/5 < 0.9, confidence 1.
    check.case = "golden: previous-token head"
    s, _ = survey_one(one_hot_map(5, [0, 0, 1, 2, 3]), [10, 11, 12, 13, 14], causal(5))
    for name, want in (("prev", 0.8), ("self", 0.2), ("first", 0.4), ("last", 0.0),
                       ("next", 0.0), ("entropy", 0.0), ("entropy_norm", 0.0),
                       ("tl_prev_mul", 0.8), ("tl_prev_mul_nobos", 1.0), ("tl_prev_abs", 0.8),
                       ("tl_prev_abs_nobos", 1.0), ("tl_prev_abs_tl", 0.8),
                       ("tl_prev_abs_tl_nobos", 1.0),
                       ("tl_dup_mul", 0.0), ("tl_dup_abs", 0.0), ("first_mass", 0.25),
                       ("sink_rate", 1.0), ("positional_offset", -1),
                       ("positional_frequency", 0.8), ("positional", 0.0), ("confidence", 1.0)):
        check.near(name, s[name], want)
    s, _ = survey_one(one_hot_map(5, [0, 0, 1, 2, 3]), [10, 11, 12, 13, 14], causal(5),
                      threshold=0.8)
    check.near("positional at threshold 0.8 (>=)", s["positional"], 1.0)


def repeated_sequence_heads(check):
    # ids [B a b c a b c] (N = 3). Induction template: rows 4, 5, 6 at keys 2, 3, 4 (the token
    # after the earlier copy); rows 0-3 have none. Induction head: rows 0-3 on BOS, rows 4-6 on
    # i-2. mul = 3/7, without BOS 3/3 = 1; abs = 1 - 4/7 (rows 0-3 cost 1 each), TL rounds 4/7 to
    # 0.571 -> 0.429; without BOS rows 0-3 are zero like their template -> 1. The duplicate
    # template (keys i-3) gets none of its mass: dup mul 0. The duplicate head (rows 4-6 on i-3)
    # mirrors it. The probe stripe (corrected, i = N+1..2N) of the induction head is 1; the
    # uncorrected diagonal i = N-1..2N would read (1 + 0 + 1 + 1 + 1)/5 = 0.8 (row 2 on BOS).
    ids = [1, 5, 6, 7, 5, 6, 7]
    check.case = "golden: induction head"
    ind = one_hot_map(7, [0, 0, 0, 0, 2, 3, 4])
    s, _ = survey_one(ind, ids, causal(7))
    for name, want in (("tl_induction_mul", 3 / 7), ("tl_induction_mul_nobos", 1.0),
                       ("tl_induction_abs", 3 / 7), ("tl_induction_abs_tl", 1 - 0.571),
                       ("tl_induction_abs_nobos", 1.0), ("tl_dup_mul", 0.0),
                       ("tl_dup_mul_nobos", 0.0)):
        check.near(name, s[name], want)
    check.near("probe stripe i = N+1..2N", sr.probe_stripe(ind, 3)[0], 1.0)
    i = np.arange(2, 7)
    check.near("(the uncorrected diagonal would read 0.8)", ind[0, i, i - 2].mean(), 0.8)
    check.case = "golden: duplicate-token head"
    s, _ = survey_one(one_hot_map(7, [0, 0, 0, 0, 1, 2, 3]), ids, causal(7))
    for name, want in (("tl_dup_mul", 3 / 7), ("tl_dup_mul_nobos", 1.0),
                       ("tl_dup_abs", 3 / 7), ("tl_dup_abs_nobos", 1.0),
                       ("tl_induction_mul", 0.0), ("tl_prev_mul_nobos", 0.0)):
        check.near(name, s[name], want)
    # Induction template includes j = i when id_i == id_{i-1} (§11.1): ids [1 4 4] has one 1,
    # at row 2, key 2 (row 1 would need key 2 > 1).
    _, _, d = sr.templates([1, 4, 4])
    check("induction template keeps j = i for a repeated id", d[2, 2] == 1 and d.sum() == 1,
          f"{d.tolist()}")


def uniform_heads(check):
    # Bidirectional uniform, n = 4: every weight 1/4. entropy ln 4, normalised 1; prev and next
    # 3/16 (rows 1-3 resp. 0-2 have one); self, first, last 1/4. TL prev mul (3/4)/4 = 3/16;
    # abs: row 0 costs 4/4, rows 1-3 cost 3/4 + 3/4 -> 1 - 5.5/4 = -0.375. Voita: every argmax
    # is key 0 (first on ties): r = 0, -1, -2, -3 once each -> r* = 0 (smallest |r|), 1/4.
    # alpha = 1/4 <= 0.3: no sink.
    check.case = "golden: uniform head (bidirectional)"
    s, _ = survey_one(np.full((1, 4, 4), 0.25), [20, 21, 22, 23], full(4))
    for name, want in (("entropy", math.log(4)), ("entropy_norm", 1.0), ("prev", 3 / 16),
                       ("next", 3 / 16), ("self", 0.25), ("first", 0.25), ("last", 0.25),
                       ("tl_prev_mul", 3 / 16), ("tl_prev_abs", -0.375),
                       ("positional_offset", 0), ("positional_frequency", 0.25),
                       ("confidence", 0.25), ("sink_rate", 0.0), ("first_mass", 0.25)):
        check.near(name, s[name], want)
    # Causal uniform: row i = 1/(i+1). entropy (0 + ln 2 + ln 3 + ln 4)/4; normalised 1 over
    # rows 1-3 (row 0 has one key), where Clark's ln n would give about 0.573. alpha = (1 + 1/2
    # + 1/3 + 1/4)/4 = 25/48 > 0.3: a sink; first_mass = (1/2 + 1/3 + 1/4)/3 = 13/36.
    check.case = "golden: uniform head (causal)"
    a = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    s, _ = survey_one(a[None], [20, 21, 22, 23], causal(4))
    for name, want in (("entropy", (math.log(2) + math.log(3) + math.log(4)) / 4),
                       ("entropy_norm", 1.0), ("sink_rate", 1.0), ("first_mass", 13 / 36),
                       ("next", 0.0), ("positional_offset", 0)):
        check.near(name, s[name], want)


def sink_head(check):
    # Every row on key 0, causal, n = 5: first_mass 1, a sink, entropy 0. TL prev mul = 1/5 (row
    # 1 only); without BOS all mass is gone: 0/0, undefined -> NaN (S3: no sentence defines it).
    # abs: row 0 costs 1, row 1 costs 0, rows 2-4 cost 2 -> 1 - 7/5 = -0.4.
    check.case = "golden: first-token sink"
    s, _ = survey_one(one_hot_map(5, [0] * 5), [3, 4, 5, 6, 7], causal(5))
    for name, want in (("first_mass", 1.0), ("sink_rate", 1.0), ("entropy", 0.0),
                       ("tl_prev_mul", 0.2), ("tl_prev_mul_nobos", math.nan),
                       ("tl_prev_abs", -0.4), ("positional_offset", 0)):
        check.near(name, s[name], want)
    # eps is a parameter: alpha = 1 is not > 1.
    s, _ = survey_one(one_hot_map(5, [0] * 5), [3, 4, 5, 6, 7], causal(5), eps=1.0)
    check.near("sink_rate with eps = 1 (strict >)", s["sink_rate"], 0.0)


def masked_rows(check):
    # n = 4 bidirectional except row 2, whose mask allows nothing (and whose weights are 0).
    # Rows 0 -> 0, 1 -> 0, 3 -> 2. Over the valid rows {0, 1, 3}: prev = 2/3, self = 1/3, first
    # = 2/3; Voita offsets 0, -1, -1 -> r* = -1, 2/3. A map whose row 2 has weights but no
    # allowed key is read the same way.
    check.case = "golden: masked rows"
    allowed = full(4)
    allowed[2] = False
    a = one_hot_map(4, [0, 0, None, 2])
    s, _ = survey_one(a, [1, 2, 3, 4], allowed)
    for name, want in (("prev", 2 / 3), ("self", 1 / 3), ("first", 2 / 3), ("entropy", 0.0),
                       ("positional_offset", -1), ("positional_frequency", 2 / 3)):
        check.near(name, s[name], want)
    b = a.copy()
    b[0, 2, 3] = 1.0
    s2, _ = survey_one(b, [1, 2, 3, 4], allowed)
    check("a row with weight but no allowed key is left out too",
          all(s2[k] == s[k] for k in ("prev", "self", "first", "positional_frequency")))
    # JS between this head and one that differs only on row 2: the row is valid in one head
    # only, so it is left out and the heads are at distance 0.
    two = np.concatenate([a, one_hot_map(4, [0, 0, 1, 2])])
    d = sr.js_matrix(two, sr.valid_rows(two, full(4)))
    check.near("JS leaves out a row invalid in either head", d[0, 1], 0.0)
    # A sentence where every row is invalid defines nothing: its scores do not pull means to 0.
    scores, _ = sr.survey_maps([one_hot_map(2, [0, 1]), np.zeros((1, 2, 2))], [[1, 2], [1, 2]],
                               [full(2), full(2)], sr.Options())
    check.near("an all-invalid sentence is left out of S3 means", scores["self"][0], 1.0)


def token_sets(check):
    # ids [101 5 7 9 102], row i on key i+1 (row 4 on key 0). punct {5, 9} gets rows 0 and 2:
    # 2/5; period {7}: 1/5; special {101, 102}: 2/5; next = 4/5 (row 4 has no next token).
    check.case = "golden: punctuation, period, special"
    s, _ = survey_one(one_hot_map(5, [1, 2, 3, 4, 0]), [101, 5, 7, 9, 102], full(5),
                      special={101, 102}, punct={5, 9}, period={7})
    for name, want in (("punct", 0.4), ("period", 0.2), ("special", 0.4), ("next", 0.8)):
        check.near(name, s[name], want)
    s, _ = survey_one(one_hot_map(5, [1, 2, 3, 4, 0]), [101, 5, 7, 9, 102], full(5))
    check.near("no --punct-ids: NaN", s["punct"], math.nan)


def rare_word(check):
    # s1 = [101 5 5 8], s2 = [101 5 9 9]; f: 5 -> 3, 9 -> 2, 101 -> 2, 8 -> 1. The head sends
    # every non-special row to key 3 in s1 (id 8, the rarest) and to key 1 in s2 (id 5, f 3; the
    # candidates' f sorted are 2, 2, 3: neither rarest nor second rarest). K = 0: both eligible,
    # top1 = top2 = 1/2. K = 1 (top {5}): the same. K = 2 (top {5, 9}): s2's rarest id 9 is a
    # top id, so only s1 counts: 1. The special row 0 points elsewhere and is not counted.
    check.case = "golden: rare-word head"
    maps = [one_hot_map(4, [1, 3, 3, 3]), one_hot_map(4, [3, 1, 1, 1])]
    corpus = [[101, 5, 5, 8], [101, 5, 9, 9]]
    for k, want, eligible in ((0, 0.5, 2), (1, 0.5, 2), (2, 1.0, 1), (4, math.nan, 0),
                              (500, math.nan, 0)):
        opts = sr.Options(special={101}, rare_top=k)
        s, _ = sr.survey_maps(maps, corpus, [full(4)] * 2, opts)
        check.near(f"rare_top1, K = {k}", s["rare_top1"][0], want)
        check.near(f"rare_top2, K = {k}", s["rare_top2"][0], want)
        # 4 distinct ids: from K = 4 on every id is a top id and no sentence is eligible.
        check(f"rare_sentences, K = {k}", sr.rare_sentences(corpus, opts) == eligible)
    # [101 8 9 9 5 5 5]: candidate f sorted 1, 2, 2, 3, 3, 3. A head on key 2 (id 9, f 2) is
    # second rarest (2 <= f(2) = 2) but not rarest; one on key 4 (id 5, f 3) is neither.
    ids = [101, 8, 9, 9, 5, 5, 5]
    for key, want1, want2 in ((2, 0.0, 1.0), (4, 0.0, 0.0), (1, 1.0, 1.0)):
        s, _ = survey_one(one_hot_map(7, [key] * 7), ids, full(7), special={101}, rare_top=0)
        check.near(f"key {key}: rare_top1", s["rare_top1"], want1)
        check.near(f"key {key}: rare_top2", s["rare_top2"], want2)


def distances_and_mds(check):
    # methods.md §1.6 goldens of Clark's head_distances.py (rows smoothed as 0.001/n + 0.999 A,
    # JS summed over the 3 rows): identity vs cyclic shift 2.069743, identity vs uniform
    # 0.947151. Without the smoothing each row would give ln 2 (disjoint one-hots) and
    # (ln 1.5 + ln 2 / 3) / 2 (one-hot vs uniform), summed over 3 rows.
    check.case = "golden: head distance"
    eye = np.eye(3)
    heads = np.stack([eye, np.roll(eye, 1, axis=1), np.full((3, 3), 1 / 3)])
    valid = np.ones((3, 3), dtype=bool)
    d = sr.js_matrix(heads, valid)
    check.near("Clark identity vs shift", d[0, 1], 2.069743, 1e-6)
    check.near("Clark identity vs uniform", d[0, 2], 0.947151, 1e-6)
    raw = sr.js_matrix(heads, valid, smoothing=0.0)
    check.near("unsmoothed: identity vs shift = 3 ln 2", raw[0, 1], 3 * math.log(2))
    check.near("unsmoothed: identity vs uniform", raw[0, 2],
               1.5 * (math.log(1.5) + math.log(2) / 3))
    check("symmetric, zero diagonal", np.array_equal(d, d.T) and not np.diag(d).any())
    # Over a corpus: the per-sentence sums added and divided by the sentences. The same 3-row
    # sentence twice and a 1-row sentence where both heads are one-hot on key 0 (distance 0):
    # (2 x 2.069743 + 0) / 3.
    one = np.ones((2, 1, 1))
    _, dist = sr.survey_maps([heads[:2], heads[:2], one], [[1, 2, 3], [1, 2, 3], [1]],
                             [valid, valid, np.ones((1, 1), dtype=bool)], sr.Options())
    check.near("corpus: sum over sentences / sentences", dist[0, 1], 2 * 2.069743 / 3, 1e-6)
    # Points (0,0), (3,0), (0,4): classical MDS of their distances has eigenvalues
    # (50 +- sqrt 772)/6 and gives back every distance; each column's largest |entry| > 0.
    check.case = "golden: classical MDS"
    pts = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    dist = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    coords, lam = sr.classical_mds(dist)
    check.near("eigenvalue 1", lam[0], (50 + math.sqrt(772)) / 6, 1e-9)
    check.near("eigenvalue 2", lam[1], (50 - math.sqrt(772)) / 6, 1e-9)
    back = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
    check("distances given back", np.abs(back - dist).max() < 1e-9)
    check("sign rule", all(coords[np.argmax(np.abs(coords[:, c])), c] > 0 for c in range(2)))
    perm = [2, 0, 1]
    coords_p, _ = sr.classical_mds(dist[np.ix_(perm, perm)])
    check("unique: permuting heads permutes rows", np.abs(coords_p - coords[perm]).max() < 1e-9)
    try:
        sr.classical_mds(np.array([[0.0, math.nan], [math.nan, 0.0]]))
        check("undefined distance refused", False)
    except ValueError:
        check("undefined distance refused", True)


def probe_rng(check):
    # SplitMix64 from state 0: the published first output 0xE220A8397B1DCDAF.
    check.case = "golden: probe sequence"
    check("SplitMix64(0) first output", importance_reference.SplitMix64(0).next()
          == 0xE220A8397B1DCDAF)
    seq = sr.probe_tokens(50, {0, 1}, 7, 2, 6, 1)
    check("[bos, t, t], no special id in t", len(seq) == 13 and seq[0] == 1
          and seq[1:7] == seq[7:] and not set(seq[1:]) & {0, 1}, f"{seq}")
    rng = importance_reference.SplitMix64(9)  # seed 7 + repeat 2
    check("t_1 = C[next() % |C|]", seq[1] == list(range(2, 50))[rng.next() % 48])


def fixture_invariants(check, root, name):
    check.case = name
    model = sr.Model(os.path.join(root, name))
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        corpus = next(e["inputs"] for e in json.load(f) if e["case"] == name)
    corpus = [ids for ids in corpus if len(ids) >= 2] + [corpus[-1][:5] + corpus[-1][:5]]
    special = {corpus[0][0]}
    opts = sr.Options(special=special, punct={corpus[-1][2]}, period={corpus[-1][3]}, rare_top=0)
    probe = (2, 4, 0)
    sequences = []
    scores, dist, coords, lam = sr.survey(model, corpus, opts, probe, sequences=sequences)
    unit = ("first", "last", "self", "prev", "next", "punct", "period", "special", "first_mass",
            "sink_rate", "entropy_norm", "confidence", "positional_frequency", "rare_top1",
            "rare_top2") + tuple(k for k in scores if k.startswith("tl_") and "_mul" in k)
    worst = [k for k in unit if not ((scores[k] >= -1e-12) & (scores[k] <= 1 + 1e-12)).all()]
    check("shares and mul scores in [0, 1]", not worst, f"{worst}")
    absk = [k for k in scores if "_abs" in k]
    check("abs scores in [-1, 1]", all((np.abs(scores[k]) <= 1 + 1e-12).all() for k in absk))
    check("self + prev + next <= 1",
          (scores["self"] + scores["prev"] + scores["next"] <= 1 + 1e-9).all())
    if model.causal:
        check("causal: next is exactly 0", not scores["next"].any())
        pr = scores["probe_induction"]
        check("causal: probe in [0, 1]", ((pr >= 0) & (pr <= 1)).all())
        check("causal: every sentence's first row is a sink (row 0 = 1)",
              (scores["first"] > 0).all())
        check("causal: the probe's 2 sequences [bos, t, t] are kept",
              len(sequences) == 2 and all(len(q) == 9 and q[1:5] == q[5:] for q in sequences))
    else:
        check("bidirectional: no probe (NaN)", np.isnan(scores["probe_induction"]).all())
    bound = math.log(2) * np.mean([len(ids) for ids in corpus])  # each row's JS <= ln 2
    check("distance symmetric, zero diagonal, in [0, ln 2 x mean n]",
          np.array_equal(dist, dist.T) and not np.diag(dist).any()
          and (dist >= 0).all() and (dist <= bound + 1e-12).all())
    check("MDS centred, eigenvalues descending, sign rule",
          np.abs(coords.sum(0)).max() < 1e-9 and lam[0] >= lam[1]
          and all(coords[np.argmax(np.abs(coords[:, c])), c] >= 0 for c in range(2)))
    loops_check(check, model, corpus, opts, scores)
    precision_check(check, os.path.join(root, name), corpus, opts, probe, scores, dist)
    shuffled = corpus[::-1]
    again, dist2, _, _ = sr.survey(model, shuffled, opts, probe)
    diff = max(np.nanmax(np.abs(again[k] - scores[k]), initial=0.0) for k in scores)
    check("corpus order does not matter", diff < 1e-12 and np.abs(dist2 - dist).max() < 1e-12,
          f"{diff:.1e}")
    return model, corpus, scores, sequences


# Scores that count or threshold something: float32 rounding may flip them near a tie.
DISCRETE = ("positional_offset", "positional_frequency", "positional", "sink_rate", "rare_top1",
            "rare_top2") + tuple(k for k in sr.SCORES if k.endswith("abs_tl")
                                 or k.endswith("abs_tl_nobos"))


def precision_check(check, folder, corpus, opts, probe, scores, dist):
    """The continuous scores of float32 passes (S1) are within 1e-6 of float64 passes', so a
    C++/reference parity at 1e-6 is not below float32 noise."""
    model64 = sr.Model(folder, sr.torch.float64)
    s64, d64, _, _ = sr.survey(model64, corpus, opts, probe)
    gaps = {k: float(np.nanmax(np.abs(scores[k] - s64[k]), initial=0.0))
            for k in sr.SCORES if k not in DISCRETE}
    worst = max(gaps, key=gaps.get)
    check("float32 vs float64 passes: continuous scores within 1e-6",
          gaps[worst] < 1e-6 and np.abs(dist - d64).max() < 1e-6,
          f"worst {worst} {gaps[worst]:.1e}, distance {np.abs(dist - d64).max():.1e}")


def loops_check(check, model, corpus, opts, scores):
    """An independent spelling with plain loops for the last head: prev (S4), TL prev mul
    without BOS (S6) and the sink indicator (S8)."""
    k = model.layers * model.heads - 1
    prev, mul, sink = [], [], []
    for ids in corpus:
        a = model.maps(ids)[k]
        n = len(ids)
        prev.append(sum(a[i][i - 1] for i in range(1, n)) / n)
        num = sum(a[i][i - 1] for i in range(2, n))
        den = sum(a[i][j] for i in range(n) for j in range(1, n))
        if den > 0:
            mul.append(num / den)
        seeing = [i for i in range(n) if i >= 0]
        sink.append(1.0 if sum(a[i][0] for i in seeing) / len(seeing) > opts.eps else 0.0)
    if model.cfg["model_type"] == "mistral":
        return  # rows past the window do not see key 0: the loop above would count them
    last = (model.layers - 1, model.heads - 1)
    check.near("loops: prev", scores["prev"][last], float(np.mean(prev)), 1e-12)
    check.near("loops: TL prev mul without BOS", scores["tl_prev_mul_nobos"][last],
               float(np.mean(mul)), 1e-12)
    check.near("loops: sink rate", scores["sink_rate"][last], float(np.mean(sink)), 1e-12)


def cli_round_trip(check, root, name, corpus, scores, sequences):
    check.case = f"{name} CLI"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(",".join(map(str, ids)) for ids in corpus) + "\n")
        out = os.path.join(tmp, "survey.safetensors")
        cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "survey_reference.py"),
               "--model", os.path.join(root, name), "--corpus", path,
               "--special-ids", str(corpus[0][0]), "--punct-ids", str(corpus[-1][2]),
               "--period-ids", str(corpus[-1][3]), "--rare-top", "0", "--probe-repeats", "2",
               "--probe-length", "4", "--out", out]
        run = subprocess.run(cmd, capture_output=True, text=True, check=False)
        check("exit 0", run.returncode == 0, run.stderr.strip())
        if run.returncode:
            return
        tensors = st_io.load_file(out)
        tensors = tensors[0] if isinstance(tensors, tuple) else tensors
        missing = [k for k in sr.SCORES if k not in tensors]
        check("every score, distance, mds written", not missing
              and {"distance", "mds", "mds_eigenvalues"} <= set(tensors), f"{missing}")
        same = all(np.array_equal(tensors[k].numpy(), scores[k], equal_nan=True)
                   for k in sr.SCORES if k in tensors)
        check("file equals the in-process survey", same)
        written = tensors["probe_tokens"].tolist() if "probe_tokens" in tensors else []
        check("probe_tokens are the probe's sequences", written == sequences,
              f"{written} vs {sequences}")
        bad = subprocess.run(cmd[:-2] + ["--period-ids", "x", "--out", out], capture_output=True,
                             text=True, check=False)
        check("a bad id list is one error line naming the option",
              bad.returncode == 1 and "--period-ids" in bad.stderr, bad.stderr.strip())


def run(root):
    start = time.monotonic()
    check = Checks()
    for golden in (previous_token_head, repeated_sequence_heads, uniform_heads, sink_head,
                   masked_rows, token_sets, rare_word, distances_and_mds, probe_rng):
        golden(check)
    seen = 0
    for name in CASES:
        if not selftest_checks.have_case(root, name):
            continue
        seen += 1
        _, corpus, scores, sequences = fixture_invariants(check, root, name)
        if name in ("gpt2_f32", "bert_f32"):
            cli_round_trip(check, root, name, corpus, scores, sequences)
    return selftest_checks.finish("survey", check, seen, root,
                                  f"; {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    selftest_checks.main(run, "survey_selftest.py")
