#!/usr/bin/python3
"""Self-test of attribution_reference.py (issue 19): golden cases whose answers are worked out by
hand in the comments (rules A1-A15 of attribution_reference.py), then invariants of every method
on the fixture checkpoints that make_checkpoints.py writes (post-LN BERT family, pre-LN GPT-2,
the Llama family with GQA, MQA and a sliding window).

  attribution_selftest.py CHECKPOINTS_DIR     prints every check; exit status 1 on any failure.
"""

import copy
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import types

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attribution_large_values as large_values  # noqa: E402
import attribution_reference as ar  # noqa: E402
import selftest_checks  # noqa: E402
import st_io  # noqa: E402

# (case, manifest input index): post-LN, pre-LN, Llama, GQA, MQA + window, 3 layers + bf16.
CASES = (("bert_f32", 1), ("distilbert_f16", 1), ("gpt2_f32", 1), ("llama_f32", 1),
         ("llama3_gqa4_f32", 1), ("mistral_mqa_window_f32", 1), ("qwen2_gqa2_bf16", 1))
TOL = 1e-12
D = torch.float64


class Checks(selftest_checks.Checks):
    def close(self, name, got, want, tol=TOL):
        got, want = torch.as_tensor(got, dtype=D), torch.as_tensor(want, dtype=D)
        ok = got.shape == want.shape and bool(((got - want).abs() <= tol).all())
        gap = (got - want).abs().max().item() if got.shape == want.shape else math.inf
        self(name, ok, f"max gap {gap:.2e}" if ok else f"got {got.tolist()}, want {want.tolist()}")


def stochastic(rows):
    """[n,n] float64 with each row divided by its sum."""
    t = torch.tensor(rows, dtype=D)
    return t / t.sum(dim=-1, keepdim=True)


# ---- golden cases ----

def rollout_golden(check):
    """methods.md §5.1: A1[i][j] ∝ 1+((i+2j) mod 4), A2[i][j] ∝ 1+((3i+j) mod 5), 4 tokens,
    one head. R_2 row 0 = [0.379167, 0.195833, 0.179167, 0.245833] (given to 6 places)."""
    check.case = "golden"
    a1 = stochastic([[1 + (i + 2 * j) % 4 for j in range(4)] for i in range(4)])
    a2 = stochastic([[1 + (3 * i + j) % 5 for j in range(4)] for i in range(4)])
    r = ar.rollout(torch.stack([a1, a2])[:, None])["rollout"]
    check.close("rollout R_2 row 0 = §5.1 golden", r[1, 0],
                [0.379167, 0.195833, 0.179167, 0.245833], tol=5e-7)
    # Layer 0 alone: At_0 = (A1 + I) / 2, so row 0 = ([1,3,1,3]/8 + e_0) / 2.
    check.close("rollout R_1 row 0 = (A1 row 0 + e_0) / 2", r[0, 0],
                [0.5625, 0.1875, 0.0625, 0.1875])
    # Later layer on the left: the other order gives a different row 0.
    wrong = ar.augmented(a1[None, None])[0] @ ar.augmented(a2[None, None])[0]
    check("rollout order matters (At_0 @ At_1 differs)", (wrong[0] - r[1, 0]).abs().max() > 1e-3)


