"""What patching_reference.py patches with, and how it picks its prompts and its metric
(methods.md §12.3), written from TransformerLens's patching.py conventions and Wang et al. 2022
(IOI, Appendix B), never from AttnScope's C++.

The forwards are torch_reference.py's own; this module only talks to them through their patch
hook, patch(layer, site, t) -> t (torch_reference.forward lists the sites: resid_pre, q, k, v
and z per query head, attn_out, mlp_out). A Hooks object records what every site held and
replaces the (layer, site) tensors it was given a replacement for.

Corrupted prompt (the rule, CORRUPTION_RULE): the clean ids with the tokens at positions n//3
and (2n)//3 replaced. "Ordinary" ids are the vocabulary's entries that are no special token
(special: every token named by tokenizer_config.json's *_token keys, every id named by
config.json's *_token_id keys, and for a WordPiece vocab.txt every entry written in square
brackets, [PAD] and [unused*] included). A clean id t becomes ordinary[(i + s) mod N], i = the
number of ordinary ids below t, N = how many there are, with one shift s for both positions:
the smallest s = 1, 2, ... whose corrupted run passes `acceptable` (LD gap, decision margins).
Position 0 and n - 1 never change (n >= 7 is required).

Metric (METRIC_RULE): logits = the model's own output logits (lm_heads.prediction_logits: after
Gemma 2's final soft-cap; BERT's MLM head) at m = n - 1. Target a = argmax of the clean logits
(ties: lowest id); distractor b = argmax of the corrupted logits if that is not a, else the
clean logits' second largest (ties: lowest id). LD = logit[a] - logit[b], the two float logits
subtracted in float64.
"""

import json
import os

import torch_reference

CORRUPTION_RULE = (
    "positions n//3 and (2n)//3; ordinary ids = vocabulary entries that are no special token "
    "(tokenizer_config *_token, config *_token_id, WordPiece [bracketed] entries); id t -> "
    "ordinary[(i + s) mod N], i = number of ordinary ids below t; s = smallest of 1, 2, ... "
    "with |LD_clean - LD_corr| > MIN_GAP and every argmax decision ahead by > MARGIN")
METRIC_RULE = (
    "LD = logit[a] - logit[b] at m = n - 1 on the model's output logits (after any final "
    "soft-cap; BERT: MLM head); a = clean argmax (ties lowest id); b = corrupted argmax if != a, "
    "else clean second largest; normalised (LD_patched - LD_corr) / (LD_clean - LD_corr)")
KV_RULE = ("k and v patches act on the receiver's whole KV group: every query head sharing that "
           "key/value head gets the patched key/value")
MIN_GAP = 0.05  # least |LD_clean - LD_corr| a corruption must give
MARGIN = 1e-3  # least lead of every argmax that picks a or b, so rounding cannot flip it
MAX_SHIFT = 64


class Hooks:
    """torch_reference.forward's patch hook. replace: {(layer, site): function(t) -> t};
    record: keep every site's tensor as the pass used it (after any replacement) in `saved`.
    Every replacement must be used, else the site name or layer was wrong (check_used)."""

    def __init__(self, replace=None, record=False):
        self.replace = replace or {}
        self.saved = {} if record else None
        self.used = set()

    def __call__(self, layer, site, t):
        fn = self.replace.get((layer, site))
        if fn is not None:
            t = fn(t)
            self.used.add((layer, site))
        if self.saved is not None:
            self.saved[(layer, site)] = t
        return t

    def check_used(self):
        unused = set(self.replace) - self.used
        if unused:
            raise RuntimeError(f"patch sites never reached: {sorted(unused)}")


def take(source, index):
    """A replacement that copies source[index] into the pass's tensor (a copy; the pass's own
    tensor stays untouched). index: (p,) for a row of [n, hidden]; (h,), (h, p) or
    ([heads],) for [H, n, d]; (slice(None),) for everything."""

    def fn(t):
        out = t.clone()
        out[index] = source[index]
        return out

    return fn


class Model:
    """A checkpoint folder run in one dtype: run(ids, hooks) -> output logits [n, vocab]."""

    def __init__(self, folder, tensors, dtype):
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            self.cfg = json.load(f)
        self.folder, self.tensors, self.dtype = folder, tensors, dtype
        self.mt = self.cfg["model_type"]
        self.runs = 0

    def run(self, ids, hooks=None):
        self.runs += 1
        lm = torch_reference.forward(self.folder, ids, self.dtype, self.tensors, patch=hooks)[4]
        if lm is None:
            raise NotImplementedError(f"{self.folder}: no output head to patch against")
        if hooks is not None:
            hooks.check_used()
        return lm

    def record(self, ids):
        """(logits, {(layer, site): tensor}) of a plain pass."""
        hooks = Hooks(record=True)
        return self.run(ids, hooks), hooks.saved

    def shape(self, saved):
        """(layers, query heads, kv group size) read off a recorded pass."""
        layers = 1 + max(layer for layer, _ in saved)
        heads = saved[(0, "z")].shape[0]
        kv = self.cfg.get("num_key_value_heads") or heads
        return layers, heads, heads // kv


