#!/usr/bin/python3
"""Self-test of the issue-33 references (gemma_reference.py, modern_reference.py), so the C++ is
not checked against a wrong reading of Gemma 1/2/3, Qwen3, OLMo-2, Phi-3 or GPT-NeoX.

Usage: modern_selftest.py CHECKPOINTS_DIR     (make_checkpoints.py's checkpoints/ folder)

1. Every issue-33 reference file: a fresh pass gives it again; attention is the masked softmax of
   `logits` (causal, and the window i - W < j <= i on the layers recorded as local); masked cells
   are 0; raw_logits == logits where nothing caps, logits == tanh(raw / cap) * cap where Gemma 2
   caps, and the cap bites. Every what-if file (the manifest's "whatifs") is a fresh pass with
   its knobs on its input, and differs from the plain file.
2. Wrong readings: each case is run again the way a plausible misreading would run it (the cap
   after the mask, w instead of 1 + w, the window one key off, local and global RoPE swapped,
   the fused NeoX rows read contiguously, longrope's factors picked at the wrong length, ...);
   every one must move the attention by more than DIFFERS (ten times the C++ tolerance), so each
   case really exercises its feature. Longrope's switch must also leave the other inputs alone.
3. The what-if knobs: qk_norm off / unit, softcap None / a value, scale; neutral settings give
   the plain pass exactly, the others change it; bad values are refused.
4. The hooks of torch_reference.forward: an identity intervention (probs, probs @ v) gives the
   plain pass exactly, and observe sees block_in, attn_out and block_out of every layer.
5. unnormed_logits (q.k before any QK-norm): == raw_logits exactly with qk_norm "off", and with
   "model" on a model without QK-norm; with the model's QK-norm (Qwen3, Gemma 3, OLMo-2) and
   with "unit" they differ from raw_logits by more than UNNORMED_DIFFERS, and with the model's
   QK-norm layer 0's are the "off" pass's raw_logits (its input is the same there).
"""

import contextlib
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decoder_parts  # noqa: E402
import gemma_reference  # noqa: E402
import lm_heads  # noqa: E402
import modern_reference  # noqa: E402
import selftest_checks  # noqa: E402
import st_io  # noqa: E402
import torch_reference  # noqa: E402

DIFFERS = 1e-4  # a wrong reading must move some probability by more than 10x the C++ tolerance
UNNORMED_DIFFERS = 1e-3  # least max |unnormed_logits - raw_logits| where a QK-norm runs
HAS_QK_NORM = ("gemma3_text", "qwen3", "olmo2")


class Case:
    """One fixture checkpoint: manifest entry, config, tensors; runs the reference on all its
    inputs with an optional config / tensors / knobs override."""

    def __init__(self, root, entry):
        self.entry, self.folder = entry, os.path.join(root, entry["case"])
        with open(os.path.join(self.folder, "config.json"), encoding="utf-8") as f:
            self.cfg = json.load(f)
        self.tensors = st_io.load_checkpoint(self.folder)
        self.text = gemma_reference.text_config(self.cfg)

    def run(self, cfg=None, tensors=None, **knobs):
        """[(probs, logits, hidden, lm, record)] per input, float32."""
        cfg = cfg or self.cfg
        tensors = tensors or self.tensors
        fn, probe, prefixes = torch_reference.ARCHS[cfg["model_type"]]
        widened = {n: t.float() if t.is_floating_point() else t for n, t in tensors.items()}
        w = torch_reference.Weights(widened, torch.float32,
                                    torch_reference.detect_prefix(tensors, probe, prefixes))
        out = []
        with torch.no_grad():
            for ids in self.entry["inputs"]:
                record = {}
                probs, logits, hidden, _ = fn(cfg, w, torch.tensor(ids), record=record, **knobs)
                lm = lm_heads.prediction_logits(cfg, w, hidden, torch_reference.ACTIVATIONS)
                out.append((probs, logits, hidden, lm, record))
        return out

    def with_text(self, **keys):
        """A copy of the config with the text model's keys changed (text_config when nested)."""
        cfg = json.loads(json.dumps(self.cfg))
        (cfg["text_config"] if "text_config" in cfg else cfg).update(keys)
        return cfg

    def mapped(self, fn):
        """A copy of the tensors with fn(name, tensor) -> tensor (or None to keep it) applied."""
        out = {}
        for n, t in self.tensors.items():
            changed = fn(n, t)
            out[n] = t if changed is None else changed
        return out


