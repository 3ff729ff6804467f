"""Self-test of ablation_reference.py (run as `ablation_reference.py --self-test CHECKPOINTS_DIR`):
hand-made cases with values worked out by hand, then invariants of the ablated passes on the
fixture checkpoints that make_checkpoints.py writes. Prints every check; exit status 1 on any
failure."""

import math
import os
import time

import torch

import ablation_reference as ar
import st_io
import torch_reference
import selftest_checks
from selftest_checks import Checks

CASES = ("bert_f32", "gpt2_f32", "roberta_f32", "distilbert_f16", "llama_f32",
         "llama_gqa2_headdim_bf16", "llama3_gqa4_f32", "mistral_mqa_window_f32", "qwen2_gqa2_bf16")
TOL = 1e-6


def gap(a, b):
    return (a.double() - b.double()).abs().max().item() if a.numel() else 0.0


def same_pass(a, b):
    return torch.equal(a.probs, b.probs) and torch.equal(a.hidden, b.hidden) and (
        a.lm is None or torch.equal(a.lm, b.lm))


def hand_made(check):
    """2 tokens, 1 head: probs [[1,0],[.5,.5]], V [[1,2],[3,4]]."""
    check.case = "hand-made"
    probs = torch.tensor([[[1.0, 0.0], [0.5, 0.5]]], dtype=torch.float64)
    v = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]], dtype=torch.float64)
    mu = torch.tensor([[[7.0, 8.0]]], dtype=torch.float64)
    p_zero, c_zero = ar.Ablation({0: {0: "zero"}})(0, probs, v)
    p_mask, c_mask = ar.Ablation({0: {0: "zero"}}, head_mask=True)(0, probs, v)
    p_sink, c_sink = ar.Ablation({0: {0: "sink"}})(0, probs, v)
    p_mean, c_mean = ar.Ablation({0: {0: "mean"}}, mu)(0, probs, v)
    check("zero: probs and context 0", not p_zero.any() and not c_zero.any())
    check("zero == literal head_mask", torch.equal(p_zero, p_mask) and torch.equal(c_zero, c_mask))
    check("sink: probs [[1,0],[1,0]], context [[1,2],[1,2]]",
          torch.equal(p_sink, torch.tensor([[[1.0, 0.0], [1.0, 0.0]]], dtype=torch.float64))
          and torch.equal(c_sink, torch.tensor([[[1.0, 2.0], [1.0, 2.0]]], dtype=torch.float64)))
    check("mean: probs kept, context [[7,8],[7,8]]", torch.equal(p_mean, probs) and torch.equal(
        c_mean, torch.tensor([[[7.0, 8.0], [7.0, 8.0]]], dtype=torch.float64)))
    check("clean: context = probs @ V = [[1,2],[2,3]]", torch.equal(
        ar.Ablation({})(0, probs, v)[1], torch.tensor([[[1.0, 2.0], [2.0, 3.0]]],
                                                      dtype=torch.float64)))
    js_sink = ar.head_js(probs[None], p_sink[None]).item()
    want = 0.375 * math.log(4 / 3)  # row 0: 0; row 1: JS([.5,.5],[1,0]) = .75 ln(4/3)
    check("js(clean, sink) = 0.375 ln(4/3)", abs(js_sink - want) < 1e-15, f"{js_sink:.15f}")
    check("js(clean, zero) = NaN (no row left)", math.isnan(ar.head_js(probs[None],
                                                                       p_zero[None]).item()))
    opposite = ar.js_rows(torch.tensor([1.0, 0.0], dtype=torch.float64),
                          torch.tensor([0.0, 1.0], dtype=torch.float64)).item()
    check("JS([1,0],[0,1]) = ln 2", abs(opposite - math.log(2)) < 1e-15)
    # Causal measures, ids [0,1], vocab 2: clean logits uniform, ablated row 0 = [ln 3, 0].
    clean = torch.zeros(2, 2, dtype=torch.float64)
    ablated = torch.tensor([[math.log(3.0), 0.0], [0.0, 0.0]], dtype=torch.float64)
    m = ar.causal_measures([0, 1], clean, ablated, (0, 0, 1))
    expect = {"nll_clean": [math.log(2)], "nll_ablated": [math.log(4)],
              "delta_nll": [math.log(2)], "kl": [0.5 * math.log(4 / 3), 0.0],
              "delta_p_top": [0.25, 0.0], "logit_diff": [math.log(3)]}
    for key, values in expect.items():
        got = m[key].tolist()
        check(f"causal {key} = {values}", all(abs(a - b) < 1e-12 for a, b in zip(got, values)),
              f"{got}")
    check("top ids [0,0] (tie -> lowest id)", m["top_ids"].tolist() == [0, 0])
    d = ar.masked_measures([5, 9], clean, ablated, [(0, 1)], 5)["delta_logp"].item()
    check("masked delta_logp = ln(1/4) - ln(1/2) = -ln 2", abs(d + math.log(2)) < 1e-12)
    try:
        ar.masked_measures([5, 9], clean, ablated, [(1, 1)], 5)
        check("a target off the mask token is refused", False)
    except ValueError:
        check("a target off the mask token is refused", True)
    for bad in ("1-0:zero,1-0:sink", "9-0:zero", "0-g7:zero"):
        try:
            ar.head_plan(ar.parse_interventions(bad), (2, 4, 2))
            check(f"'{bad}' is refused", False)
        except ValueError as e:
            check(f"'{bad}' is refused", True, str(e))
    plan = ar.head_plan(ar.parse_interventions("1-g1:sink,0-3:zero"), (2, 4, 2))
    check("1-g1 of 4 heads / 2 groups = heads 2,3", plan == {1: {2: "sink", 3: "sink"},
                                                              0: {3: "zero"}})