def flow_golden(check):
    """Two tokens, one head. Raw A_0 = [[1,0],[1,0]], A_1 = [[0,1],[0,1]], A_2 = [[0,1],[1,0]]
    give At_0 = [[1,0],[.5,.5]], At_1 = [[.5,.5],[0,1]], At_2 = [[.5,.5],[.5,.5]] (A6).
    Layer 1, from (2,0): to (0,0) min(.5,1) + min(.5,.5) = 1, to (0,1) min(.5,0) + min(.5,.5) =
    .5, so flow row [2/3, 1/3]; rollout row 0 = .5 [1,0] + .5 [.5,.5] = [.75,.25]. From (2,1):
    min(1,.5) = .5 to each input: [.5,.5] (rollout agrees there).
    Layer 2, from (3,0) (and (3,1), whose capacities are the same): the source sends at most
    .5 + .5 = 1, and (3,0)->(2,0)->(1,0)->(0,0) and (3,0)->(2,1)->(1,1)->(0,0) carry .5 each on
    disjoint edges, so flow to (0,0) = 1; (0,1) only receives At_0[1][1] = .5, reached by
    (3,0)->(2,1)->(1,1)->(0,1): .5. flow row [2/3, 1/3]; rollout R_2 row = [.625, .375]."""
    check.case = "golden"
    probs = torch.tensor([[[1, 0], [1, 0]], [[0, 1], [0, 1]], [[0, 1], [1, 0]]], dtype=D)[:, None]
    out = ar.flow(probs)
    check.close("flow_raw layer 1", out["flow_raw"][1], [[1, 0.5], [0.5, 0.5]])
    check.close("flow layer 1 = [[2/3,1/3],[1/2,1/2]]", out["flow"][1],
                [[2 / 3, 1 / 3], [0.5, 0.5]])
    check.close("flow_raw layer 2 (3-layer max-flow)", out["flow_raw"][2], [[1, 0.5], [1, 0.5]])
    check.close("flow layer 0 = At_0", out["flow"][0], [[1, 0], [0.5, 0.5]])
    roll = ar.rollout(probs)["rollout"]
    check.close("rollout of the same maps", roll[1:], [[[0.75, 0.25], [0.5, 0.5]],
                                                      [[0.625, 0.375], [0.625, 0.375]]])
    check("flow differs from rollout here", (out["flow"][2] - roll[2]).abs().max() > 0.04)
    # A shared edge: s->a .7, s->b .6, a->c .5, b->c .9, c->t 1. Widest paths alone would
    # give .5 + .6 = 1.1; the cut {c->t} limits the flow to 1.
    cap = np.zeros((5, 5))
    cap[0, 1], cap[0, 2], cap[1, 3], cap[2, 3], cap[3, 4] = 0.7, 0.6, 0.5, 0.9, 1.0
    check.close("max_flow with a shared bottleneck = 1", ar.max_flow(cap, 0, 4), 1.0)
    # CLRS figure 26.1 (s=0, v1..v4 = 1..4, t=5): the maximum flow is 23.
    clrs = np.zeros((6, 6))
    for a, b, c in ((0, 1, 16), (0, 2, 13), (1, 3, 12), (2, 1, 4), (2, 4, 14), (3, 2, 9),
                    (3, 5, 20), (4, 3, 7), (4, 5, 4)):
        clrs[a, b] = c
    check.close("max_flow on CLRS fig. 26.1 = 23", ar.max_flow(clrs, 0, 5), 23.0)
    try:
        ar.flow_raw(np.zeros((1, ar.FLOW_MAX_TOKENS + 1, ar.FLOW_MAX_TOKENS + 1)))
        check("flow refuses n > 64 (A8)", False, "no error")
    except ar.AttributionError as e:
        check("flow refuses n > 64 (A8)", "64" in str(e) and "65" in str(e), str(e))


def norm_golden(check):
    """Two heads, two tokens, D = 2. f^0 = [[3,4],[0,0]] (norms 5, 0), f^1 = [[0,1],[1,0]]
    (norms 1, 1); A^0 = [[1,0],[.5,.5]], A^1 = [[0,1],[.25,.75]].
    norm_head^0 = [[5,0],[2.5,0]], norm_head^1 = [[0,1],[.25,.75]];
    norm_layer[1,0] = ||.5 [3,4] + .25 [0,1]|| = ||[1.5, 2.25]|| = sqrt(7.3125) = 2.7041635
    (not 2.5 + .25 = 2.75: heads are summed as vectors first); norm_layer = [[5, 1],
    [sqrt(7.3125), .75]]."""
    check.case = "golden"
    layers = types.SimpleNamespace(
        probs=torch.tensor([[[[1, 0], [0.5, 0.5]], [[0, 1], [0.25, 0.75]]]], dtype=D),
        f=[torch.tensor([[[3, 4], [0, 0]], [[0, 1], [1, 0]]], dtype=D)])
    out = ar.norm_based(layers)
    check.close("transformed_norm", out["transformed_norm"][0], [[5, 0], [1, 1]])
    check.close("norm_head", out["norm_head"][0], [[[5, 0], [2.5, 0]], [[0, 1], [0.25, 0.75]]])
    check.close("norm_layer (vector sum over heads)", out["norm_layer"][0],
                [[5, 1], [math.sqrt(7.3125), 0.75]])