def prob_gaps(a, b, what=0):
    """Max |difference| per input of output `what` (0 probs, 2 hidden, 3 LM logits)."""
    return [(x[what] - y[what]).abs().max().item() for x, y in zip(a, b)]


@contextlib.contextmanager
def patched(owner, name, value):
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


def check_files(check, c, plain):
    """Section 1 on one case; `plain` is a fresh default run."""
    cap = c.text.get("attn_logit_softcapping") if c.text["model_type"] == "gemma2" else None
    window = c.text.get("sliding_window")
    bit = 0.0
    for k, (ids, name) in enumerate(zip(c.entry["inputs"], c.entry["references"])):
        ref = st_io.load_file(os.path.join(c.folder, name))
        probs, logits, hidden, lm, record = plain[k]
        n = len(ids)
        check(f"input {k} (n={n}): file = fresh pass", same_as_file(ref, plain[k]))
        raw = ref["raw_logits"]
        shape = (c.entry["num_layers"], c.entry["num_heads"], n, n)
        check(f"input {k}: raw_logits shape {shape}", tuple(raw.shape) == shape
              and tuple(ref["attention"].shape) == shape)
        if cap is None:
            check(f"input {k}: logits == raw_logits (no cap)",
                  torch.equal(ref["logits"], raw))
        else:
            want = torch.tanh(raw.double() / cap) * cap
            check(f"input {k}: logits == tanh(raw / {cap}) * {cap}",
                  (ref["logits"].double() - want).abs().max().item() <= 1e-6)
            bit = max(bit, (raw - ref["logits"]).abs().max().item())
        worst = 0.0
        for layer, kind in enumerate(record["layer_kinds"]):
            allowed = decoder_parts.sliding_causal_mask(n, window if kind == "local" else None)
            want = torch.softmax(ref["logits"][layer].double().masked_fill(~allowed, -math.inf),
                                 -1)
            worst = max(worst, (ref["attention"][layer].double() - want).abs().max().item())
            if (ref["attention"][layer][:, ~allowed] != 0).any():
                worst = math.inf
        check(f"input {k}: attention = masked softmax(logits), masked cells 0", worst <= 1e-6,
              f"{worst:.1e}")
    if cap is not None:
        check(f"the cap {cap} bites (max |raw - capped| = {bit:.2f})", bit > 0.5)
    for item in c.entry.get("whatifs", []):
        ref = st_io.load_file(os.path.join(c.folder, item["file"]))
        k = item["input"]
        fresh = c.run(**torch_reference.whatif_knobs(item))[k]
        moved = (ref["attention"] - plain[k][0]).abs().max().item()
        check(f"what-if {item['tag']}: file = fresh pass on input {k}, differs from plain",
              same_as_file(ref, fresh) and torch.equal(ref["input_ids"],
                                                       torch.tensor(c.entry["inputs"][k]))
              and moved > DIFFERS, f"max |dp| {moved:.1e}")


def same_as_file(ref, ran):
    """Whether a reference (or what-if) file holds what `ran` (one of Case.run's) computed."""
    probs, logits, hidden, lm, record = ran
    pairs = [("attention", probs), ("logits", logits), ("hidden", hidden),
             ("raw_logits", record["raw_logits"]),
             ("unnormed_logits", record["unnormed_logits"])]
    if lm is not None:
        pairs.append(("lm_logits", lm))
    return set(ref) == {name for name, _ in pairs} | {"input_ids", "position_ids"} and all(
        (ref[key] - val).abs().max().item() <= 1e-7 for key, val in pairs)


def differs(check, c, plain, label, run, only=None, what=0):
    """`run` (a list like Case.run's) must differ from `plain` by more than DIFFERS in the
    attention (what=0; 2: the final hidden state); with `only` (input indices), exactly there,
    and the other inputs must be bit-identical."""
    gaps = prob_gaps(run, plain, what)
    detail = ("max |dp| " if what == 0 else "max |dh| ") + ", ".join(f"{g:.1e}" for g in gaps)
    if only is None:
        check(f"wrong reading differs: {label}", max(gaps) > DIFFERS, detail)
        return
    ok = all((g > DIFFERS) if k in only else (g == 0.0) for k, g in enumerate(gaps))
    check(f"wrong reading differs on inputs {only} only: {label}", ok, detail)


def norms_minus_one(name, t):
    """Gemma's (1 + w) read as plain w: a plain-w reader of weight w equals the (1 + w) reference
    run on w - 1."""
    return t - 1.0 if name.endswith("norm.weight") and "vision" not in name \
        and "multi_modal" not in name else None