def case_ids(root, case, cfg):
    """The case's longest manifest input; masked LMs get the mask token at position 2."""
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        entry = next(e for e in __import__("json").load(f) if e["case"] == case)
    ids = list(max(entry["inputs"], key=len))
    targets = []
    if cfg["model_type"] in ar.MASKED_LM:
        targets = [(2, ids[2])]
        ids[2] = ar.mask_token_id(os.path.join(root, case))
    return ids, targets


class Case:
    """One fixture checkpoint with helpers for ablated passes."""

    def __init__(self, root, name):
        self.folder = os.path.join(root, name)
        self.cfg = ar.load_config(self.folder)
        self.counts = ar.head_counts(self.cfg)
        self.loaded = st_io.load_checkpoint(self.folder)
        self.ids, self.targets = case_ids(root, name, self.cfg)
        self.causal = self.cfg["model_type"] not in ar.MASKED_LM
        self.clean = self.run(None)

    def run(self, spelling, ids=None, dtype=torch.float32, mu=None, record=False, mask=False):
        ids = self.ids if ids is None else ids
        if spelling is None:
            return ar.run_pass(self.folder, ids, dtype, self.loaded)
        plan = ar.head_plan(ar.parse_interventions(spelling), self.counts)
        if mu is None and "mean" in spelling:
            mu = ar.mean_vectors(self.folder, [ids], dtype, self.loaded)
        return ar.run_pass(self.folder, ids, dtype, self.loaded,
                           ar.Ablation(plan, mu, head_mask=mask, record=record))

    def measures(self, ablated):
        diff = (len(self.ids) - 1, 0, 1) if self.causal and ablated.lm is not None else None
        return ar.effect_measures(self.cfg, self.ids, self.clean, ablated, self.targets, diff,
                                  ar.mask_token_id(self.folder))


def check_plain(check, c):
    plain = torch_reference.forward(c.folder, c.ids, torch.float32, c.loaded)
    empty = c.run("")
    check("no intervention == plain reference (bit-exact)",
          torch.equal(plain[0], empty.probs) and torch.equal(plain[2], empty.hidden)
          and (plain[4] is None or torch.equal(plain[4], empty.lm)))
    m = c.measures(empty)
    zero = all(not t.double().nan_to_num(1.0).any() for k, t in m.items()
               if k not in ("target_positions", "target_ids", "nll_clean", "nll_ablated",
                            "top_ids"))
    check("empty intervention: every delta, kl and js exactly 0", zero, ", ".join(m))