def special_ids(folder, cfg):
    """Ids of the special tokens (module docstring) from the tokenizer files and config."""
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        tok_cfg = json.load(f)
    names = set()
    for key, value in tok_cfg.items():
        if key.endswith("_token") and value:
            names.add(value["content"] if isinstance(value, dict) else value)
    vocab = vocabulary(folder)
    ids = {vocab[name] for name in names if name in vocab}
    ids |= {v for k, v in cfg.items() if k.endswith("_token_id") and isinstance(v, int)}
    if os.path.exists(os.path.join(folder, "vocab.txt")):
        ids |= {i for token, i in vocab.items() if token.startswith("[") and token.endswith("]")}
    return ids


def vocabulary(folder):
    """token -> id from vocab.json (byte-level BPE) or vocab.txt (WordPiece, one a line)."""
    path = os.path.join(folder, "vocab.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    with open(os.path.join(folder, "vocab.txt"), encoding="utf-8") as f:
        return {line.rstrip("\n"): i for i, line in enumerate(f)}


def ordinary_ids(folder, cfg):
    """Sorted ids of the vocabulary that are no special token."""
    special = special_ids(folder, cfg)
    return sorted(i for i in set(vocabulary(folder).values()) if i not in special)


def corrupted_positions(n):
    if n < 7:
        raise ValueError(f"patching needs an input of at least 7 tokens, not {n}")
    return [n // 3, (2 * n) // 3]


def corrupt(ids, ordinary, shift):
    """The clean ids with positions n//3 and (2n)//3 moved `shift` places along `ordinary`."""
    out = list(ids)
    for p in corrupted_positions(len(ids)):
        below = sum(1 for i in ordinary if i < ids[p])
        out[p] = ordinary[(below + shift) % len(ordinary)]
        if out[p] == ids[p]:
            raise ValueError(f"shift {shift} maps id {ids[p]} onto itself")
    return out


def ranked(row):
    """Ids of a logits row [vocab] from largest to smallest, ties to the lowest id, with the
    values as Python floats."""
    values = row.double().tolist()
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    return order, values


def choose_pair(clean_row, corr_row):
    """(a, b, margin): target, distractor and the smallest lead of the argmax decisions that
    picked them (clean top 1 over top 2; corrupted top 1 over top 2; and when b is the clean
    runner-up, clean top 2 over top 3)."""
    c_order, c_val = ranked(clean_row)
    k_order, k_val = ranked(corr_row)
    a = c_order[0]
    margins = [c_val[c_order[0]] - c_val[c_order[1]], k_val[k_order[0]] - k_val[k_order[1]]]
    if k_order[0] != a:
        b = k_order[0]
    else:
        b = c_order[1]
        margins.append(c_val[c_order[1]] - c_val[c_order[2]])
    return a, b, min(margins)


def logit_diff(logits, m, a, b):
    return float(logits[m, a].double() - logits[m, b].double())


def acceptable(clean_logits, corr_logits, m):
    """(ok, a, b, LD_clean, LD_corr, margin) of one candidate corruption."""
    a, b, margin = choose_pair(clean_logits[m], corr_logits[m])
    ld_clean, ld_corr = logit_diff(clean_logits, m, a, b), logit_diff(corr_logits, m, a, b)
    return abs(ld_clean - ld_corr) > MIN_GAP and margin > MARGIN, a, b, ld_clean, ld_corr, margin


def pick_corruption(model, ids, ordinary, clean_logits):
    """(corrupted ids, shift, a, b, LD_clean, LD_corr, margin): the first acceptable shift."""
    m = len(ids) - 1
    order, values = ranked(clean_logits[m])
    if not values[order[0]] - values[order[1]] > MARGIN:
        raise ValueError(f"the clean argmax leads by {values[order[0]] - values[order[1]]:.1e} "
                         f"<= {MARGIN}: the target is not well defined")
    for shift in range(1, MAX_SHIFT + 1):
        corr = corrupt(ids, ordinary, shift)
        ok, a, b, ld_clean, ld_corr, margin = acceptable(clean_logits, model.run(corr), m)
        if ok:
            return corr, shift, a, b, ld_clean, ld_corr, margin
    raise ValueError(f"no shift up to {MAX_SHIFT} gives |LD gap| > {MIN_GAP} with margins "
                     f"> {MARGIN}")


def normalised(ld, ld_clean, ld_corr):
    """(LD - LD_corr) / (LD_clean - LD_corr), NaN where LD is NaN (undefined cells)."""
    return (ld - ld_corr) / (ld_clean - ld_corr)
