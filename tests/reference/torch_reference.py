#!/usr/bin/python3
"""Independent PyTorch forward passes for BERT, RoBERTa, DistilBERT, GPT-2 and Llama-family
checkpoints (the Llama family is in llama_reference.py; Gemma 1/2/3 in gemma_reference.py;
Qwen3, OLMo-2, Phi-3 and GPT-NeoX in modern_reference.py).

Usage: torch_reference.py --dir DIR        (DIR holds checkpoints/manifest.json)

Written from the architectures' definitions with torch.nn.functional only, not from Hugging
Face code (transformers is not installed, and sharing code with the thing we check would hide
its bugs). For each input listed in the manifest it writes reference_<k>.safetensors beside the
checkpoint with:
    input_ids     I64 [n]
    position_ids  I64 [n]                       positions used (RoBERTa's skip pads)
    attention     F32 [layers, heads, n, n]     softmax probabilities, row = query, col = key
    logits        F32 [layers, heads, n, n]     q.k * scale BEFORE masking (GPT-2's upper
                                                triangle keeps the real scaled values)
    hidden        F32 [n, hidden]               last layer output (GPT-2: after ln_f)
    raw_logits    F32 [layers, heads, n, n]     issue-33 architectures only (RAW_LOGITS_ARCHS):
                                                q.k * scale before any soft-cap; `logits` is
                                                what the softmax sees before the mask, so for
                                                Gemma 2 it is the soft-capped one
    unnormed_logits F32 [layers, heads, n, n]   RAW_LOGITS_ARCHS only: as raw_logits, but from
                                                q and k before any QK-norm (same heads, RoPE,
                                                GQA repeat and scale, never capped; see
                                                decoder_parts.py); == raw_logits where no
                                                QK-norm runs
    lm_logits     F32 [n, vocab]                prediction head output, when the checkpoint
                                                has one (MLM head or causal LM head)
The pass runs in float32, like the C++, and again in float64; the float32 probabilities must be
within FP64_AGREEMENT of the float64 ones, or the reference itself is too noisy to test 1e-5.

What-if files: a manifest entry's optional "whatifs" list (make_checkpoints.py) names passes
with the knobs of decoder_parts.py changed, each
    {"tag": T, "file": "whatif_<T>.safetensors", "input": k, "qk_norm": "model"|"off"|"unit",
     "softcap": "model" | null | number, "scale": null | number}
and for each this writes whatif_<T>.safetensors beside the reference files: the same tensors as
reference_<k>.safetensors, from a pass on input k with those knobs (float32, checked against
float64 the same way), with metadata case, tag, qk_norm, softcap and scale as strings (null for
null, numbers as Python writes them), input (k), and model_type, mask, compute_dtype and
max_abs_diff_vs_float64 as in the reference files. A what-if must move some probability of
the plain pass of its input by more than WHATIF_CHANGES, or the run fails: one that changes
nothing tests nothing.
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gemma_reference  # noqa: E402
import llama_reference  # noqa: E402
import lm_heads  # noqa: E402
import modern_reference  # noqa: E402
import reference_main  # noqa: E402
import st_io  # noqa: E402

# The C++ must match to 1e-5; a reference whose own float32 rounding error is ten times smaller
# leaves room for a different (but correct) summation order.
FP64_AGREEMENT = 1e-6
# The least max |probability change| a what-if file must show against the plain pass.
WHATIF_CHANGES = 1e-4

ACTIVATIONS = {
    "gelu": F.gelu,  # exact erf form
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}


class Weights:
    """The checkpoint's tensors widened to one float dtype, looked up under a detected prefix."""

    def __init__(self, tensors, dtype, prefix):
        self.tensors, self.dtype, self.prefix = tensors, dtype, prefix

    def __call__(self, name):
        return self.tensors[self.prefix + name].to(self.dtype)


def detect_prefix(tensors, probe, candidates):
    """Checkpoint prefix ("bert.", "transformer.", "") found by looking for a known tensor."""
    for p in candidates:
        if p + probe in tensors:
            return p
    raise KeyError(f"no {probe} under any of the prefixes {candidates}")


# The patch hook that changes nothing (see forward); in llama_reference.py, which every forward
# module imports.
no_patch = llama_reference.no_patch


