#!/usr/bin/python3
"""Independent PyTorch reference for head ablation (issue 17): forward passes with interventions,
the mean vectors of mean ablation, and the effect measures, for every architecture the plain
reference supports (BERT, RoBERTa, DistilBERT, GPT-2, Llama, Mistral, Qwen2).

Written from the definitions below with torch only (no transformers, no C++): the interventions
are a callable handed to torch_reference.forward / llama_reference.llama, which otherwise run the
plain pass unchanged.

Interventions. One is (layer, target, kind), spelled LAYER-HEAD:KIND for one query head or
LAYER-gGROUP:KIND for one key/value group (0-based numbers, e.g. "1-0:zero", "2-g1:sink"); a list
is comma-separated and may mix layers and kinds. Group g = every query head h with
h // (heads / kv_heads) == g (HF repeat_kv); without GQA a group is one head. A head named twice
with the same kind is ablated once; with two different kinds it is an error. Each kind acts on the
head's attention after softmax and before the output projection, in its layer only (later layers
see the changed residual stream):
  zero  HF head_mask: probs * 0, so the head's context (probs @ V) is 0; its recorded probs are 0
        (rows sum to 0).
  sink  every query row of the head's probs becomes one-hot on key 0, so its context rows equal
        V[0] of that head (its value head, for GQA); the recorded probs are that one-hot map. Key 0
        is used even where a causal or sliding-window mask hides it (Mistral, query >= window).
  mean  every context row of the head becomes mu[layer, head] (length head_dim): the mean of the
        head's CLEAN context rows over a reference corpus, pooled over every query position of
        every sentence (sum of rows / number of rows, accumulated in float64, then cast to the
        pass's dtype). Recorded probs stay as computed. Without --mean-corpus the corpus is the
        input ids themselves.
A clean pass has no interventions.

Effect measures (float64, from the float32 lm_logits and probs of a clean and an ablated pass):
  masked LM (BERT, RoBERTa, DistilBERT), per target p:t whose input id is the mask token:
      delta_logp = log_softmax(ablated[p])[t] - log_softmax(clean[p])[t]
  causal LM (GPT-2, Llama family):
      nll = mean over i in 0..n-2 of -log p(ids[i+1] | lm_logits[i]) (NaN when n < 2),
      delta_nll = nll(ablated) - nll(clean); kl[i] = KL(clean_i || ablated_i), natural log, every
      position; delta_p_top[i] = p_ablated(a_i) - p_clean(a_i), a_i = argmax of the clean logits
      (lowest id on ties); logit_diff POS:A:B = (l_A - l_B)_ablated - (l_A - l_B)_clean.
  every model: js[layer, head] = mean over query rows of the Jensen-Shannon divergence (natural
      log) of the clean and the ablated row; rows where either side sums to 0 are left out; NaN
      when none is left (a zero-ablated head).

CLI:
  ablation_reference.py --model DIR --ids 101,2023,... --ablate 1-0:zero,2-g1:sink
      [--mean-corpus FILE] [--targets 3:2054,...] [--logit-diff POS:A:B] [--mask-id ID]
      --out FILE.safetensors
FILE of --mean-corpus: one comma-separated id list per line (blank lines skipped). The mask id
comes from the checkpoint's tokenizer_config.json mask_token (vocab.txt / vocab.json /
tokenizer.json) unless --mask-id is given. Output tensors:
  input_ids I64 [n]; clean_attention, ablated_attention F32 [L,H,n,n]; clean_lm_logits,
  ablated_lm_logits F32 [n,V] (with an LM head); mean_vectors F32 [L,H,dv] (with a mean
  ablation); js F64 [L,H]; masked LM with --targets: target_positions, target_ids I64 [k],
  delta_logp F64 [k]; causal LM: nll_clean, nll_ablated, delta_nll F64 [1], kl, delta_p_top F64
  [n], top_ids I64 [n], with --logit-diff logit_diff F64 [1].
Metadata: model, model_type, ids, interventions (canonical spelling), mean_corpus,
mean_sentences, logit_diff, mask_id, compute_dtype, max_abs_diff_vs_float64 (ablated probs).

  ablation_reference.py --self-test CHECKPOINTS_DIR   invariants on the fixture checkpoints.
"""