def alti_golden(check):
    """One pre-LN layer, one head, two tokens, D = 2, no b_O: x = [[1,0],[0,2]],
    A = [[1,0],[.5,.5]], f(x_0) = [1,1], f(x_1) = [2,0].
    M[0,0] = [1,1] + x_0 = [2,1], M[0,1] = 0; M[1,0] = .5 [1,1] = [.5,.5],
    M[1,1] = .5 [2,0] + x_1 = [1,2]; y_0 = [2,1], y_1 = [1.5,2.5].
    c[0] = [3 - 0, 3 - 3] = [3, 0] -> [1, 0]; c[1] = [4 - ||[1,2]||, 4 - ||[.5,.5]||] = [1, 3]
    -> [.25, .75]. One layer: alti = alti_layer."""
    check.case = "golden"
    x = torch.tensor([[1, 0], [0, 2]], dtype=D)
    y = torch.tensor([[2, 1], [1.5, 2.5]], dtype=D)
    layers = types.SimpleNamespace(
        probs=torch.tensor([[[[1, 0], [0.5, 0.5]]]], dtype=D), f=[torch.tensor([[[1, 1], [2, 0]]],
                                                                               dtype=D)],
        proj=[(None, None)], ln1=None, count=1, dtype=D, model=types.SimpleNamespace(folder="hand"),
        stages={(0, "block_in"): x, (0, "attn_out"): y})
    out = ar.alti(layers)
    check.close("alti_layer", out["alti_layer"][0], [[1, 0], [0.25, 0.75]])
    check.close("alti = alti_layer for one layer", out["alti"][0], out["alti_layer"][0])
    check("reconstruction error 0", out["alti_reconstruction_error"][0].item() <= TOL)
    layers.stages[(0, "attn_out")] = y + torch.tensor([[0, 1e-6], [0, 0]], dtype=D)
    try:
        ar.alti(layers)
        check("a 1e-6 reconstruction error is refused (A10)", False, "no error")
    except ar.AttributionError as e:
        check("a 1e-6 reconstruction error is refused (A10)",
              "layer 0" in str(e) and "token 0" in str(e) and "element 1" in str(e), str(e))
    alti_post_ln_golden(check)
    # Zero row (A11): T_00 = [-1,0], T_01 = 0, b = [2,0], so y_0 = [1,0]; ||y - T_00|| = 2 and
    # ||y - T_01|| = 1 are both >= ||y|| = 1: every c is 0 and the row becomes e_0.
    terms = torch.tensor([[[-1, 0], [0, 0]], [[0, 0], [1, 0]]], dtype=D)
    yhat = torch.tensor([[1, 0], [1, 0]], dtype=D)
    check.close("all-zero contributions -> e_i (A11)", ar.contributions(terms, yhat),
                [[1, 0], [0, 1]])