def multi_head_attention(q, k, v, heads, causal, interventions=None, layer=0, patch=no_patch):
    """Split [n, hidden] projections into heads; return (context [n, hidden], probs, logits).

    logits = q.k^T * (1/sqrt(head_dim)) before masking; forbidden cells get -inf, then softmax
    over keys. Causal here is the square top-left mask: query i sees keys j <= i.
    interventions: None, or ablation_reference's callable (layer, probs [H,n,n], v [H,n,d]) ->
    (probs to record, per-head context [H,n,d]); it replaces probs @ v (head ablation, issue 17).
    patch: see forward (sites q, k, v and z here).
    """
    n, hidden = q.shape
    d = hidden // heads
    qh, kh, vh = (patch(layer, site, t.reshape(n, heads, d).transpose(0, 1))
                  for site, t in (("q", q), ("k", k), ("v", v)))
    logits = (qh @ kh.transpose(1, 2)) * (1.0 / math.sqrt(d))
    masked = logits
    if causal:
        allowed = torch.ones(n, n, dtype=torch.bool).tril()
        masked = logits.masked_fill(~allowed, float("-inf"))
    probs = torch.softmax(masked, dim=-1)
    if interventions is None:
        context = probs @ vh
    else:
        probs, context = interventions(layer, probs, vh)
    context = patch(layer, "z", context).transpose(0, 1).reshape(n, hidden)
    return context, probs, logits


def roberta_position_ids(ids, pad):
    """HF create_position_ids_from_input_ids: pad + cumulative count of non-pad tokens; pads
    themselves get position pad."""
    mask = (ids != pad).long()
    return torch.cumsum(mask, dim=0) * mask + pad


# Role -> per-layer tensor name (without ".weight"/".bias") of the two post-norm encoders.
BERT_LAYER = dict(q="attention.self.query", k="attention.self.key", v="attention.self.value",
                  o="attention.output.dense", ln1="attention.output.LayerNorm",
                  ff1="intermediate.dense", ff2="output.dense", ln2="output.LayerNorm")
DISTILBERT_LAYER = dict(q="attention.q_lin", k="attention.k_lin", v="attention.v_lin",
                        o="attention.out_lin", ln1="sa_layer_norm", ff1="ffn.lin1",
                        ff2="ffn.lin2", ln2="output_layer_norm")


def post_norm_encoder(x, w, layer_names, shape, eps, act, interventions=None, observe=None,
                      patch=no_patch):
    """Post-norm layers x = LN(x + attn(x)); x = LN(x + ffn(x)), bidirectional, no mask.
    layer_names: list of (layer prefix, role table); shape: (heads, hidden).
    observe: None, or attribution_reference's callable (layer, stage, tensor [n, hidden]) that
    records block_in, attn_pre_norm (x + attn(x)), attn_out (after LN1) and block_out.
    patch: see forward; attn_out and mlp_out are the dense outputs before the residual add and
    its LayerNorm."""
    observe = observe or (lambda *_: None)
    heads, hidden = shape
    probs_all, logits_all = [], []
    for layer, (p, names) in enumerate(layer_names):

        def lin(role, t, p=p, names=names):
            return F.linear(t, w(p + names[role] + ".weight"), w(p + names[role] + ".bias"))

        def ln(role, t, p=p, names=names):
            return F.layer_norm(t, (hidden,), w(p + names[role] + ".weight"),
                                w(p + names[role] + ".bias"), eps)

        x = patch(layer, "resid_pre", x)
        observe(layer, "block_in", x)
        ctx, probs, logits = multi_head_attention(lin("q", x), lin("k", x), lin("v", x), heads,
                                                  False, interventions, layer, patch)
        x = x + patch(layer, "attn_out", lin("o", ctx))
        observe(layer, "attn_pre_norm", x)
        x = ln("ln1", x)
        observe(layer, "attn_out", x)
        x = ln("ln2", x + patch(layer, "mlp_out", lin("ff2", act(lin("ff1", x)))))
        observe(layer, "block_out", x)
        probs_all.append(probs)
        logits_all.append(logits)
    return torch.stack(probs_all), torch.stack(logits_all), x


def embeddings_layer_norm(x, w, hidden, eps):
    return F.layer_norm(x, (hidden,), w("embeddings.LayerNorm.weight"),
                        w("embeddings.LayerNorm.bias"), eps)


