#!/usr/bin/python3
"""Independent reference for the corpus survey of heads (issue 18): per-head statistics of the
attention maps of the plain forward passes (torch_reference.py / llama_reference.py) over a corpus
of id lists, the head-to-head distance matrix and its 2-D MDS map. numpy float64 only; no C++.
The rules S1-S12 below are the contract the C++ survey cites.

S1  Input. A corpus is a list of sentences, each a list of token ids (no BOS is added: position 0
    is whatever the list starts with). For each sentence the plain float32 pass gives A [L,H,n,n]
    (row = query i, column = key j), read as float64 (exact). Heads are ordered k = l*H + h.
    The mask M[i][j] (1 = key allowed): bidirectional models (bert, roberta, distilbert) all 1;
    causal models j <= i; Mistral also i - j < sliding_window. Special = id in --special-ids.
S2  Rows. A row i of a head is VALID iff M[i][.] allows at least one key and sum_j A[i][j] > 0.
    Invalid rows (fully masked; a head switched off) are left out of every statistic, never
    counted as zero. sum_j A[i][j] is read as it is (no renormalisation).
S3  Averaging. Unless a rule says otherwise, a statistic is first a mean over the sentence's rows
    it names, then the plain mean over the sentences where it is defined (each sentence weighs
    the same, Clark §1.5). A sentence where it is undefined (no row, 0/0) is left out; NaN when
    no sentence defines it.
S4  Clark surface statistics (§1.5), means over valid rows i (special query rows included):
    first = A[i][0]; last = A[i][n-1]; self = A[i][i]; prev = A[i][i-1] (0 for i = 0);
    next = A[i][i+1] (0 for i = n-1); punct = sum_{j: id_j in P} A[i][j] with P = --punct-ids,
    period = the same with --period-ids (an empty set gives NaN everywhere; a sentence without
    such an id gives 0); special = sum over special keys. prev/next keep Clark's denominator (all
    rows), so a perfect previous-token head on n tokens scores (n-1)/n.
S5  Entropy (§8.3, nats, 0 ln 0 = 0, no smoothing): H_i = -sum_j A[i][j] ln A[i][j];
    entropy = mean H_i over valid rows. entropy_norm = mean over valid rows with m_i >= 2 of
    H_i / ln m_i, m_i = number of keys M allows to row i. Why per row and not Clark's ln n:
    ln m_i is the largest entropy row i can reach, so 1 means "uniform over what it can see" in
    an encoder and a decoder alike, where ln n would rate a perfectly uniform causal head below 1;
    rows with one allowed key have H = 0 by force (0/0) and say nothing, so they are left out.
S6  TransformerLens detectors (§11.1, head_detector.py): templates D from the ids, position 0
    plays BOS: prev D[i][i-1] = 1 (i >= 1); dup D[i][j] = 1 iff id_i == id_j and j < i;
    induction D[i][j] = 1 iff 1 <= j <= i and id_{j-1} == id_i. When BOS is excluded (the
    "_nobos" keys) column 0 is left out of both measures as head_detector.py leaves it out: mul
    zeroes the attention there (A' = A with column 0 set to 0), abs zeroes the DIFFERENCE there
    (abs_diff[:, 0] = 0), so a template weight in column 0 costs nothing (not |0 - D[i][0]|).
    mul = sum A'.D / sum A' (undefined when sum A' = 0); abs = 1 - sum_ij E[i][j] / n with
    E = |A - D| and, without BOS, E[:, 0] = 0 (every row, invalid ones included as TL does);
    abs_tl = TL's published value 1 - round(sum E / n, 3) with Python's round. Sentences with
    n < 2 are skipped (TL asserts 1 < n). The formulas are applied to bidirectional maps too
    (TL has no such models; its lower-triangular assertion is not made).
S7  Repeated-random-token probe (§11.2), causal models only (NaN for bidirectional ones): repeat
    r = 0..R-1 builds [bos, t_1..t_N, t_1..t_N]: SplitMix64 (head_importance.h) seeded with
    seed + r (mod 2^64); t_k = C[next() % |C|] for k = 1..N, C = the ids 0..vocab-1 that are not
    special, ascending. bos = --bos-id, else config bos_token_id, else the corpus's first id.
    The sequences drawn are written out ("probe_tokens", [R, 2N+1]).
    score = mean over repeats of mean_{i = N+1..2N} A[i][i-N+1] (the corrected stripe: i = N-1
    and i = N are not induction positions). Chance repeats inside t are not avoided.
S8  Sinks (§11.3): first_mass = mean over valid rows i >= 1 of A[i][0] (n < 2: undefined).
    alpha = mean over valid rows i with M[i][0] = 1 of A[i][0] (Gu et al.'s alpha_0: the mean
    attention key 0 gets from the queries that can see it, row 0 included); the sentence is a
    sink for the head iff alpha > eps (strict; --eps, default 0.3); sink_rate = share of
    sentences (a fraction in [0, 1]; Gu et al. print 100x, a percent) where it is.
S9  Voita positional verdict (§2.1-2.2), exactly relative_position.h with its defaults: a query
    row counts iff it is valid and its id is not special; r_i = argmax_j A[i][j] - i over keys M
    allows (first key on ties). Counts are SUMMED over the corpus (token-weighted, unlike S3).
    positional_offset r* = the most frequent r (ties: smaller |r|, then the negative one);
    positional_frequency = count(r*) / counted rows; positional = 1 iff >= 0.9 (--threshold);
    confidence = mean over counted rows of max_j A[i][j]. NaN (and offset 0) without rows.
S10 Rare-word head (§2.4). Frequencies come from the corpus itself: f(id) = occurrences of id in
    all its sentences (special ids counted too). Top-K ids = sorted by (f descending, id
    ascending), first K (--rare-top, default 500, Voita's; ties at the K-th frequency go to the
    lower ids). Per sentence, candidates = non-special positions; eligible iff at least 2
    candidates and the rarest candidate id (the lowest id among equally rare ones) is not a
    top-K id. A corpus with at most K distinct ids has no eligible sentence, so every value is
    NaN there (rare_sentences, the count of eligible sentences, says 0). The head's key =
    argmax over candidates j of alpha_j = mean over counted rows (S9's rows) that M lets see j of
    A[i][j] (the column mean over the rows that can see the key, so early keys of a causal map
    are not favoured; first j on ties; a candidate no row sees is skipped). With the candidate
    frequencies sorted ascending f(1) <= f(2) <= ..., top1 holds iff f(key) == f(1) and top2 iff
    f(key) <= f(2) (tied rarest all count). rare_top1 / rare_top2 = share of eligible sentences
    (NaN without one; sentences with no key are not eligible).
S11 Head distance (§1.6, Clark's head_distances.py): for heads a, b and a row i valid in both,
    JS_i = 0.5 sum_j [P ln(P/M_) + Q ln(Q/M_)], P = 0.001/n + 0.999 A_a[i], Q = 0.001/n + 0.999
    A_b[i] (Clark's smoothing, over all n keys: a key masked in both heads gets 0.001/n in both
    and adds exactly 0), M_ = (P+Q)/2, nats. Per sentence the SUM over those rows (Clark's);
    over the corpus the sum over sentences divided by the number of sentences (Clark sums; his
    notebook calls the matrix "average", and a constant factor leaves the map's shape alone).
    NaN where no sentence has a row valid in both. Symmetric, 0 on the diagonal.
S12 MDS: classical (Torgerson) on the dissimilarities D of S11: B = -1/2 J (D*D) J, J = I -
    11^T/N; eigenvalues descending; coordinate c = v_c sqrt(lambda_c) (0 when lambda_c <= 0);
    the sign of each eigenvector is fixed so that its entry of largest |value| is positive
    (first such entry on ties). Unique up to that unless two eigenvalues tie. Needs a finite D.
Parity note (not a rule): on the fixture checkpoints every continuous score of the float32
passes is within 1e-7 of the float64 passes' (survey_selftest.py checks < 1e-6). The counted or
thresholded ones (positional_*, sink_rate, rare_top*, *_abs_tl) can flip where a float32 tie or
threshold crossing is that close, so a C++ parity test should say so when one differs.

CLI:
  survey_reference.py --model DIR --corpus FILE --special-ids 101,102 [--punct-ids ..]
      [--period-ids ..] [--eps 0.3] [--threshold 0.9] [--rare-top 500] [--probe-repeats 4]
      [--probe-length 10] [--probe-seed 0] [--bos-id N] --out FILE.safetensors
FILE: one comma-separated id list per line (blank lines skipped). Output F64 [L,H] tensors, one
per name in SCORES (positional_offset I64), distance F64 [L*H, L*H], mds F64 [L*H, 2],
mds_eigenvalues F64 [2], probe_tokens I64 [R, 2N+1] when the probe ran; metadata: every option,
sentences, layers, heads, rare_sentences.
"""