def alti_post_ln_golden(check):
    """One post-LN layer (gamma = 1, beta = 0, eps = 0, no b_O), one head, two tokens, D = 3:
    x = [[1,-1,0],[1,3,-1]], A = [[1,0],[.5,.5]], f(x_0) = [1,0,-1], f(x_1) = [2,-1,-1].
    M[0,0] = f(x_0) + x_0 = [2,-1,-1], M[0,1] = 0; M[1,0] = [.5,0,-.5],
    M[1,1] = [1,-.5,-.5] + x_1 = [2,2.5,-1.5]. Centring (A9) only moves x_1 (mean 1):
    T[1,1] = [1,1.5,-2.5] / s_1. z_0 = [2,-1,-1] (s_0 = sqrt(2)), z_1 = [2.5,2.5,-2]
    (centred [1.5,1.5,-3], s_1 = sqrt(4.5)); every T and yhat of row i share 1/s_i, so
    c[0] ∝ [4 - 0, 4 - 4] -> [1, 0] and c[1] ∝ [6 - ||[1,1.5,-2.5]||, 6 - ||[.5,0,-.5]||] =
    [1, 5] -> [1/6, 5/6]."""
    x = torch.tensor([[1, -1, 0], [1, 3, -1]], dtype=D)
    z = torch.tensor([[2, -1, -1], [2.5, 2.5, -2]], dtype=D)
    centred = z - z.mean(dim=-1, keepdim=True)
    y = centred / torch.tensor([[math.sqrt(2)], [math.sqrt(4.5)]], dtype=D)
    layers = types.SimpleNamespace(
        probs=torch.tensor([[[[1, 0], [0.5, 0.5]]]], dtype=D),
        f=[torch.tensor([[[1, 0, -1], [2, -1, -1]]], dtype=D)], proj=[(None, None)],
        ln1=[(torch.ones(3, dtype=D), torch.zeros(3, dtype=D), 0.0)], count=1, dtype=D,
        model=types.SimpleNamespace(folder="hand"),
        stages={(0, "block_in"): x, (0, "attn_pre_norm"): z, (0, "attn_out"): y})
    out = ar.alti(layers)
    check.close("post-LN alti_layer (centred, scaled by LN1's s)", out["alti_layer"][0],
                [[1, 0], [1 / 6, 5 / 6]])
    check("post-LN reconstruction error 0", out["alti_reconstruction_error"][0].item() <= TOL)


def value_zeroing_golden(check):
    """A13 on hand raw scores under a causal mask over three tokens. Layer 0: row 0 keeps only
    key 0 -> [1,0,0]; row 1 = [.2, 5e-6, masked] and 5e-6 < 1e-5 -> [1,0,0]; row 2 =
    [.1,.3,.1] / .5 = [.2,.6,.2]. Layer 1: every allowed score is below 1e-5 (9e-6, a rounding
    negative, 2e-6, zeros), so every row stays all zero."""
    check.case = "golden"
    raw = torch.tensor([[[0.4, 0.9, 0.9], [0.2, 5e-6, 0.7], [0.1, 0.3, 0.1]],
                        [[9e-6, 0.5, 0.5], [-1e-9, 2e-6, 0.5], [0, 0, 0]]], dtype=D)
    allowed = torch.ones(3, 3, dtype=torch.bool).tril()
    out = ar.value_zeroing_post(raw, allowed)
    check.close("masked, thresholded, row-normalised", out[0],
                [[1, 0, 0], [1, 0, 0], [0.2, 0.6, 0.2]])
    check.close("sub-threshold and zero rows stay zero", out[1], torch.zeros(3, 3))
    a, b = torch.tensor([[3.0, 4.0], [1.0, 0.0]], dtype=D), torch.tensor([[4.0, 3.0], [0, 0]],
                                                                          dtype=D)
    check.close("1 - cos in the stable form; 1 for a zero vector", ar.cosine_distance(a, b),
                [1 - 24 / 25, 1])


# ---- fixture checkpoints ----

def split_f_check(check, layers):
    """A4's W_O slicing: sum_h sum_j A f + b_O is the pass's own attention output."""
    worst = 0.0
    for layer in range(layers.count):
        x = layers.stages[(layer, "block_in")]
        after = layers.stages[(layer, "attn_pre_norm" if layers.ln1 else "attn_out")]
        _, b_o = layers.proj[layer]
        mixed = torch.einsum("hij,hje->ie", layers.probs[layer], layers.f[layer])
        mixed = mixed + (0 if b_o is None else b_o)
        worst = max(worst, ((x + mixed) - after).abs().max().item())
    check("sum_h A f + b_O = the pass's attention output (A4)", worst <= 1e-10, f"{worst:.1e}")