def bert_family(cfg, w, ids, interventions=None, observe=None, patch=no_patch):
    """BERT and RoBERTa: embeddings = word + token type 0 + position, then LayerNorm, then the
    post-norm encoder. RoBERTa differs only in its position ids."""
    eps, act = cfg["layer_norm_eps"], ACTIVATIONS[cfg["hidden_act"]]
    heads, hidden = cfg["num_attention_heads"], cfg["hidden_size"]
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise NotImplementedError(cfg["position_embedding_type"])
    if cfg["model_type"] == "roberta":
        pos = roberta_position_ids(ids, cfg["pad_token_id"])
    else:
        pos = torch.arange(len(ids))
    x = (w("embeddings.word_embeddings.weight")[ids]
         + w("embeddings.token_type_embeddings.weight")[torch.zeros_like(ids)]
         + w("embeddings.position_embeddings.weight")[pos])
    x = embeddings_layer_norm(x, w, hidden, eps)
    layers = [(f"encoder.layer.{i}.", BERT_LAYER) for i in range(cfg["num_hidden_layers"])]
    return (*post_norm_encoder(x, w, layers, (heads, hidden), eps, act, interventions, observe,
                               patch), pos)


def distilbert(cfg, w, ids, interventions=None, observe=None, patch=no_patch):
    """DistilBERT: word + position embeddings (no token types), LayerNorm with eps fixed at
    1e-12 (HF hard-codes it; there is no config key), then the post-norm encoder."""
    eps, act = 1e-12, ACTIVATIONS[cfg["activation"]]
    heads, hidden = cfg["n_heads"], cfg["dim"]
    if cfg.get("sinusoidal_pos_embds"):
        raise NotImplementedError("sinusoidal_pos_embds")
    pos = torch.arange(len(ids))
    x = (w("embeddings.word_embeddings.weight")[ids]
         + w("embeddings.position_embeddings.weight")[pos])
    x = embeddings_layer_norm(x, w, hidden, eps)
    layers = [(f"transformer.layer.{i}.", DISTILBERT_LAYER) for i in range(cfg["n_layers"])]
    return (*post_norm_encoder(x, w, layers, (heads, hidden), eps, act, interventions, observe,
                               patch), pos)


def gpt2(cfg, w, ids, interventions=None, observe=None, patch=no_patch):
    """GPT-2: pre-norm blocks x += attn(LN1(x)); x += mlp(LN2(x)), causal, ln_f at the end.
    Conv1D weights are [in, out], so y = x @ W + b; c_attn's output is q | k | v.
    observe: see post_norm_encoder; attn_out is x + attn(LN1(x)) (there is no attn_pre_norm)."""
    observe = observe or (lambda *_: None)
    if cfg.get("scale_attn_by_inverse_layer_idx") or cfg.get("reorder_and_upcast_attn"):
        raise NotImplementedError("scale_attn_by_inverse_layer_idx / reorder_and_upcast_attn")
    if not cfg.get("scale_attn_weights", True):
        raise NotImplementedError("scale_attn_weights=false")
    eps, act = cfg["layer_norm_epsilon"], ACTIVATIONS[cfg["activation_function"]]
    heads, hidden = cfg["n_head"], cfg["n_embd"]
    pos = torch.arange(len(ids))
    x = w("wte.weight")[ids] + w("wpe.weight")[pos]
    probs_all, logits_all = [], []
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."

        def conv1d(name, t, p=p):
            return torch.addmm(w(p + name + ".bias"), t, w(p + name + ".weight"))

        def ln(name, t, p=p):
            return F.layer_norm(t, (hidden,), w(p + name + ".weight"), w(p + name + ".bias"), eps)

        x = patch(i, "resid_pre", x)
        observe(i, "block_in", x)
        q, k, v = conv1d("attn.c_attn", ln("ln_1", x)).split(hidden, dim=1)
        ctx, probs, logits = multi_head_attention(q, k, v, heads, True, interventions, i, patch)
        x = x + patch(i, "attn_out", conv1d("attn.c_proj", ctx))
        observe(i, "attn_out", x)
        mlp = conv1d("mlp.c_proj", act(conv1d("mlp.c_fc", ln("ln_2", x))))
        x = x + patch(i, "mlp_out", mlp)
        observe(i, "block_out", x)
        probs_all.append(probs)
        logits_all.append(logits)
    x = F.layer_norm(x, (hidden,), w("ln_f.weight"), w("ln_f.bias"), eps)
    return torch.stack(probs_all), torch.stack(logits_all), x, pos