def check_zero(check, c):
    layers, heads, _ = c.counts
    spelling = f"0-0:zero,{layers - 1}-{heads - 1}:zero"
    repl, literal = c.run(spelling, record=True), c.run(spelling, mask=True)
    g = max(gap(repl.probs, literal.probs), gap(repl.lm, literal.lm) if c.clean.lm is not None
            else 0.0)
    check("zero by context replacement == literal head_mask multiply (1e-6)", g <= TOL, f"{g:.1e}")
    probs, _, ctx = repl.records[0]
    check("zero head: recorded rows sum to 0, context 0",
          not probs[0].any() and not ctx[0].any() and not repl.probs[layers - 1, heads - 1].any())
    m = c.measures(repl)
    check("zero head js = NaN, other heads finite", math.isnan(m["js"][0, 0].item())
          and not m["js"][0, 1:].isnan().any())
    changed = gap(repl.lm, c.clean.lm) if c.clean.lm is not None else gap(repl.hidden,
                                                                          c.clean.hidden)
    check("a layer-0 zero ablation changes the output", changed > 1e-4, f"{changed:.1e}")
    if layers > 1:
        check("it changes later maps (js > 0)", (m["js"][1:] > 0).any().item())
    if c.causal and "kl" in m:
        check("KL >= 0 at every position, delta_nll finite", (m["kl"] >= 0).all().item()
              and math.isfinite(m["delta_nll"].item()), f"min {m['kl'].min().item():.1e}")
    if "delta_logp" in m:
        check("masked delta_logp finite and nonzero", m["delta_logp"].isfinite().all().item()
              and (m["delta_logp"] != 0).all().item(), f"{m['delta_logp'].tolist()}")


def check_last_layer(check, c):
    layers, heads, _ = c.counts
    last, h = layers - 1, heads - 1
    for kind in ar.KINDS:
        ab = c.run(f"{last}-{h}:{kind}")
        js = c.measures(ab)["js"]
        earlier = torch.equal(ab.probs[:last], c.clean.probs[:last])
        others = torch.equal(js[:last], torch.zeros_like(js[:last])) and not js[last, :h].any()
        want = {"zero": math.isnan(js[last, h].item()), "sink": js[last, h].item() > 0,
                "mean": js[last, h].item() == 0}[kind]
        check(f"last-layer {kind}: earlier maps bit-exact, their js and other heads' js 0, "
              f"ablated head js {'NaN' if kind == 'zero' else '> 0' if kind == 'sink' else '0'}",
              earlier and others and want, f"js={js[last, h].item():.3g}")


def check_groups(check, c):
    layers, heads, kv = c.counts
    per = heads // kv
    g = kv - 1
    members = ",".join(f"{layers - 1}-{h}:{{k}}" for h in range(g * per, (g + 1) * per))
    for kind in ar.KINDS:
        a = c.run(f"0-g0:{kind},{layers - 1}-g{g}:{kind}")
        b = c.run(",".join([f"0-{h}:{kind}" for h in range(per)] + [members.format(k=kind)]))
        check(f"{kind}: KV groups 0-g0,{layers - 1}-g{g} == their {per} query heads each",
              same_pass(a, b))


def check_sink(check, c):
    layers, heads, kv = c.counts
    ab = c.run(f"0-g{kv - 1}:sink", record=True)
    probs, v, ctx = ab.records[0]
    onehot = torch.zeros_like(probs[-1])
    onehot[:, 0] = 1.0
    per = heads // kv
    group = range((kv - 1) * per, heads)
    ok = all(torch.equal(probs[h], onehot) and torch.equal(ctx[h], v[h, 0].expand_as(ctx[h]))
             and torch.equal(onehot @ v[h], ctx[h]) for h in group)
    check(f"sink: heads {list(group)} rows one-hot on key 0, context == V[0] == onehot @ V", ok)
    if c.causal:
        every = ",".join(f"{layer}-{h}:sink" for layer in range(layers) for h in range(heads))
        all_sunk = c.run(every)
        g = gap(all_sunk.lm[0], c.clean.lm[0]) if c.clean.lm is not None else gap(
            all_sunk.hidden[0], c.clean.hidden[0])
        check("causal: sinking every head leaves position 0 unchanged (1e-6)", g <= TOL,
              f"{g:.1e}")