def flow_checks(check, exact):
    aug = ar.augmented(exact["attention"])
    raw = exact["flow_raw"]
    check.close("flow layer 0 = At_0 (A7)", exact["flow"][0], aug[0])
    if raw.shape[0] > 1:
        closed = torch.minimum(aug[1][:, :, None], aug[0][None, :, :]).sum(dim=1)
        check.close("flow_raw layer 1 = sum_k min(At_1[i,k], At_0[k,j]) (A7)", raw[1], closed)
    sink_in = aug[0].sum(dim=0).clamp(max=1.0)
    check("flow_raw <= min(1, capacity into the sink) (A7)",
          bool((raw <= sink_in[None, None, :] + TOL).all()) and bool((raw >= 0).all()))
    ok = True
    for layer in range(1, raw.shape[0]):
        routes = torch.minimum(aug[layer][:, :, None], raw[layer - 1][None, :, :])
        ok &= bool((raw[layer] <= routes.sum(dim=1) + TOL).all())
        ok &= bool((raw[layer] >= routes.max(dim=1).values - TOL).all())
    check("max_k route <= flow_raw[l] <= sum_k route (the cut through layer l)", ok)


def alti_checks(check, model, layers, exact):
    err = exact["alti_reconstruction_error"]
    check("reconstruction error < 1e-6 in float64 (A10)", bool((err < 1e-6).all()),
          f"worst {err.max().item():.1e}")
    if model.post_ln:
        # The authors' (z + eps).std(-1) is the unbiased std: their reconstruction misses LN1.
        gamma, beta, _ = layers.ln1[0]
        terms, bias, y = ar.alti_terms(layers, 0)
        z = layers.stages[(0, "attn_pre_norm")]
        s_ln = torch.sqrt(z.var(dim=-1, unbiased=False) + layers.ln1[0][2])
        s_authors = z.std(dim=-1)
        scale = (s_ln / s_authors)[:, None]
        yhat = (terms.sum(dim=1) + bias - beta) * scale + beta
        gap = (yhat - y).abs().max().item()
        check("the authors' unbiased std would miss LN1 by > 1e-6 (A9)", gap > 1e-6, f"{gap:.1e}")


def value_zeroing_checks(check, model, layers, exact, allowed):
    raw = exact["value_zeroing_raw"]
    masked = raw[:, ~allowed]
    check("masked cells score 0 before A13 (v_j reaches no such query)",
          masked.numel() == 0 or masked.abs().max().item() <= TOL)
    check("raw >= 0 up to rounding", raw.min().item() >= -TOL)
    rec = ar.run_pass(model, layers.ids, D, ar.Recorder(zero=(layers.count - 1, 0)))
    same = torch.equal(rec.stages[(layers.count - 1, "block_in")],
                       layers.stages[(layers.count - 1, "block_in")])
    check("the zeroed layer gets the clean input (A12)", same)

    class DropColumn(ar.Recorder):
        """Zeroing v_j = dropping column j of every head's A without renormalising."""

        def __call__(self, layer, probs, v):
            if layer == self.zero[0]:
                probs = probs.clone()
                probs[:, :, self.zero[1]] = 0.0
            return probs, probs @ v

    last, j = layers.count - 1, len(layers.ids) - 1
    if last > 0:
        rec = ar.run_pass(model, layers.ids, D, DropColumn(zero=(0, j), stop_after=0))
        alt = ar.cosine_distance(layers.stages[(0, "block_out")], rec.stages[(0, "block_out")])
        check.close("layer 0: raw = the same with A's column dropped instead", raw[0, :, j], alt,
                    tol=1e-12)
    # The last layer compares the model's last hidden states, as inseq does (A12): the pass
    # runs to the end, through the final norm of pre-LN models.
    rec = ar.run_pass(model, layers.ids, D, DropColumn(zero=(last, j)))
    alt = ar.cosine_distance(layers.final, rec.final)
    check.close("last layer: raw = 1 - cos of the last hidden states, A's column dropped instead",
                raw[last, :, j], alt, tol=1e-12)
    out = layers.stages[(last, "block_out")]
    if model.post_ln:
        check("post-LN: the last hidden state is the last layer's output (no final norm)",
              torch.equal(layers.final, out))
    else:
        gap = (layers.final - out).abs().max().item()
        before = ar.cosine_distance(out, rec.stages[(last, "block_out")])
        moved = (before - raw[last, :, j]).abs().max().item()
        check("pre-LN: the last hidden state is the final norm's output, and it changes the "
              "last layer's scores", gap > 1e-3 and moved > 1e-9,
              f"state gap {gap:.1e}, score change {moved:.1e}")