def qk_norms_plus_one(name, t):
    """Qwen3's plain w read as (1 + w)."""
    return t + 1.0 if name.endswith(("q_norm.weight", "k_norm.weight")) else None


def layer_types(kinds):
    return ["sliding_attention" if k == "local" else "full_attention" for k in kinds]


def attend_variant(cap_where):
    """Pass.attend with the soft-cap misplaced: "after_mask" (tanh of the masked scores, so
    masked keys get -cap, not -inf) or "unscaled" (tanh(q.k / cap) * cap, then the scale)."""
    def attend(self, layer, q, k, v, allowed, scale, cap=None, kind="global"):
        group = q.shape[0] // k.shape[0]
        k, v = k.repeat_interleave(group, dim=0), v.repeat_interleave(group, dim=0)
        dots = q @ k.transpose(1, 2)
        if cap_where == "after_mask":
            s = (dots * scale).masked_fill(~allowed, -math.inf)
            s = torch.tanh(s / cap) * cap
        else:
            s = (torch.tanh(dots / cap) * cap * scale).masked_fill(~allowed, -math.inf)
        probs = torch.softmax(s, -1)
        self.probs.append(probs)
        self.logits.append(s)
        self.raw.append(s)
        self.unnormed.append(s)
        self.kinds.append(kind)
        return (probs @ v).transpose(0, 1).reshape(self.n, -1)
    return attend


def swapped_rope(original):
    def by_kind(*args):
        tables = original(*args)
        return {"global": tables["local"], "local": tables["global"]}
    return by_kind


def per_head_norm(heads_of):
    """OLMo-2's whole-projection QK-norm misread as per head (over head_dim)."""
    def norm(t, weight, eps):
        count = heads_of(t.shape[-1])
        parts = t.reshape(t.shape[0], count, -1)
        return decoder_parts.rms_norm(parts, weight.reshape(count, -1), eps).reshape(t.shape)
    return norm


def neox_contiguous(heads):
    """query_key_value misread as all q rows, then all k, then all v: the per-head reference run
    on rows rearranged so that it sees what that reader would."""
    def fn(name, t):
        if "query_key_value" not in name:
            return None
        d = t.shape[0] // (3 * heads)
        blocks = t.reshape(3, heads, d, *t.shape[1:])  # [q|k|v as the misreader takes them]
        return blocks.transpose(0, 1).reshape(t.shape)
    return fn


def phi3_swap_blocks(c):
    """gate_up_proj's halves swapped (up first), and qkv_proj's k and v blocks swapped."""
    heads, kv = c.cfg["num_attention_heads"], c.cfg["num_key_value_heads"]
    d, f = c.cfg["hidden_size"] // heads, c.cfg["intermediate_size"]

    def gate_up(name, t):
        return torch.cat((t[f:], t[:f])) if "gate_up_proj" in name else None

    def k_v(name, t):
        if "qkv_proj" not in name:
            return None
        q, k, v = t.split([heads * d, kv * d, kv * d])
        return torch.cat((q, v, k))
    return gate_up, k_v