def check_mean(check, c):
    layers, heads, _ = c.counts
    ab = c.run("0-0:mean", record=True)
    clean_rec = c.run("", record=True).records[0]
    probs, _, ctx = ab.records[0]
    mu = ar.mean_vectors(c.folder, [c.ids], torch.float32, c.loaded)
    check("mean: recorded probs of the ablated layer bit-exact", torch.equal(probs, clean_rec[0]))
    g = gap(ctx[0].mean(0), clean_rec[2][0].mean(0))
    check("mean (mu from the input): positions' mean context unchanged (1e-6)", g <= TOL,
          f"{g:.1e}")
    check("mean: every context row == mu[0,0]", torch.equal(ctx[0], mu[0, 0].expand_as(ctx[0])))
    one = c.ids[:1]
    every = ",".join(f"{layer}-{h}:mean" for layer in range(layers) for h in range(heads))
    a, clean1 = c.run(every, ids=one), c.run(None, ids=one)
    g = max(gap(a.probs, clean1.probs), gap(a.hidden, clean1.hidden))
    check("mean of every head on 1 token, mu from that token == clean (1e-6)", g <= TOL, f"{g:.1e}")
    k = len(c.ids) // 2
    pooled = ar.mean_vectors(c.folder, [c.ids, c.ids[:k]], torch.float32, c.loaded).double()
    by_hand = (mu.double() * len(c.ids) + ar.mean_vectors(
        c.folder, [c.ids[:k]], torch.float32, c.loaded).double() * k) / (len(c.ids) + k)
    g = gap(pooled, by_hand)
    check(f"mean over {len(c.ids)}- and {k}-token sentences pools rows (not sentence means)",
          g <= TOL, f"{g:.1e}")
    if c.causal and len(c.ids) > 3:
        spelling = f"0-0:mean,{layers - 1}-0:sink,0-{heads - 1}:zero"
        full = c.run(spelling, mu=mu)
        prefix = c.run(spelling, ids=c.ids[:k], mu=mu)
        g = max(gap(full.probs[:, :, :k, :k], prefix.probs), gap(full.hidden[:k], prefix.hidden))
        # 1e-5: float32 sums over a different n round differently; a leak would be O(1).
        check(f"causal: ablated pass on the first {k} ids == rows of the full pass (1e-5)",
              g <= 1e-5, f"{g:.1e}")


def check_combined(check, c):
    layers, heads, kv = c.counts
    # Group kv-1 holds head 0 only without GQA groups (MQA): then the mean goes to the last layer.
    mean = f"0-g{kv - 1}:mean" if kv > 1 else f"{layers - 1}-0:mean"
    parts = ["0-0:zero", f"{layers - 1}-{heads - 1}:sink", mean]
    a = c.run(",".join(parts))
    b = c.run(",".join(reversed(parts)))
    check("combined interventions: order does not matter (bit-exact)", same_pass(a, b))
    a64 = c.run(",".join(parts), dtype=torch.float64)
    g = gap(a.probs, a64.probs)
    check(f"fp32 vs fp64 of ablated probs <= {torch_reference.FP64_AGREEMENT:.0e}",
          g <= torch_reference.FP64_AGREEMENT, f"{g:.2e}")
    return g


def run(root):
    start = time.monotonic()
    check = Checks()
    hand_made(check)
    worst, seen = 0.0, 0
    for name in CASES:
        if not selftest_checks.have_case(root, name):
            continue
        seen += 1
        check.case = name
        c = Case(root, name)
        check_plain(check, c)
        check_zero(check, c)
        check_last_layer(check, c)
        check_groups(check, c)
        check_sink(check, c)
        check_mean(check, c)
        worst = max(worst, check_combined(check, c))
    elapsed = time.monotonic() - start
    return selftest_checks.finish(
        "ablation", check, seen, root,
        f"; worst fp32/fp64 gap of ablated probs {worst:.2e}; {elapsed:.1f} s")