def zero_value_layer(check, name, model, ids):
    """A key whose value is already 0 changes nothing: with W_V and b_V of layer 0 set to 0,
    every raw score of layer 0 is 0 and its rows stay all zero (A13)."""
    tensors = dict(model.tensors)
    hits = 0
    for key in list(tensors):
        t = tensors[key]
        if ".0.attention.self.value." in key or ".0.attention.v_lin." in key or \
                "layers.0.self_attn.v_proj." in key:
            tensors[key], hits = torch.zeros_like(t), hits + 1
        elif "h.0.attn.c_attn." in key:
            t = t.clone()
            t[..., 2 * t.shape[-1] // 3:] = 0  # q | k | v along the output dimension
            tensors[key], hits = t, hits + 1
    zeroed = copy.copy(model)
    zeroed.tensors = tensors
    layers = ar.Layers(zeroed, ids, D)
    raw = ar.value_zeroing_raw(layers)
    check(f"{name}: zero values in layer 0 -> raw 0 and rows 0 (A12, A13)",
          hits > 0 and raw[0].abs().max().item() == 0.0 and
          ar.value_zeroing_post(raw, model.allowed(len(ids)))[0].abs().max().item() == 0.0,
          f"{hits} tensors zeroed, max raw {raw[0].abs().max().item():.1e}")


def row_sums(check, exact, allowed):
    for key in ("rollout", "flow", "alti", "alti_layer"):
        check.close(f"{key} rows sum to 1", exact[key].sum(dim=-1),
                    torch.ones(exact[key].shape[:2], dtype=D), tol=1e-12)
    sums = exact["value_zeroing"].sum(dim=-1)
    check("value_zeroing rows sum to 1 or 0 (A13)",
          bool((((sums - 1).abs() <= 1e-12) | (sums == 0)).all()))
    for key in ("alti_layer", "value_zeroing"):
        outside = exact[key][:, ~allowed]
        check(f"{key} is 0 where the mask forbids", outside.numel() == 0 or
              outside.abs().max().item() == 0.0)
    if not bool(allowed.all()):
        # Not 0 outside a sliding window: layers compose, so R_l reaches further back.
        above = torch.ones_like(allowed).triu(1)
        check("causal: rollout, flow and alti are lower triangular",
              all(exact[k][:, above].abs().max().item() == 0.0
                  for k in ("rollout", "flow", "alti")))


def fixture_case(check, root, name, index):
    folder = os.path.join(root, name)
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        entry = next(e for e in json.load(f) if e["case"] == name)
    ids = entry["inputs"][index]
    model = ar.Model(folder)
    exact, gaps, scaled = ar.attribution(model, ids, list(ar.METHODS))
    layers = ar.Layers(model, ids, D)
    count, heads, n = exact["attention"].shape[:3]
    shapes = {"norm_head": (count, heads, n, n), "transformed_norm": (count, heads, n)}
    ok = all(tuple(v.shape) == shapes.get(k, (count, n, n)) for k, v in exact.items()
             if k not in ("attention", "alti_reconstruction_error"))
    check(f"shapes (L={count}, H={heads}, n={n}, {'post' if model.post_ln else 'pre'}-LN)", ok)
    check.close("norm_head = A * transformed_norm (A5)", exact["norm_head"],
                exact["attention"] * exact["transformed_norm"][:, :, None, :])
    check("norm_layer <= sum of the heads' norms (triangle inequality)",
          bool((exact["norm_layer"] <= exact["norm_head"].sum(dim=1) + 1e-12).all()))
    split_f_check(check, layers)
    eye = torch.eye(n, dtype=D).expand(count, heads, n, n)
    check.close("rollout of identity attention = identity", ar.rollout(eye)["rollout"],
                torch.eye(n, dtype=D).expand(count, n, n))
    allowed = model.allowed(n)
    row_sums(check, exact, allowed)
    flow_checks(check, exact)
    alti_checks(check, model, layers, exact)
    value_zeroing_checks(check, model, layers, exact, allowed)
    worst = max(g for k, g in gaps.items() if k not in scaled)
    check("every float32 share map within 1e-5 of float64 (A2)", worst <= 1e-5, f"{worst:.1e}")
    worst = max(scaled.values())
    check("float32 norm-based maps within 1e-5 x max(1, ||f||) of float64 (A2)", worst <= 1e-5,
          f"{worst:.1e}")
    return model, ids


def large_values_case(check, model, ids):
    """A2 on the GPT-2 whose f is 36 times larger (attribution_large_values.py, as the C++
    parity test's gpt2_f32_values_x6): the float32 norm-based maps miss an absolute 1e-5 but
    keep the scaled bound; the share maps are not affected."""
    check.case = "gpt2_f32 x6 values"
    big = copy.copy(model)
    big.tensors = large_values.scale_tensors(model.tensors, 6.0)
    exact, gaps, scaled = ar.attribution(big, ids, ["norm", "alti"])
    largest = exact["transformed_norm"].max().item()
    absolute = max(gaps[k] for k in scaled)
    check("||f|| reaches the hundreds and the float32 gap exceeds an absolute 1e-5",
          largest > 100 and absolute > 1e-5, f"||f|| {largest:.0f}, gap {absolute:.1e}")
    check("scaled gap within 1e-5 (A2)", max(scaled.values()) <= 1e-5,
          f"{max(scaled.values()):.1e}")
    check("ALTI's shares stay within an absolute 1e-5", max(gaps["alti"], gaps["alti_layer"]) <=
          1e-5, f"{max(gaps['alti'], gaps['alti_layer']):.1e}")


def cli_round_trip(check, root):
    check.case = "cli"
    folder = os.path.join(root, "gpt2_f32")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "attribution_reference.py")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.safetensors")
        run = subprocess.run([sys.executable, script, "--model", folder, "--ids", "1,2,3,4",
                              "--method", "rollout,alti", "--out", out],
                             capture_output=True, text=True, check=False)
        check("rollout,alti writes a file", run.returncode == 0, run.stderr.strip())
        if run.returncode == 0:
            tensors = st_io.load_file(out)
            _, meta, _ = st_io.read_header(out)
            check("only the chosen methods' maps", sorted(tensors) == sorted(
                ["input_ids", "attention", "rollout", "alti", "alti_layer",
                 "alti_reconstruction_error"]), str(sorted(tensors)))
            check("metadata names the methods and the LN kind",
                  meta.get("methods") == "rollout,alti" and meta.get("layer_norm") == "pre-LN")
        for args, words in ((["--method", "bogus"], "--method"),
                            (["--ids", ",".join(["1"] * 65), "--method", "flow"], "n = 65"),
                            (["--ids", "1,99999"], "vocabulary")):
            base = {"--ids": "1,2", "--method": "all"}
            base.update(dict(zip(args[::2], args[1::2])))
            cmd = [sys.executable, script, "--model", folder, "--out", out]
            for k, v in base.items():
                cmd += [k, v]
            run = subprocess.run(cmd, capture_output=True, text=True, check=False)
            check(f"refused: {' '.join(args)[:40]}", run.returncode != 0 and words in run.stderr,
                  run.stderr.strip()[-120:])


def run(root):
    start = time.monotonic()
    check = Checks()
    rollout_golden(check)
    flow_golden(check)
    norm_golden(check)
    alti_golden(check)
    value_zeroing_golden(check)
    seen = 0
    for name, index in CASES:
        if not selftest_checks.have_case(root, name):
            continue
        check.case = name
        seen += 1
        try:
            model, ids = fixture_case(check, root, name, index)
        except ar.AttributionError as e:
            check("the reference accepts the checkpoint", False, str(e))
            continue
        if name in ("bert_f32", "gpt2_f32", "llama_f32"):
            zero_value_layer(check, name, model, ids)
        if name == "gpt2_f32":
            large_values_case(check, model, ids)
    if seen:
        cli_round_trip(check, root)
    return selftest_checks.finish("attribution", check, seen, root,
                                  f", {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    selftest_checks.main(run, "attribution_selftest.py")