import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ablation_reference as ar  # noqa: E402
import importance_reference  # noqa: E402  (its SplitMix64 mirrors head_importance.h)
import llama_reference  # noqa: E402
import reference_main  # noqa: E402
import st_io  # noqa: E402

CLARK = ("first", "last", "self", "prev", "next", "punct", "period", "special")
DETECTORS = ("prev", "dup", "induction")
MEAN_SCORES = (CLARK + ("entropy", "entropy_norm")
               + tuple(f"tl_{d}_{m}{b}" for d in DETECTORS for m in ("mul", "abs", "abs_tl")
                       for b in ("", "_nobos"))
               + ("first_mass", "sink_rate"))
SCORES = MEAN_SCORES + ("probe_induction", "positional_offset", "positional_frequency",
                        "positional", "confidence", "rare_top1", "rare_top2")


def allowed_mask(cfg, n):
    """S1: [n,n] bool."""
    if cfg["model_type"] in ar.MASKED_LM:
        return np.ones((n, n), dtype=bool)
    return llama_reference.sliding_causal_mask(n, llama_reference.window_of(cfg)).numpy()


def valid_rows(a, allowed):
    """S2: [K,n] bool for maps a [K,n,n]."""
    return allowed.any(-1)[None, :] & (a.sum(-1) > 0)