import collections
import json
import math
import os
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_main  # noqa: E402
import st_io  # noqa: E402
import torch_reference  # noqa: E402

MASKED_LM = ("bert", "roberta", "distilbert")
KINDS = ("zero", "sink", "mean")


class Intervention(collections.namedtuple("Intervention", "layer kind head group")):
    """head: a query head, or None when group (a key/value group) is set."""

    def spelling(self):
        target = str(self.head) if self.group is None else f"g{self.group}"
        return f"{self.layer}-{target}:{self.kind}"


def parse_interventions(text):
    out = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        m = re.fullmatch(r"(\d+)-(g?)(\d+):(zero|sink|mean)", item)
        if not m:
            raise ValueError(f"--ablate: '{item}' is not LAYER-HEAD:KIND or LAYER-gGROUP:KIND "
                             f"(KIND one of {', '.join(KINDS)})")
        layer, is_group, index, kind = m.groups()
        index = int(index)
        out.append(Intervention(int(layer), kind, None if is_group else index,
                                index if is_group else None))
    return out


def load_config(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        return json.load(f)


def head_counts(cfg):
    """(layers, query heads, key/value heads) of a config."""
    mt = cfg["model_type"]
    if mt in ("bert", "roberta"):
        return cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["num_attention_heads"]
    if mt == "distilbert":
        return cfg["n_layers"], cfg["n_heads"], cfg["n_heads"]
    if mt == "gpt2":
        return cfg["n_layer"], cfg["n_head"], cfg["n_head"]
    heads = cfg["num_attention_heads"]
    return cfg["num_hidden_layers"], heads, cfg.get("num_key_value_heads", heads)


def head_plan(interventions, counts):
    """{layer: {query head: kind}} of a list of interventions; ValueError for a target outside
    the model or a head given two kinds."""
    layers, heads, kv_heads = counts
    per_group = heads // kv_heads
    plan = {}
    for iv in interventions:
        if not 0 <= iv.layer < layers:
            raise ValueError(f"{iv.spelling()}: layer {iv.layer} is outside 0..{layers - 1}")
        if iv.group is not None:
            if not 0 <= iv.group < kv_heads:
                raise ValueError(f"{iv.spelling()}: key/value group {iv.group} is outside "
                                 f"0..{kv_heads - 1}")
            targets = range(iv.group * per_group, (iv.group + 1) * per_group)
        else:
            if not 0 <= iv.head < heads:
                raise ValueError(f"{iv.spelling()}: head {iv.head} is outside 0..{heads - 1}")
            targets = [iv.head]
        for h in targets:
            kind = plan.setdefault(iv.layer, {}).setdefault(h, iv.kind)
            if kind != iv.kind:
                raise ValueError(f"{iv.spelling()}: head {iv.layer}-{h} is already ablated by "
                                 f"{kind}")
    return plan


class Ablation:
    """The interventions callable of torch_reference.forward. plan: head_plan's dict; mu:
    [L,H,dv] mean vectors (mean kind); head_mask: zero ablation by HF's literal multiply of the
    probs instead of replacing the context (an independent spelling, for the self-test); record:
    keep (recorded probs, v, context) of every layer in self.records."""

    def __init__(self, plan, mu=None, head_mask=False, record=False):
        self.plan, self.mu, self.head_mask = plan, mu, head_mask
        self.records = {} if record else None

    def __call__(self, layer, probs, v):
        heads = self.plan.get(layer, {})
        if self.head_mask:
            probs, ctx = self._literal_head_mask(heads, probs, v)
        else:
            # Without a target in this layer this is exactly the plain pass's probs @ v.
            ctx = probs @ v
            if heads:
                probs, ctx = probs.clone(), ctx.clone()
            for h, kind in sorted(heads.items()):
                if kind == "zero":
                    probs[h], ctx[h] = 0.0, 0.0
                elif kind == "sink":
                    probs[h] = 0.0
                    probs[h][:, 0] = 1.0
                    ctx[h] = v[h, 0]
                else:
                    if self.mu is None:
                        raise ValueError(f"{layer}-{h}:mean needs mean vectors")
                    ctx[h] = self.mu[layer, h].to(ctx.dtype)
        if self.records is not None:
            self.records[layer] = (probs, v, ctx)
        return probs, ctx

    @staticmethod
    def _literal_head_mask(heads, probs, v):
        if any(kind != "zero" for kind in heads.values()):
            raise ValueError("a literal head_mask expresses zero ablation only")
        mask = torch.ones(probs.shape[0], dtype=probs.dtype)
        for h in heads:
            mask[h] = 0.0
        probs = probs * mask.view(-1, 1, 1)
        return probs, probs @ v


Pass = collections.namedtuple("Pass", "probs hidden lm records")


def run_pass(folder, ids, dtype, loaded, ablation=None):
    """One forward pass; ablation None = the plain reference."""
    probs, _, hidden, _, lm = torch_reference.forward(folder, ids, dtype, loaded, ablation)
    return Pass(probs, hidden, lm, None if ablation is None else ablation.records)


def mean_vectors(folder, corpus, dtype, loaded):
    """[L,H,dv]: each head's clean context rows averaged over every position of every sentence."""
    total, rows = None, 0
    for ids in corpus:
        rec = Ablation({}, record=True)
        run_pass(folder, ids, dtype, loaded, rec)
        ctx = torch.stack([rec.records[layer][2] for layer in range(len(rec.records))])
        summed = ctx.double().sum(dim=2)
        total = summed if total is None else total + summed
        rows += len(ids)
    if not rows:
        raise ValueError("the mean corpus has no tokens")
    return (total / rows).to(dtype)


# ---- effect measures (float64) ----

def _plogq_terms(p, log_p, log_q):
    """p * (log p - log q), with 0 where p == 0 (0 log 0 = 0)."""
    return torch.where(p > 0, p * (log_p - log_q), torch.zeros_like(p))


def js_rows(p, q):
    m = 0.5 * (p + q)
    log_m = m.log()
    return 0.5 * (_plogq_terms(p, p.log(), log_m).sum(-1) + _plogq_terms(q, q.log(), log_m).sum(-1))


def head_js(clean_probs, ablated_probs):
    """[L,H]: mean JS over query rows whose clean and ablated rows both have mass; NaN if none."""
    p, q = clean_probs.double(), ablated_probs.double()
    js = js_rows(p, q)
    keep = (p.sum(-1) != 0) & (q.sum(-1) != 0)
    count = keep.sum(-1)
    total = torch.where(keep, js, torch.zeros_like(js)).sum(-1)
    return torch.where(count > 0, total / count.clamp(min=1), torch.full_like(total, math.nan))


def causal_measures(ids, clean_lm, ablated_lm, logit_diff=None):
    lc, la = clean_lm.double().log_softmax(-1), ablated_lm.double().log_softmax(-1)
    n = len(ids)
    if n >= 2:
        nxt = torch.tensor(ids[1:], dtype=torch.int64)[:, None]
        nll_c = -lc[:-1].gather(1, nxt).mean()
        nll_a = -la[:-1].gather(1, nxt).mean()
    else:
        nll_c = nll_a = torch.tensor(math.nan, dtype=torch.float64)
    pc = lc.exp()
    # torch.argmax returns the first maximal index: the lowest id on ties.
    top = clean_lm.argmax(-1)
    rows = torch.arange(n)
    out = {
        "nll_clean": nll_c.reshape(1), "nll_ablated": nll_a.reshape(1),
        "delta_nll": (nll_a - nll_c).reshape(1),
        "kl": _plogq_terms(pc, lc, la).sum(-1),
        "delta_p_top": la.exp()[rows, top] - pc[rows, top],
        "top_ids": top.to(torch.int64),
    }
    if logit_diff is not None:
        pos, a, b = logit_diff
        c, d = clean_lm[pos].double(), ablated_lm[pos].double()
        out["logit_diff"] = ((d[a] - d[b]) - (c[a] - c[b])).reshape(1)
    return out


def masked_measures(ids, clean_lm, ablated_lm, targets, mask_id):
    """targets: [(position, original id)]; every position must hold the mask token."""
    for p, _ in targets:
        if not 0 <= p < len(ids) or ids[p] != mask_id:
            raise ValueError(f"--targets: position {p} does not hold the mask token {mask_id}")
    pos = torch.tensor([p for p, _ in targets], dtype=torch.int64)
    tok = torch.tensor([t for _, t in targets], dtype=torch.int64)
    lc, la = clean_lm.double().log_softmax(-1), ablated_lm.double().log_softmax(-1)
    return {"target_positions": pos, "target_ids": tok,
            "delta_logp": la[pos, tok] - lc[pos, tok]}


def effect_measures(cfg, ids, clean, ablated, targets=(), logit_diff=None, mask_id=None):
    out = {"js": head_js(clean.probs, ablated.probs)}
    masked = cfg["model_type"] in MASKED_LM
    if masked and logit_diff is not None:
        raise ValueError("--logit-diff is a causal LM measure")
    if not masked and targets:
        raise ValueError("--targets is a masked LM measure")
    if clean.lm is None:
        if targets or logit_diff is not None:
            raise ValueError("the checkpoint has no prediction head")
        return out
    if masked:
        if targets:
            out.update(masked_measures(ids, clean.lm, ablated.lm, targets, mask_id))
    else:
        out.update(causal_measures(ids, clean.lm, ablated.lm, logit_diff))
    return out


def mask_token_id(folder):
    """The checkpoint's mask token id from its tokenizer files, or None."""
    try:
        with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
            token = json.load(f).get("mask_token")
    except OSError:
        return None
    if isinstance(token, dict):
        token = token.get("content")
    for name in ("vocab.txt", "vocab.json", "tokenizer.json"):
        path = os.path.join(folder, name)
        if not token or not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            if name == "vocab.txt":
                words = f.read().split("\n")
                return words.index(token) if token in words else None
            data = json.load(f)
        if name == "tokenizer.json":
            for added in data.get("added_tokens", []):
                if added.get("content") == token:
                    return added["id"]
            data = data.get("model", {}).get("vocab", {})
        return data.get(token)
    return None


# ---- CLI ----

def parse_ids(text, where):
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise ValueError(f"{where}: '{text.strip()}' is not a comma-separated list of "
                         "ids") from None


def read_corpus(path, vocab):
    corpus = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                corpus.append(parse_ids(line, f"{path}:{number}"))
                if not all(0 <= t < vocab for t in corpus[-1]):
                    raise ValueError(f"{path}:{number}: an id is outside the vocabulary "
                                     f"0..{vocab - 1}")
    if not corpus:
        raise ValueError(f"{path}: no id lists")
    return corpus


def parse_pairs(text, where, width):
    out = []
    for item in filter(None, (s.strip() for s in (text or "").split(","))):
        parts = item.split(":")
        if len(parts) != width or not all(re.fullmatch(r"\d+", p) for p in parts):
            raise ValueError(f"{where}: '{item}' is not {width} ':'-separated numbers")
        out.append(tuple(int(p) for p in parts))
    return out


def check_ranges(cfg, ids, targets, diff):
    """Positions inside the input and ids inside the vocabulary, named by option."""
    vocab = cfg["vocab_size"]
    if not ids:
        raise ValueError("--ids: no ids")
    for where, values, positions in (("--ids", ids, []), ("--targets", [t for _, t in targets],
                                                          [p for p, _ in targets]),
                                     ("--logit-diff", list(diff[1:]) if diff else [],
                                      [diff[0]] if diff else [])):
        for t in values:
            if not 0 <= t < vocab:
                raise ValueError(f"{where}: id {t} is outside the vocabulary 0..{vocab - 1}")
        for p in positions:
            if not 0 <= p < len(ids):
                raise ValueError(f"{where}: position {p} is outside 0..{len(ids) - 1}")


def ablated_pair(folder, ids, interventions, dtype, loaded, corpus):
    """(clean, ablated, mu or None) in one dtype."""
    cfg = load_config(folder)
    plan = head_plan(interventions, head_counts(cfg))
    uses_mean = any(iv.kind == "mean" for iv in interventions)
    mu = mean_vectors(folder, corpus, dtype, loaded) if uses_mean else None
    clean = run_pass(folder, ids, dtype, loaded)
    ablated = run_pass(folder, ids, dtype, loaded, Ablation(plan, mu))
    return clean, ablated, mu


def write_reference(args):
    folder = args.model
    cfg = load_config(folder)
    ids = parse_ids(args.ids, "--ids")
    interventions = parse_interventions(args.ablate)
    corpus = read_corpus(args.mean_corpus, cfg["vocab_size"]) if args.mean_corpus else [ids]
    targets = parse_pairs(args.targets, "--targets", 2)
    diff = parse_pairs(args.logit_diff, "--logit-diff", 3)
    diff = diff[0] if diff else None
    check_ranges(cfg, ids, targets, diff)
    mask_id = args.mask_id if args.mask_id is not None else mask_token_id(folder)
    if targets and mask_id is None and cfg["model_type"] in MASKED_LM:
        raise ValueError(f"{folder}: no mask token in the tokenizer files; give --mask-id")
    loaded = st_io.load_checkpoint(folder)
    clean, ablated, mu = ablated_pair(folder, ids, interventions, torch.float32, loaded, corpus)
    _, ablated64, _ = ablated_pair(folder, ids, interventions, torch.float64, loaded, corpus)
    gap = (ablated.probs.double() - ablated64.probs).abs().max().item()
    out = {"input_ids": torch.tensor(ids, dtype=torch.int64),
           "clean_attention": clean.probs.contiguous(),
           "ablated_attention": ablated.probs.contiguous()}
    if clean.lm is not None:
        out["clean_lm_logits"] = clean.lm.contiguous()
        out["ablated_lm_logits"] = ablated.lm.contiguous()
    if mu is not None:
        out["mean_vectors"] = mu.contiguous()
    out.update(effect_measures(cfg, ids, clean, ablated, targets, diff, mask_id))
    st_io.save_file(out, args.out, metadata={
        "model": os.path.abspath(folder), "model_type": cfg["model_type"],
        "ids": ",".join(map(str, ids)),
        "interventions": ",".join(iv.spelling() for iv in interventions),
        "mean_corpus": "" if mu is None else args.mean_corpus or "input ids",
        "mean_sentences": "0" if mu is None else str(len(corpus)),
        "logit_diff": args.logit_diff or "", "mask_id": "" if mask_id is None else str(mask_id),
        "compute_dtype": "float32", "measures_dtype": "float64",
        "max_abs_diff_vs_float64": f"{gap:.3e}"})
    print(f"{args.out}: {len(interventions)} interventions, n={len(ids)}, "
          f"max|p32-p64| of ablated probs {gap:.2e}")


def main():
    parser = reference_main.parser(__doc__, self_test=True, model_required=False)
    parser.add_argument("--ids", help="comma-separated token ids")
    parser.add_argument("--ablate", default="", help="e.g. 1-0:zero,2-g1:sink,0-3:mean")
    reference_main.add_id_corpus(parser, "--mean-corpus")
    parser.add_argument("--targets", help="masked LM: POS:ORIGINAL_ID,...")
    parser.add_argument("--logit-diff", help="causal LM: POS:A:B")
    reference_main.add_mask_id(parser)
    args = reference_main.parse_self_tested(parser, "ablation_selftest", "--ids")
    reference_main.write_or_exit(write_reference, args, "ablation_reference.py", "an input")


if __name__ == "__main__":
    main()
