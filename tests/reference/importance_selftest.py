"""Self-test of importance_reference.py (run as `importance_reference.py --self-test
CHECKPOINTS_DIR`): the masking rule against values worked out by hand, the items, then invariants
of importance on fixture checkpoints. Prints every check; exit status 1 on any failure."""

import math
import os
import time

import torch

import ablation_reference as ar
import importance_reference as ir
import torch_reference
import selftest_checks
from selftest_checks import Checks

# Two sentences framed by BERT-fixture specials (101, 102), a specials-only one, a repeat.
CORPUS = [[101, 371, 316, 259, 291, 252, 193, 380, 246, 102], [101, 102],
          [101, 160, 117, 231, 300, 318, 233, 102], [101, 300, 300, 300, 300, 300, 102]]
SPECIAL = {101, 102}
MASK_ID = 103


def masking(check):
    check.case = "masking"
    rng = ir.SplitMix64(0)
    first, second = rng.next(), rng.next()
    check("SplitMix64 state 0: first output 0xE220A8397B1DCDAF", first == 0xE220A8397B1DCDAF,
          hex(first))
    check("SplitMix64 state 0: second output 0x6E789E6AA1B965F4", second == 0x6E789E6AA1B965F4,
          hex(second))
    # By hand, candidates [1..6], k = floor(6 * 0.5 + 0.5) = 3, state 0: outputs
    # 0xE220A8397B1DCDAF % 6 = 1 -> swap 0,1: [2,1,3,4,5,6]; 0x6E789E6AA1B965F4 % 5 = 0 -> keep;
    # 0x06C45D188009454F % 4 = 3 -> swap 2,5: [2,1,6,4,5,3]; chosen {2,1,6} sorted.
    got = ir.masked_positions([1, 2, 3, 4, 5, 6], 0.5, 0, 0)
    check("seed 0, sentence 0, [1..6] at 0.5 -> [1, 2, 6]", got == [1, 2, 6], str(got))
    c = list(range(3, 40))
    check("seed 3 + sentence 4 == seed 7 + sentence 0",
          ir.masked_positions(c, 0.15, 3, 4) == ir.masked_positions(c, 0.15, 7, 0))
    check("seed + sentence wraps mod 2^64",
          ir.masked_positions(c, 0.15, 2**64 - 1, 1) == ir.masked_positions(c, 0.15, 0, 0))
    for f, m, k in ((0.15, 1, 1), (0.15, 3, 1), (0.15, 10, 2), (0.5, 7, 4), (1.0, 5, 5),
                    (0.15, 0, 0)):
        got = len(ir.masked_positions(list(range(m)), f, 0, 0))
        check(f"k(f={f}, m={m}) = {k}", got == k, str(got))
    check("no candidate is chosen twice and all are candidates",
          all(len(set(p)) == len(p) and set(p) <= set(c)
              for p in (ir.masked_positions(c, 0.9, 11, s) for s in range(20))))


def items(check):
    check.case = "items"
    masked, skipped = ir.build_items(CORPUS, True, SPECIAL, MASK_ID, 0.15, 0)
    check("masked LM: the specials-only sentence is skipped and counted",
          skipped == 1 and [it.sentence for it in masked] == [0, 2, 3])
    ok = True
    for it in masked:
        chosen = ir.masked_positions([p for p, t in enumerate(CORPUS[it.sentence])
                                      if t not in SPECIAL], 0.15, 0, it.sentence)
        ok &= [p for p, _ in it.targets] == chosen
        ok &= all(it.ids[p] == MASK_ID and CORPUS[it.sentence][p] == t for p, t in it.targets)
        ok &= all(it.ids[p] == t for p, t in enumerate(CORPUS[it.sentence]) if p not in chosen)
    check("masked LM: the sentence index seeds each masking; targets hold the original ids", ok)
    causal, skipped = ir.build_items(CORPUS + [[7]], False, SPECIAL, MASK_ID, 0.15, 0)
    check("causal LM: a single id is skipped; [101,102] has one target",
          skipped == 1 and len(causal) == 4 and causal[1].targets == [(0, 102)])
    check("causal LM: position i predicts id i+1, input unchanged",
          all(it.ids == CORPUS[it.sentence] and it.targets == [(p, it.ids[p + 1]) for p in
                                                               range(len(it.ids) - 1)]
              for it in causal))