def row_mean(x, keep):
    """Mean of x [K,n] over keep [K,n] per head; NaN where nothing is kept."""
    count = keep.sum(-1)
    total = np.where(keep, x, 0.0).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def plogp(p):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)


def templates(ids):
    """S6: (prev, dup, induction) 0/1 templates [n,n]."""
    t = np.asarray(ids)
    n = len(t)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    prev = (j == i - 1).astype(float)
    dup = ((t[:, None] == t[None, :]) & (j < i)).astype(float)
    shifted = np.concatenate(([-1], t[:-1]))  # id_{j-1}; -1 never matches an id
    ind = ((shifted[None, :] == t[:, None]) & (j >= 1) & (j <= i)).astype(float)
    return prev, dup, ind


def tl_scores(a, template, exclude_bos, exclude_current=False):
    """S6 for maps a [K,n,n]: (mul, abs, abs_tl) each [K]; mul NaN where sum A' = 0."""
    ap = a.copy()  # never mutate the caller's maps (§11.1)
    idx = np.arange(a.shape[-1])
    if exclude_bos:
        ap[:, :, 0] = 0.0
    if exclude_current:
        ap[:, idx, idx] = 0.0
    n = a.shape[-1]
    total = ap.sum((1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        mul = np.where(total > 0, (ap * template).sum((1, 2)) / np.where(total > 0, total, 1),
                       np.nan)
    diff = np.abs(a - template)  # TL: abs_diff of the unmasked pattern, then masked
    if exclude_bos:
        diff[:, :, 0] = 0.0
    if exclude_current:
        diff[:, idx, idx] = 0.0
    err = diff.sum((1, 2)) / n
    return mul, 1.0 - err, np.array([1.0 - round(float(e), 3) for e in err])


def clark_rows(a, ids, special, punct, period):
    """S4 per row: {name: [K,n]} (punct/period None for an empty id set)."""
    k, n, _ = a.shape
    idx = np.arange(n)
    prev = np.zeros((k, n))
    nxt = np.zeros((k, n))
    prev[:, 1:] = a[:, idx[1:], idx[1:] - 1]
    nxt[:, :-1] = a[:, idx[:-1], idx[:-1] + 1]
    t = np.asarray(ids)

    def mass(ids_set):
        if ids_set is None:
            return None
        return a[:, :, np.isin(t, list(ids_set))].sum(-1)

    return {"first": a[:, :, 0], "last": a[:, :, n - 1], "self": a[:, idx, idx], "prev": prev,
            "next": nxt, "punct": mass(punct), "period": mass(period), "special": mass(special)}


def entropy_rows(a, allowed, valid):
    """S5: (entropy, entropy_norm) per sentence, [K] each."""
    h = -plogp(a).sum(-1)
    m = allowed.sum(-1)
    keep = valid & (m >= 2)[None, :]
    norm = h / np.log(np.maximum(m, 2))[None, :]
    return row_mean(h, valid), row_mean(norm, keep)


def sink_scores(a, allowed, valid, eps):
    """S8: (first_mass, sink indicator as 0/1 or NaN) per sentence."""
    n = a.shape[-1]
    later = valid & (np.arange(n) >= 1)[None, :]
    first_mass = row_mean(a[:, :, 0], later)
    alpha = row_mean(a[:, :, 0], valid & allowed[:, 0][None, :])
    return first_mass, np.where(np.isnan(alpha), np.nan, (alpha > eps).astype(float))


def sentence_scores(a, ids, allowed, opts):
    """Every S3-averaged score of one sentence: {name: [K]} (NaN = undefined here)."""
    valid = valid_rows(a, allowed)
    out = {}
    for name, rows in clark_rows(a, ids, opts.special, opts.punct, opts.period).items():
        out[name] = np.full(a.shape[0], np.nan) if rows is None else row_mean(rows, valid)
    out["entropy"], out["entropy_norm"] = entropy_rows(a, allowed, valid)
    for det, template in zip(DETECTORS, templates(ids)):
        for bos in (False, True):
            triple = tl_scores(a, template, bos)
            if len(ids) < 2:
                triple = tuple(np.full(a.shape[0], np.nan) for _ in range(3))
            for m, value in zip(("mul", "abs", "abs_tl"), triple):
                out[f"tl_{det}_{m}{'_nobos' if bos else ''}"] = value
    out["first_mass"], out["sink_rate"] = sink_scores(a, allowed, valid, opts.eps)
    return out


def counted_rows(a, ids, allowed, special):
    """S9's counted query rows [K,n]."""
    not_special = ~np.isin(np.asarray(ids), list(special))
    return valid_rows(a, allowed) & not_special[None, :]


class Positions:
    """S9 counts of every head, summed over sentences."""

    def __init__(self, k):
        self.counts = {}  # offset -> [K] int
        self.rows = np.zeros(k, dtype=np.int64)
        self.conf = np.zeros(k)

    def add(self, a, counted, allowed):
        n = a.shape[-1]
        masked = np.where(allowed[None, :, :], a, -np.inf)
        arg = masked.argmax(-1)  # first maximal key
        offsets = arg - np.arange(n)[None, :]
        for r in np.unique(offsets[counted]):
            hits = (counted & (offsets == r)).sum(-1)
            self.counts[int(r)] = self.counts.get(int(r), 0) + hits
        self.rows += counted.sum(-1)
        self.conf += np.where(counted, masked.max(-1), 0.0).sum(-1)

    def verdict(self, threshold):
        k = len(self.rows)
        best = np.zeros(k, dtype=np.int64)
        freq = np.full(k, np.nan)
        for h in range(k):
            if self.rows[h] == 0:
                continue
            # Most frequent; ties: smaller |r|, then the negative offset.
            r = min(self.counts, key=lambda o: (-int(self.counts[o][h]), abs(o), o))
            best[h], freq[h] = r, self.counts[r][h] / self.rows[h]
        with np.errstate(invalid="ignore", divide="ignore"):
            conf = np.where(self.rows > 0, self.conf / np.maximum(self.rows, 1), np.nan)
        positional = np.where(np.isnan(freq), np.nan, (freq >= threshold).astype(float))
        return {"positional_offset": best, "positional_frequency": freq,
                "positional": positional, "confidence": conf}


def corpus_frequencies(corpus):
    freq = {}
    for ids in corpus:
        for t in ids:
            freq[t] = freq.get(t, 0) + 1
    return freq


def top_ids(freq, k):
    return set(sorted(freq, key=lambda t: (-freq[t], t))[:k])


def rare_sentences(corpus, opts):
    """S10: how many sentences are eligible (head-independent)."""
    freq = corpus_frequencies(corpus)
    top = top_ids(freq, opts.rare_top)
    count = 0
    for ids in corpus:
        cand = [t for t in ids if t not in opts.special]
        if len(cand) >= 2 and min((freq[t], t) for t in cand)[1] not in top:
            count += 1
    return count


def rare_sentence(a, ids, allowed, counted, freq, top, special):
    """S10 for one sentence: (eligible [K] bool, top1 [K], top2 [K]) as floats."""
    k = a.shape[0]
    cand = [j for j, t in enumerate(ids) if t not in special]
    no = (np.zeros(k, dtype=bool), np.zeros(k), np.zeros(k))
    if len(cand) < 2:
        return no
    fs = sorted(freq[ids[j]] for j in cand)
    rarest = min((freq[ids[j]], ids[j]) for j in cand)[1]
    if rarest in top:
        return no
    eligible, top1, top2 = np.zeros(k, dtype=bool), np.zeros(k), np.zeros(k)
    for h in range(k):
        best, best_alpha = None, -np.inf
        for j in cand:
            seeing = counted[h] & allowed[:, j]
            if not seeing.any():
                continue
            alpha = a[h, seeing, j].mean()
            if alpha > best_alpha:
                best, best_alpha = j, alpha
        if best is None:
            continue
        eligible[h] = True
        top1[h] = float(freq[ids[best]] == fs[0])
        top2[h] = float(freq[ids[best]] <= fs[1])
    return eligible, top1, top2


def js_matrix(a, valid, smoothing=0.001):
    """S11 for one sentence: [K,K] summed row JS over rows valid in both heads (NaN if none),
    rows smoothed as Clark's P = s/n + (1-s)A (smoothing=0 only to show what it changes)."""
    n = a.shape[-1]
    p = smoothing / n + (1.0 - smoothing) * a
    pa, pb = p[:, None], p[None, :]
    m = 0.5 * (pa + pb)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_m = np.log(np.where(m > 0, m, 1.0))
        ta = np.where(pa > 0, pa * (np.log(np.where(pa > 0, pa, 1.0)) - log_m), 0.0)
        tb = np.where(pb > 0, pb * (np.log(np.where(pb > 0, pb, 1.0)) - log_m), 0.0)
    js = 0.5 * (ta.sum(-1) + tb.sum(-1))  # [K,K,n]
    both = valid[:, None, :] & valid[None, :, :]
    return np.where(both.any(-1), np.where(both, js, 0.0).sum(-1), np.nan)


def classical_mds(d, dims=2):
    """S12: (coordinates [N,dims], eigenvalues [dims])."""
    if not np.isfinite(d).all():
        raise ValueError("the head distance matrix has undefined entries (a head pair shares "
                         "no valid row in any sentence); MDS needs every distance")
    n = d.shape[0]
    j = np.eye(n) - np.full((n, n), 1.0 / n)
    b = -0.5 * j @ (d * d) @ j
    b = 0.5 * (b + b.T)
    lam, vec = np.linalg.eigh(b)
    order = np.argsort(-lam, kind="stable")[:dims]
    lam, vec = lam[order], vec[:, order]
    coords = np.zeros((n, dims))
    for c in range(min(dims, n)):
        v = vec[:, c]
        if v[np.argmax(np.abs(v))] < 0:
            v = -v
        coords[:, c] = v * math.sqrt(lam[c]) if lam[c] > 0 else 0.0
    return coords, np.pad(lam, (0, dims - len(lam)))


class MeanScores:
    """S3 accumulator: per name, sum and count of the defined per-sentence values."""

    def __init__(self):
        self.sums, self.counts = {}, {}

    def add(self, name, value):
        ok = ~np.isnan(value)
        self.sums[name] = self.sums.get(name, 0.0) + np.where(ok, value, 0.0)
        self.counts[name] = self.counts.get(name, 0) + ok.astype(np.int64)

    def mean(self, name):
        c = self.counts[name]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(c > 0, self.sums[name] / np.maximum(c, 1), np.nan)


class Options:
    def __init__(self, special=(), punct=None, period=None, eps=0.3, threshold=0.9,
                 rare_top=500):
        self.special, self.punct, self.period = set(special), punct, period
        self.eps, self.threshold, self.rare_top = eps, threshold, rare_top


def survey_maps(maps, corpus, masks, opts):
    """Every score from given maps: maps [sentence] -> [K,n,n] float64, masks [sentence] ->
    [n,n] bool. Returns ({name: [K]}, distance [K,K]). No probe (S7 needs the model)."""
    k = maps[0].shape[0]
    means = MeanScores()
    dist_sum, dist_defined = np.zeros((k, k)), np.zeros((k, k), dtype=bool)
    pos = Positions(k)
    freq = corpus_frequencies(corpus)
    top = top_ids(freq, opts.rare_top)
    rare_n, rare1, rare2 = np.zeros(k), np.zeros(k), np.zeros(k)
    for a, ids, allowed in zip(maps, corpus, masks):
        for name, value in sentence_scores(a, ids, allowed, opts).items():
            means.add(name, value)
        counted = counted_rows(a, ids, allowed, opts.special)
        pos.add(a, counted, allowed)
        eligible, t1, t2 = rare_sentence(a, ids, allowed, counted, freq, top, opts.special)
        rare_n += eligible
        rare1 += np.where(eligible, t1, 0.0)
        rare2 += np.where(eligible, t2, 0.0)
        js = js_matrix(a, valid_rows(a, allowed))
        dist_sum += np.where(np.isnan(js), 0.0, js)
        dist_defined |= ~np.isnan(js)
    scores = {name: means.mean(name) for name in MEAN_SCORES}
    scores.update(pos.verdict(opts.threshold))
    with np.errstate(invalid="ignore", divide="ignore"):
        scores["rare_top1"] = np.where(rare_n > 0, rare1 / np.maximum(rare_n, 1), np.nan)
        scores["rare_top2"] = np.where(rare_n > 0, rare2 / np.maximum(rare_n, 1), np.nan)
    return scores, np.where(dist_defined, dist_sum / len(maps), np.nan)


def probe_tokens(vocab, special, seed, repeat, length, bos):
    """S7: one repeated sequence [bos, t.., t..]."""
    cand = [t for t in range(vocab) if t not in special]
    if not cand:
        raise ValueError("--probe-repeats: every id of the vocabulary is special")
    rng = importance_reference.SplitMix64(seed + repeat)
    t = [cand[rng.next() % len(cand)] for _ in range(length)]
    return [bos] + t + t


def probe_stripe(a, length):
    """S7 for one repeated sequence's maps [K, 2N+1, 2N+1]: [K]."""
    i = np.arange(length + 1, 2 * length + 1)
    return a[:, i, i - length + 1].mean(-1)


class Model:
    """A checkpoint folder and its plain passes as [L*H,n,n] float64 maps; dtype is the pass's
    (float32 as in S1; float64 only to measure how far float32 rounding moves a score)."""

    def __init__(self, folder, dtype=torch.float32):
        self.folder, self.dtype = folder, dtype
        self.cfg = ar.load_config(folder)
        self.layers, self.heads, _ = ar.head_counts(self.cfg)
        self.loaded = st_io.load_checkpoint(folder)
        self.causal = self.cfg["model_type"] not in ar.MASKED_LM

    def maps(self, ids):
        probs = ar.run_pass(self.folder, ids, self.dtype, self.loaded).probs
        return probs.double().numpy().reshape(self.layers * self.heads, len(ids), len(ids))


def survey(model, corpus, opts, probe=(4, 10, 0), bos=None, sequences=None):
    """Every score of S4-S12 for a Model: ({name: [L,H]}, distance, mds, eigenvalues).
    probe = (repeats, length, seed); repeats 0 or a bidirectional model gives NaN. The probe's
    sequences are appended to `sequences` when it is a list."""
    maps = [model.maps(ids) for ids in corpus]
    masks = [allowed_mask(model.cfg, len(ids)) for ids in corpus]
    scores, dist = survey_maps(maps, corpus, masks, opts)
    repeats, length, seed = probe
    k = model.layers * model.heads
    scores["probe_induction"] = np.full(k, np.nan)
    if model.causal and repeats > 0:
        if length < 2:
            raise ValueError(f"--probe-length {length}: needs at least 2 tokens")
        if bos is None:
            bos = model.cfg.get("bos_token_id")
        bos = corpus[0][0] if bos is None else bos
        if not 0 <= bos < model.cfg["vocab_size"]:
            raise ValueError(f"--bos-id {bos} is outside the vocabulary")
        total = np.zeros(k)
        for r in range(repeats):
            seq = probe_tokens(model.cfg["vocab_size"], opts.special, seed, r, length, bos)
            if sequences is not None:
                sequences.append(seq)
            total += probe_stripe(model.maps(seq), length)
        scores["probe_induction"] = total / repeats
    coords, lam = classical_mds(dist)
    shaped = {name: np.asarray(v).reshape(model.layers, model.heads) for name, v in scores.items()}
    return shaped, dist, coords, lam


def parse_id_set(text, where):
    """None for an absent or empty option (S4: NaN)."""
    ids = ar.parse_ids(text or "", where)
    return set(ids) if ids else None


def write_survey(args):
    model = Model(args.model)
    corpus = ar.read_corpus(args.corpus, model.cfg["vocab_size"])
    opts = Options(parse_id_set(args.special_ids, "--special-ids") or (),
                   parse_id_set(args.punct_ids, "--punct-ids"),
                   parse_id_set(args.period_ids, "--period-ids"), args.eps, args.threshold,
                   args.rare_top)
    probe = (args.probe_repeats, args.probe_length, args.probe_seed)
    sequences = []
    scores, dist, coords, lam = survey(model, corpus, opts, probe, args.bos_id, sequences)
    out = {name: torch.from_numpy(np.ascontiguousarray(v)) for name, v in scores.items()}
    if sequences:
        out["probe_tokens"] = torch.tensor(sequences, dtype=torch.int64)
    out["positional_offset"] = out["positional_offset"].to(torch.int64)
    out["distance"] = torch.from_numpy(np.ascontiguousarray(dist))
    out["mds"] = torch.from_numpy(np.ascontiguousarray(coords))
    out["mds_eigenvalues"] = torch.from_numpy(np.ascontiguousarray(lam))
    st_io.save_file(out, args.out, metadata={
        "model": os.path.abspath(args.model), "model_type": model.cfg["model_type"],
        "corpus": os.path.abspath(args.corpus), "sentences": str(len(corpus)),
        "layers": str(model.layers), "heads": str(model.heads),
        "special_ids": args.special_ids or "", "punct_ids": args.punct_ids or "",
        "period_ids": args.period_ids or "", "eps": repr(args.eps),
        "threshold": repr(args.threshold), "rare_top": str(args.rare_top),
        "probe_repeats": str(args.probe_repeats), "probe_length": str(args.probe_length),
        "probe_seed": str(args.probe_seed), "bos_id": "" if args.bos_id is None else
        str(args.bos_id), "rare_sentences": str(rare_sentences(corpus, opts)),
        "rules": "survey_reference.py S1-S12"})
    print(f"{args.out}: {len(corpus)} sentences, {model.layers}x{model.heads} heads")


def main():
    parser = reference_main.parser(__doc__)
    parser.add_argument("--corpus", required=True, help="one comma-separated id list per line")
    parser.add_argument("--special-ids", default="", help="e.g. 101,102,0")
    parser.add_argument("--punct-ids", default="", help="ids counted as punctuation (S4)")
    parser.add_argument("--period-ids", default="", help="ids counted as the period (S4)")
    parser.add_argument("--eps", type=float, default=0.3, help="sink threshold (S8)")
    parser.add_argument("--threshold", type=float, default=0.9, help="positional (S9)")
    parser.add_argument("--rare-top", type=int, default=500, help="S10's K")
    parser.add_argument("--probe-repeats", type=int, default=4)
    parser.add_argument("--probe-length", type=int, default=10)
    parser.add_argument("--probe-seed", type=int, default=0)
    parser.add_argument("--bos-id", type=int, help="probe BOS (S7)")
    parser.add_argument("--out", required=True, help="output .safetensors")
    args = parser.parse_args()
    reference_main.write_or_exit(write_survey, args, "survey_reference.py", "an input")


if __name__ == "__main__":
    main()