# model_type -> (forward function, probe tensor for prefix detection, candidate prefixes)
ARCHS = {
    "bert": (bert_family, "embeddings.word_embeddings.weight", ["bert.", ""]),
    "roberta": (bert_family, "embeddings.word_embeddings.weight", ["roberta.", ""]),
    "distilbert": (distilbert, "embeddings.word_embeddings.weight", ["distilbert.", ""]),
    "gpt2": (gpt2, "wte.weight", ["transformer.", ""]),
    "llama": (llama_reference.llama, "embed_tokens.weight", ["model.", ""]),
    "mistral": (llama_reference.llama, "embed_tokens.weight", ["model.", ""]),
    "qwen2": (llama_reference.llama, "embed_tokens.weight", ["model.", ""]),
    # Issue 33 (gemma_reference.py, modern_reference.py): forwards that also take the what-if
    # knobs qk_norm / softcap / scale and a `record` dict (see decoder_parts.py).
    "gemma": (gemma_reference.gemma, "embed_tokens.weight", ["model.", ""]),
    "gemma2": (gemma_reference.gemma, "embed_tokens.weight", ["model.", ""]),
    "gemma3_text": (gemma_reference.gemma, "embed_tokens.weight", ["model.", ""]),
    "gemma3": (gemma_reference.gemma3_multimodal, "embed_tokens.weight",
               ["model.language_model.", "language_model.model.", ""]),
    "qwen3": (modern_reference.qwen3, "embed_tokens.weight", ["model.", ""]),
    "olmo2": (modern_reference.olmo2, "embed_tokens.weight", ["model.", ""]),
    "phi3": (modern_reference.phi3, "embed_tokens.weight", ["model.", ""]),
    "gpt_neox": (modern_reference.gpt_neox, "embed_in.weight", ["gpt_neox.", ""]),
}
# The architectures whose forwards fill `record` and whose reference files carry raw_logits.
RAW_LOGITS_ARCHS = ("gemma", "gemma2", "gemma3_text", "gemma3", "qwen3", "olmo2", "phi3",
                    "gpt_neox")


def forward(folder, ids, dtype, loaded=None, interventions=None, observe=None, extra=None,
            patch=None):
    """Run one checkpoint folder on token ids in the given float dtype; interventions: see
    multi_head_attention (None = the plain pass); observe: see post_norm_encoder; extra: None,
    or keyword arguments for a RAW_LOGITS_ARCHS forward (the knobs and `record` of
    decoder_parts.py).
    patch: None, or a callable (layer, site, t) -> t whose result replaces t in the pass
    (activation patching, patching_reference.py); every forward calls it at
        "resid_pre"  [n, hidden]  the residual entering the layer (layer 0: the embeddings,
                                  after any embedding LayerNorm or Gemma's sqrt(hidden))
        "q" "k" "v"  [H, n, d]    per QUERY head, what enters the attention product: after any
                                  QK-norm and RoPE, keys and values after the GQA repeat (the
                                  H / KV copies of a key/value head are equal)
        "z"          [H, n, d]    per query head probs @ v (after `interventions`)
        "attn_out"   [n, hidden]  the output projection's result with its bias, before any
                                  post-attention norm and the residual add
        "mlp_out"    [n, hidden]  the MLP's down projection with its bias, before any
                                  post-feedforward norm and the residual add
    in that order within a layer."""
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    tensors = loaded if loaded is not None else st_io.load_checkpoint(folder)
    fn, probe, prefixes = ARCHS[cfg["model_type"]]
    # Widen the stored weights to float32 first: those float32 values are the "true" weights.
    widened = {n: t.float() if t.is_floating_point() else t for n, t in tensors.items()}
    w = Weights(widened, dtype, detect_prefix(tensors, probe, prefixes))
    with torch.no_grad():
        probs, logits, hidden, pos = fn(cfg, w, torch.tensor(ids, dtype=torch.int64),
                                        interventions=interventions, observe=observe,
                                        patch=patch or no_patch, **(extra or {}))
        return probs, logits, hidden, pos, lm_heads.prediction_logits(cfg, w, hidden, ACTIVATIONS)


def agreed(case, what, gap):
    """Returns `gap` (max |float32 - float64|) when it is within FP64_AGREEMENT, else ends the run
    saying which case's float32 `what` ("probabilities differ") from float64 and by how much."""
    if not gap <= FP64_AGREEMENT:
        raise SystemExit(f"{case}: float32 {what} from float64 by {gap:.3e} > {FP64_AGREEMENT}")
    return gap