def direct_loss(c):
    """The clean loss by the plain reference pass, summed without the Corpus class."""
    total, count = 0.0, 0
    for it in c.items:
        lm = torch_reference.forward(c.folder, it.ids, torch.float32, c.loaded)[4].double()
        for p, t in it.targets:
            total -= lm[p].log_softmax(-1)[t].item()
            count += 1
    return total / count


def importance_invariants(check, root, name, kind, kv_groups):
    check.case = f"{name} {kind}{' kv groups' if kv_groups else ''}"
    folder = os.path.join(root, name)
    masked_lm = ar.load_config(folder)["model_type"] in ar.MASKED_LM
    its, _ = ir.build_items(CORPUS, masked_lm, SPECIAL, MASK_ID, 0.3, 0)
    c = ir.Corpus(folder, its, kind, kv_groups)
    r = ir.importance(c, ir.DEFAULT_PRUNING)
    n = c.layers * c.units
    want = direct_loss(c)
    check("clean loss == plain pass's token-weighted NLL (1e-12)",
          abs(r["clean_loss"] - want) <= 1e-12 * want, f"{r['clean_loss']:.9f}")
    check("pruning at 0 == clean (exact)", r["pruning"][0][1:] == (0, r["clean_loss"],
                                                                   r["clean_accuracy"]))
    check("delta == ablated - clean", all(d == a - r["clean_loss"] for d, a in
                                          zip(r["delta_loss"], r["ablated_loss"])))
    order = r["order"]
    check("order: a permutation by increasing delta, ties by index",
          sorted(order) == list(range(n)) and all(
              (r["delta_loss"][a], a) < (r["delta_loss"][b], b) for a, b in zip(order, order[1:])))
    check("pruning removes floor(f*N + 0.5) units, all at 1.0",
          [p[1] for p in r["pruning"]] == [math.floor(f * n + 0.5) for f in ir.DEFAULT_PRUNING]
          and r["pruning"][-1][1] == n)
    one = next((p for p in r["pruning"] if p[1] == 1), None)
    check("one unit pruned == that unit's ablated loss", one is None or (
        one[2] == r["ablated_loss"][order[0]] and one[3] == r["ablated_accuracy"][order[0]]))
    if kv_groups:
        _, heads, kv_heads = c.counts
        per = heads // kv_heads
        by_heads = ir.Corpus(folder, its, kind, False)
        for g in range(c.units):
            pair = by_heads.evaluate([h for h in range(g * per, (g + 1) * per)])
            check(f"group 0-g{g} == its {per} query heads together",
                  pair[0] == r["ablated_loss"][g] and pair[1] == r["ablated_accuracy"][g])
    return r


def run(root):
    start = time.monotonic()
    check = Checks()
    masking(check)
    items(check)
    for name, kind, kv in (("bert_f32", "zero", False), ("gpt2_f32", "mean", False),
                           ("qwen2_gqa2_bf16", "zero", True), ("llama3_gqa4_f32", "sink", True)):
        if not selftest_checks.have_case(root, name):
            continue
        importance_invariants(check, root, name, kind, kv)
    check.case = "bert_f32"
    if os.path.isdir(os.path.join(root, "bert_f32")):
        its, _ = ir.build_items(CORPUS, True, SPECIAL, MASK_ID, 0.3, 0)
        a = ir.importance(ir.Corpus(os.path.join(root, "bert_f32"), its, "zero", False), [])
        b = ir.importance(ir.Corpus(os.path.join(root, "bert_f32"), its, "zero", True), [])
        check("without GQA, key/value groups == query heads", a == b)
    print(f"{check.count - len(check.failed)}/{check.count} checks passed in "
          f"{time.monotonic() - start:.1f} s")
    for label in check.failed:
        print(f"FAILED: {label}")
    return 1 if check.failed else 0