def wrong_gemma(check, c, plain):
    """Gemma 1/2/3 (text and multimodal) misreadings."""
    t, mt = c.text, c.text["model_type"]
    differs(check, c, plain, "norms as w, not 1 + w", c.run(tensors=c.mapped(norms_minus_one)))
    root = math.sqrt(t["hidden_size"])
    differs(check, c, plain, "no sqrt(hidden) embedding normaliser", c.run(tensors=c.mapped(
        lambda n, x: x / root if n.endswith("embed_tokens.weight") else None)))
    if mt == "gemma":
        differs(check, c, plain, "scale from hidden / heads, not head_dim",
                c.run(scale=(t["hidden_size"] // t["num_attention_heads"]) ** -0.5))
        # Small in the maps (|dp| ~ 7e-5 through one MLP), plain in the hidden state.
        differs(check, c, plain, "exact erf GELU, not tanh (hidden state)", c.run(c.with_text(
            hidden_act="gelu")), what=2)
        return
    differs(check, c, plain, "scale head_dim^-0.5, not query_pre_attn_scalar^-0.5",
            c.run(scale=t["head_dim"] ** -0.5))
    kinds = decoder_parts.layer_kinds(t)
    W = t["sliding_window"]
    for width in (W - 1, W + 1):
        differs(check, c, plain, f"window {width}, not {W}", c.run(c.with_text(
            sliding_window=width)))
    flipped = ["global" if k == "local" else "local" for k in kinds]
    differs(check, c, plain, f"layer kinds {flipped}, not {kinds}", c.run(c.with_text(
        layer_types=layer_types(flipped))))
    if mt == "gemma2":
        wrong_gemma2(check, c, plain)
    else:
        wrong_gemma3(check, c, plain, kinds)


def wrong_gemma2(check, c, plain):
    cap = c.text["attn_logit_softcapping"]
    for where in ("after_mask", "unscaled"):
        with patched(decoder_parts.Pass, "attend", attend_variant(where)):
            differs(check, c, plain, f"soft-cap {where.replace('_', ' ')}", c.run())
    differs(check, c, plain, "no attention soft-cap", c.run(softcap=None))
    final = c.text["final_logit_softcapping"]
    bare = c.run(c.with_text(final_logit_softcapping=None))
    gap = max((a[3] - b[3]).abs().max().item() for a, b in zip(bare, plain))
    inside = max(p[3].abs().max().item() for p in plain)
    check(f"final soft-cap {final} bites (max |dlm| {gap:.2f}, max |lm| {inside:.2f})",
          gap > 0.1 and inside < final)
    check(f"attention cap {cap} is below the raw scores' reach", max(
        p[4]["raw_logits"].abs().max().item() for p in plain) > cap)


def wrong_gemma3(check, c, plain, kinds):
    t = c.text
    differs(check, c, plain, "no QK-norm", c.run(qk_norm="off"))
    differs(check, c, plain, "QK-norm as w, not 1 + w", c.run(tensors=c.mapped(
        lambda n, x: x - 1.0 if n.endswith(("q_norm.weight", "k_norm.weight")) else None)))
    with patched(gemma_reference, "_rope_by_kind", swapped_rope(gemma_reference._rope_by_kind)):
        differs(check, c, plain, "local and global RoPE swapped", c.run())
    differs(check, c, plain, "local layers at rope_theta, not rope_local_base_freq",
            c.run(c.with_text(rope_local_base_freq=t["rope_theta"])))
    if t.get("rope_scaling"):
        differs(check, c, plain, "global layers without their rope_scaling",
                c.run(c.with_text(rope_scaling=None)))
    if "text_config" in c.cfg:
        differs(check, c, plain, "layer_types ignored (sliding_window_pattern 6)",
                c.run(c.with_text(layer_types=None)))
        differs(check, c, plain, "rope_theta 10000, not Gemma3TextConfig's 1e6 default",
                c.run(c.with_text(rope_theta=10000.0)))
        check("vision tower and projector tensors are in the file", any(
            n.startswith(("model.vision_tower.", "model.multi_modal_projector."))
            for n in c.tensors))
    else:
        pattern = t["sliding_window_pattern"]
        off = ["global" if i % pattern == 0 else "local" for i in range(len(kinds))]
        differs(check, c, plain, f"pattern read as i % {pattern} == 0 global",
                c.run(c.with_text(layer_types=layer_types(off))))


def wrong_qwen3(check, c, plain):
    differs(check, c, plain, "no QK-norm", c.run(qk_norm="off"))
    differs(check, c, plain, "QK-norm as 1 + w, not w", c.run(tensors=c.mapped(
        qk_norms_plus_one)))
    count = c.cfg["num_hidden_layers"]
    local = decoder_parts.sliding_layers(c.cfg)
    if not local:
        return
    W = c.cfg["sliding_window"]
    for width in (W - 1, W + 1):
        differs(check, c, plain, f"window {width}, not {W}", c.run(dict(
            c.cfg, sliding_window=width)))
    for label, chosen in (("window on every layer", range(count)),
                          ("window below max_window_layers", [i for i in range(count)
                                                              if i not in local]),
                          ("no window", [])):
        types = ["sliding_attention" if i in chosen else "full_attention" for i in range(count)]
        differs(check, c, plain, label, c.run(dict(c.cfg, layer_types=types)))


def wrong_olmo2(check, c, plain):
    heads, kv = c.cfg["num_attention_heads"], c.cfg["num_key_value_heads"]
    d = c.cfg["hidden_size"] // heads
    with patched(modern_reference, "whole_projection_norm",
                 per_head_norm(lambda width: width // d)):
        differs(check, c, plain, f"QK-norm per head, not over {heads}x{d} / {kv}x{d}", c.run())
    differs(check, c, plain, "no QK-norm", c.run(qk_norm="off"))


def wrong_phi3(check, c, plain):
    gate_up, k_v = phi3_swap_blocks(c)
    differs(check, c, plain, "gate_up_proj read up first", c.run(tensors=c.mapped(gate_up)))
    differs(check, c, plain, "qkv_proj read q, v, k", c.run(tensors=c.mapped(k_v)))
    original = c.cfg["original_max_position_embeddings"]
    lengths = [len(ids) for ids in c.entry["inputs"]]
    longer = [k for k, n in enumerate(lengths) if n > original]
    at = [k for k, n in enumerate(lengths) if n == original]
    real = decoder_parts.longrope_frequencies

    def at_length(rule):
        def fn(cfg, d_rot, n):
            return real(cfg, d_rot, original + 1 if rule(n) else original)
        return fn
    with patched(decoder_parts, "longrope_frequencies", at_length(lambda n: False)):
        differs(check, c, plain, "short factors past original_max", c.run(), only=longer)
    with patched(decoder_parts, "longrope_frequencies", at_length(lambda n: n >= original)):
        differs(check, c, plain, f"long factors at n = {original}", c.run(), only=at)
    with patched(decoder_parts, "longrope_frequencies",
                 lambda *a: (real(*a)[0], 1.0, real(*a)[2])):
        differs(check, c, plain, "no longrope attention factor", c.run())
    W = c.cfg["sliding_window"]
    for width in (W - 1, W + 1, None):
        differs(check, c, plain, f"window {width}, not {W}", c.run(dict(
            c.cfg, sliding_window=width)))
    check("inputs within and past original_max_position_embeddings", bool(longer) and any(
        n <= original for n in lengths), f"lengths {lengths}, original {original}")


def wrong_neox(check, c, plain):
    heads = c.cfg["num_attention_heads"]
    differs(check, c, plain, "query_key_value read as [all q | all k | all v]",
            c.run(tensors=c.mapped(neox_contiguous(heads))))
    parallel = c.cfg["use_parallel_residual"]
    differs(check, c, plain, f"use_parallel_residual {not parallel}",
            c.run(dict(c.cfg, use_parallel_residual=not parallel)))
    differs(check, c, plain, f"rotary on every feature, not rotary_pct {c.cfg['rotary_pct']}",
            c.run(dict(c.cfg, rotary_pct=1.0)))
    tied = c.run(dict(c.cfg, tie_word_embeddings=True),
                 tensors={n: t for n, t in c.tensors.items() if n != "embed_out.weight"})
    gap = max((a[3] - b[3]).abs().max().item() for a, b in zip(tied, plain))
    check(f"embed_out is its own head, not embed_in (max |dlm| {gap:.2f})", gap > 0.1)


WRONG = {"gemma": wrong_gemma, "gemma2": wrong_gemma, "gemma3_text": wrong_gemma,
         "gemma3": wrong_gemma, "qwen3": wrong_qwen3, "olmo2": wrong_olmo2,
         "phi3": wrong_phi3, "gpt_neox": wrong_neox}


def check_knobs(check, c, plain):
    """Section 3: neutral knob settings reproduce the plain pass exactly; the others move it."""
    mt = c.text["model_type"]
    has_qk_norm = mt in HAS_QK_NORM
    same = prob_gaps(c.run(qk_norm="off"), plain)
    check("qk_norm off " + ("changes the maps" if has_qk_norm else "= plain (no QK-norm)"),
          max(same) > DIFFERS if has_qk_norm else max(same) == 0.0)
    unit = c.run(qk_norm="unit")
    check("qk_norm unit changes the maps", max(prob_gaps(unit, plain)) > DIFFERS)
    if has_qk_norm:
        check("qk_norm unit differs from off",
              max(prob_gaps(unit, c.run(qk_norm="off"))) > DIFFERS)
    capped = mt == "gemma2"
    bare = c.run(softcap=None)
    check("softcap None " + ("changes the maps" if capped else "= plain (no cap)"),
          max(prob_gaps(bare, plain)) > DIFFERS if capped else max(prob_gaps(bare, plain)) == 0)
    check("softcap None: logits == raw_logits", all(
        torch.equal(b[1], b[4]["raw_logits"]) for b in bare))
    at2 = c.run(softcap=2.0)
    check("softcap 2.0: |logits| <= 2 and maps change", all(
        a[1].abs().max().item() <= 2.0 for a in at2) and max(prob_gaps(at2, plain)) > DIFFERS)
    scaled = c.run(scale=0.05)
    ratio = max((s[4]["raw_logits"][0] / 0.05 - p[4]["raw_logits"][0] / own).abs().max().item()
                for s, p, own in zip(scaled, plain, [first_scale(c)] * len(plain)))
    check(f"scale 0.05 changes the maps; layer 0 raw_logits / scale unchanged ({ratio:.1e})",
          max(prob_gaps(scaled, plain)) > DIFFERS and ratio < 1e-3)
    check("scale = the model's own scale = plain", max(prob_gaps(
        c.run(scale=first_scale(c)), plain)) == 0.0)
    for bad in (dict(qk_norm="on"), dict(softcap=-1.0), dict(softcap="none"),
                dict(scale="x")):
        try:
            c.run(**bad)
            refused = False
        except ValueError:
            refused = True
        check(f"refuses {bad}", refused)


def check_hooks(check, c, plain):
    """Section 4 (ablation_reference / attribution_reference drive the forwards this way)."""
    seen = []
    ran = c.run(interventions=lambda layer, probs, v: (probs, probs @ v),
                observe=lambda layer, stage, x: seen.append((layer, stage)))
    check("identity intervention = plain pass", all(
        torch.equal(a[0], b[0]) and torch.equal(a[2], b[2]) for a, b in zip(ran, plain)))
    want = [(layer, stage) for layer in range(c.text["num_hidden_layers"])
            for stage in ("block_in", "attn_out", "block_out")] * len(plain)
    check("observe: block_in, attn_out, block_out per layer", seen == want)


def unnormed_gaps(ran, layer=None):
    """Max |unnormed_logits - raw_logits| per input (of one layer, or all)."""
    pick = slice(None) if layer is None else layer
    return [(r[4]["unnormed_logits"][pick] - r[4]["raw_logits"][pick]).abs().max().item()
            for r in ran]


def check_unnormed(check, c, plain):
    """Section 5."""
    has_qk_norm = c.text["model_type"] in HAS_QK_NORM
    off = c.run(qk_norm="off")
    check("qk_norm off: unnormed_logits == raw_logits", all(
        torch.equal(r[4]["unnormed_logits"], r[4]["raw_logits"]) for r in off))
    shape_ok = all(r[4]["unnormed_logits"].shape == r[4]["raw_logits"].shape for r in plain)
    if has_qk_norm:
        gap = max(unnormed_gaps(plain))
        check(f"model QK-norm: unnormed_logits differ from raw_logits (max {gap:.2e})",
              shape_ok and gap > UNNORMED_DIFFERS)
        first = max((p[4]["unnormed_logits"][0] - o[4]["raw_logits"][0]).abs().max().item()
                    for p, o in zip(plain, off))
        check(f"model QK-norm: layer 0 unnormed_logits = qk_norm off's raw_logits ({first:.1e})",
              first <= 1e-6)
    else:
        check("no QK-norm: unnormed_logits == raw_logits", shape_ok and all(
            torch.equal(p[4]["unnormed_logits"], p[4]["raw_logits"]) for p in plain))
    unit = c.run(qk_norm="unit")
    gap = max(unnormed_gaps(unit))
    first = max((u[4]["unnormed_logits"][0] - p[4]["unnormed_logits"][0]).abs().max().item()
                for u, p in zip(unit, plain))
    check(f"qk_norm unit: unnormed_logits differ from raw_logits (max {gap:.2e}); layer 0's "
          f"are the plain pass's ({first:.1e})", gap > UNNORMED_DIFFERS and first <= 1e-6)


def first_scale(c):
    """The scale every layer of the case uses (the same for all layers of these models)."""
    t = c.text
    if t["model_type"] in ("gemma2", "gemma3_text"):
        return t["query_pre_attn_scalar"] ** -0.5
    heads = t["num_attention_heads"]
    return (t.get("head_dim") or t["hidden_size"] // heads) ** -0.5


def run(root):
    check = selftest_checks.Checks()
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    seen = 0
    for entry in manifest:
        if entry["model_type"] not in WRONG:
            continue
        seen += 1
        check.case = entry["case"]
        print(f"{entry['case']}:")
        c = Case(root, entry)
        plain = c.run()
        check_files(check, c, plain)
        WRONG[entry["model_type"]](check, c, plain)
        check_knobs(check, c, plain)
        check_hooks(check, c, plain)
        check_unnormed(check, c, plain)
    return selftest_checks.finish("issue-33 reference", check, seen, root, "")


if __name__ == "__main__":
    selftest_checks.main(run, "modern_selftest.py")