def reference_pass(folder, tensors, entry, ids, knobs=None):
    """One input through the entry's checkpoint in float32 (knobs: None, or the what-if knobs of
    decoder_parts.py), checked against float64; returns (tensors to save, fp32/fp64 gap, the
    report line's text)."""
    record = {} if entry["model_type"] in RAW_LOGITS_ARCHS else None
    if record is None and knobs:
        raise SystemExit(f"{entry['case']}: what-if knobs on {entry['model_type']}, which has none")
    extra = None if record is None else dict(knobs or {}, record=record)
    probs, logits, hidden, pos, lm = forward(folder, ids, torch.float32, tensors, extra=extra)
    probs64, _, hidden64, _, _ = forward(folder, ids, torch.float64, tensors, extra=knobs)
    gap = (probs.double() - probs64).abs().max().item()
    hidden_gap = (hidden.double() - hidden64).abs().max().item()
    line = (f"n={len(ids):<3} max|p32-p64|={gap:.2e} max|h32-h64|={hidden_gap:.2e} "
            f"max p={probs.max().item():.3f}")
    outputs = {
        "input_ids": torch.tensor(ids, dtype=torch.int64),
        "position_ids": pos.to(torch.int64),
        "attention": probs.contiguous(),
        "logits": logits.contiguous(),
        "hidden": hidden.contiguous(),
    }
    if lm is not None:
        outputs["lm_logits"] = lm.contiguous()
    if record is not None:
        outputs["raw_logits"] = record["raw_logits"].contiguous()
        outputs["unnormed_logits"] = record["unnormed_logits"].contiguous()
    return outputs, gap, line


def whatif_knobs(item):
    """The knobs of a manifest "whatifs" item (JSON null -> None, numbers -> float)."""
    softcap, scale = item["softcap"], item["scale"]
    return dict(qk_norm=item["qk_norm"],
                softcap=softcap if softcap in ("model", None) else float(softcap),
                scale=None if scale is None else float(scale))


def knob_text(value):
    """A knob as metadata: "model", "null" or the number as Python writes it."""
    return "null" if value is None else str(value)


def run_case(root, entry):
    """Write every reference file of one manifest entry, and its what-if files; returns the
    worst fp32/fp64 gap."""
    folder = os.path.join(root, entry["case"])
    tensors = st_io.load_checkpoint(folder)
    worst = 0.0
    plain = []
    for ids, file in zip(entry["inputs"], entry["references"]):
        outputs, gap, line = reference_pass(folder, tensors, entry, ids)
        print(f"  {entry['case']:<20} {line}")
        worst = max(worst, agreed(entry["case"], "probabilities differ", gap))
        plain.append(outputs["attention"])
        st_io.save_file(outputs, os.path.join(folder, file), metadata={
            "case": entry["case"], "model_type": entry["model_type"],
            "mask": entry["default_mask"], "compute_dtype": "float32",
            "max_abs_diff_vs_float64": f"{gap:.3e}",
        })
    for item in entry.get("whatifs", []):
        knobs, k, tag = whatif_knobs(item), item["input"], item["tag"]
        outputs, gap, line = reference_pass(folder, tensors, entry, entry["inputs"][k], knobs)
        change = (outputs["attention"] - plain[k]).abs().max().item()
        print(f"  {entry['case']:<20} {line} what-if {tag}: max|p-plain|={change:.2e}")
        worst = max(worst, agreed(entry["case"], f"what-if {tag}: probabilities differ", gap))
        if not change > WHATIF_CHANGES:
            raise SystemExit(f"{entry['case']}: what-if {tag} moves no probability of input {k} "
                             f"by more than {WHATIF_CHANGES} (max {change:.1e}): a what-if that "
                             "changes nothing tests nothing")
        st_io.save_file(outputs, os.path.join(folder, item["file"]), metadata={
            "case": entry["case"], "tag": tag, "qk_norm": knobs["qk_norm"],
            "softcap": knob_text(knobs["softcap"]), "scale": knob_text(knobs["scale"]),
            "model_type": entry["model_type"], "input": str(k), "mask": entry["default_mask"],
            "compute_dtype": "float32", "max_abs_diff_vs_float64": f"{gap:.3e}",
        })
    return worst


# run(OUT_DIR): the reference outputs of every case in OUT/checkpoints/manifest.json.
run, main = reference_main.manifest_pass(__doc__, "checkpoints", run_case, "reference",
                                         "probability")


if __name__ == "__main__":
    main()
