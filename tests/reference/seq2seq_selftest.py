#!/usr/bin/python3
"""Self-test of the encoder-decoder reference (issue 20), so the C++ is not checked against a
wrong reference.

Usage: seq2seq_selftest.py DIR        (DIR holds seq2seq/manifest.json and the references)

1. T5 buckets against tables worked out by hand from Mesh TensorFlow's definition.
2. Marian's sinusoidal table against the formula, written another way (torch, interleaved, then
   split into halves).
3. Every reference file: rows sum to 1, masked cells are 0, attention == masked softmax(logits),
   shapes as the manifest says, lm_logits present iff has_lm_head.
4. Causality: a shorter decoder input gives the first rows of the longer one's outputs.
5. Padding: a padded source gives, on its real tokens, what the unpadded source gives, and its
   pad columns get no attention.
6. T5 re-computed head by head with Mesh TensorFlow's bucket rule in scalar Python; BART, mBART
   and Marian re-computed with torch.nn.TransformerEncoderLayer / DecoderLayer
   (post-LN or norm_first) loaded with the checkpoint's weights: hidden states and LM logits must
   match the reference files.
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import selftest_checks  # noqa: E402
import seq2seq_reference as ref  # noqa: E402
import st_io  # noqa: E402

TOL = 1e-5

# Hand-worked buckets (see make_seq2seq_checkpoints.py's rules) for relative = key - query.
# 8 buckets, max_distance 20, bidirectional: half 4, max_exact 2; n = 2..6 -> 2, n >= 7 -> 3
# (2 + floor(2 log(n/2) / log 10) reaches 3 at n = 2 sqrt(10) = 6.3); keys after the query + 4.
T5_BI_8_20 = {-22: 3, -7: 3, -6: 2, -2: 2, -1: 1, 0: 0, 1: 5, 2: 6, 6: 6, 7: 7, 22: 7}
# 8 buckets, max_distance 20, causal (n = query - key): max_exact 4; 4 + floor(4 log(n/4)/log 5):
# n=5 -> 4, n=6 -> 5 (4 log 1.5 / log 5 = 1.008), n=9 -> 6, n=14 -> 7; keys after the query -> 0.
T5_CAUSAL_8_20 = {0: 0, 3: 3, 4: 4, 5: 4, 6: 5, 8: 5, 9: 6, 13: 6, 14: 7, 30: 7, -3: 0}
# 6 buckets, max_distance 12, bidirectional: half 3, max_exact 1; 1 + floor(2 log n / log 12):
# n=1 -> 1, n=3 -> 1 (0.88), n=4 -> 2 (1.12), n=12 -> 3 capped to 2.
T5_BI_6_12 = {0: 0, -1: 1, -3: 1, -4: 2, -12: 2, 1: 4, 3: 4, 4: 5, 40: 5}


def check_buckets(check):
    check.case = "t5 buckets"
    for table, bidirectional, nb, md in ((T5_BI_8_20, True, 8, 20),
                                         (T5_CAUSAL_8_20, False, 8, 20),
                                         (T5_BI_6_12, True, 6, 12)):
        # T5_CAUSAL is keyed by n = query - key, i.e. relative = -n.
        keys = list(table)
        rel = torch.tensor(keys) if bidirectional else -torch.tensor(keys)
        got = ref.t5_relative_buckets(rel, bidirectional, nb, md).tolist()
        want = [table[k] for k in keys]
        check(f"buckets={nb} max_distance={md} bidirectional={bidirectional}", got == want,
              f"got {got}, want {want}")


def check_sinusoids(check):
    check.case = "marian table"
    for n_pos, dim in ((30, 12), (7, 9)):
        table = ref.seq2seq_layouts.marian_sinusoidal_table(n_pos, dim).double()
        pos = torch.arange(n_pos, dtype=torch.float64)[:, None]
        freq = torch.pow(10000.0, -torch.arange(0, dim, 2, dtype=torch.float64) / dim)
        sin, cos = torch.sin(pos * freq), torch.cos(pos * freq)
        interleaved = torch.stack((sin, cos), dim=-1).reshape(n_pos, -1)[:, :dim]
        want = torch.cat((interleaved[:, 0::2], interleaved[:, 1::2]), dim=1)
        gap = (table - want).abs().max().item()
        check(f"{n_pos}x{dim} equals sin|cos halves", gap < 1e-6, f"max gap {gap:.1e}")


def check_reference_file(check, entry, r, inp):
    s, t, pad = len(inp["source"]), len(inp["decoder"]), inp["source_padding"]
    shapes = {"encoder": (entry["encoder_layers"], entry["encoder_heads"], s, s),
              "decoder": (entry["decoder_layers"], entry["decoder_heads"], t, t),
              "cross": (entry["decoder_layers"], entry["decoder_heads"], t, s)}
    allowed = dict(zip(ref.MAPS, ref.masks(s, t, pad)))
    for m in ref.MAPS:
        p, lg = r[m + "_attention"], r[m + "_logits"]
        check(f"{m} shape", tuple(p.shape) == shapes[m] == tuple(lg.shape), str(tuple(p.shape)))
        check(f"{m} rows sum to 1", (p.sum(-1) - 1).abs().max().item() < 1e-6)
        check(f"{m} masked cells are 0", (p.masked_select(~allowed[m]) == 0).all().item())
        again = torch.softmax(lg.masked_fill(~allowed[m], float("-inf")), -1)
        check(f"{m} = masked softmax(logits)", (again - p).abs().max().item() < 1e-6)
    check("lm_logits iff has_lm_head", ("lm_logits" in r) == entry["has_lm_head"])
    check("ids stored", r["source_ids"].tolist() == inp["source"]
          and r["decoder_ids"].tolist() == inp["decoder"])


def gap(a, b):
    return (a.double() - b.double()).abs().max().item()


def check_causality_and_padding(check, cfg, tensors, inp):
    src, dec, pad = inp["source"], inp["decoder"], inp["source_padding"]
    full = ref.forward(cfg, tensors, src, dec, pad, torch.float64)
    if len(dec) > 2:
        k = len(dec) // 2
        part = ref.forward(cfg, tensors, src, dec[:k], pad, torch.float64)
        worst = max(gap(part["decoder_hidden"], full["decoder_hidden"][:k]),
                    gap(part["decoder_attention"], full["decoder_attention"][:, :, :k, :k]),
                    gap(part["cross_attention"], full["cross_attention"][:, :, :k]))
        check(f"decoder prefix of {k}/{len(dec)} = first rows", worst < 1e-9, f"{worst:.1e}")
    if pad:
        n = len(src) - pad
        trim = ref.forward(cfg, tensors, src[:n], dec, 0, torch.float64)
        worst = max(gap(trim["encoder_hidden"], full["encoder_hidden"][:n]),
                    gap(trim["encoder_attention"], full["encoder_attention"][:, :, :n, :n]),
                    gap(trim["cross_attention"], full["cross_attention"][:, :, :, :n]),
                    gap(trim["decoder_hidden"], full["decoder_hidden"]))
        check("padded source = unpadded on real tokens", worst < 1e-9, f"{worst:.1e}")
        check("pad columns get no cross attention",
              (full["cross_attention"][..., n:] == 0).all().item())


def _load_mha(mha, w, p):
    mha.in_proj_weight.copy_(torch.cat([w(p + f"{r}_proj.weight") for r in "qkv"]))
    mha.in_proj_bias.copy_(torch.cat([w(p + f"{r}_proj.bias") for r in "qkv"]))
    mha.out_proj.weight.copy_(w(p + "out_proj.weight"))
    mha.out_proj.bias.copy_(w(p + "out_proj.bias"))


def _load_ln(ln, w, name):
    ln.weight.copy_(w(name + ".weight"))
    ln.bias.copy_(w(name + ".bias"))


def torch_layer(cfg, w, stack, i):
    """One torch.nn Transformer layer holding the checkpoint's weights (float64)."""
    decoder = stack == "decoder"
    d = cfg["d_model"]
    heads = cfg[f"{stack}_attention_heads"]
    ffn = cfg[f"{stack}_ffn_dim"]
    act = {"gelu": "gelu", "relu": "relu", "swish": F.silu}[cfg["activation_function"]]
    cls = torch.nn.TransformerDecoderLayer if decoder else torch.nn.TransformerEncoderLayer
    layer = cls(d, heads, ffn, dropout=0.0, activation=act, norm_first=cfg["model_type"] == "mbart",
                dtype=torch.float64).eval()
    p = f"model.{stack}.layers.{i}."
    _load_mha(layer.self_attn, w, p + "self_attn.")
    layer.linear1.weight.copy_(w(p + "fc1.weight"))
    layer.linear1.bias.copy_(w(p + "fc1.bias"))
    layer.linear2.weight.copy_(w(p + "fc2.weight"))
    layer.linear2.bias.copy_(w(p + "fc2.bias"))
    _load_ln(layer.norm1, w, p + "self_attn_layer_norm")
    if decoder:
        _load_mha(layer.multihead_attn, w, p + "encoder_attn.")
        _load_ln(layer.norm2, w, p + "encoder_attn_layer_norm")
        _load_ln(layer.norm3, w, p + "final_layer_norm")
    else:
        _load_ln(layer.norm2, w, p + "final_layer_norm")
    return layer


def torch_embed(cfg, w, stack, ids):
    d = cfg["d_model"]
    scale = math.sqrt(d) if cfg["scale_embedding"] else 1.0
    x = w("model.shared.weight")[ids] * scale
    if cfg["model_type"] == "marian":
        pos = torch.arange(len(ids), dtype=torch.float64)[:, None]
        freq = torch.pow(10000.0, -torch.arange(0, d, 2, dtype=torch.float64) / d)
        x = x + torch.cat((torch.sin(pos * freq), torch.cos(pos * freq)[:, : d // 2]), dim=1)
        return x
    x = x + w(f"model.{stack}.embed_positions.weight")[2:2 + len(ids)]
    return F.layer_norm(x, (d,), w(f"model.{stack}.layernorm_embedding.weight"),
                        w(f"model.{stack}.layernorm_embedding.bias"), 1e-5)


def torch_modules_pass(cfg, w, inp):
    """BART-family forward with torch.nn layers; returns (encoder out, decoder out, lm logits)."""
    src, dec = torch.tensor(inp["source"]), torch.tensor(inp["decoder"])
    pad_mask = (torch.arange(len(src)) >= len(src) - inp["source_padding"])[None, :]
    causal = torch.triu(torch.full((len(dec), len(dec)), float("-inf"), dtype=torch.float64), 1)
    outs = []
    with torch.no_grad():
        x = torch_embed(cfg, w, "encoder", src)[:, None, :]
        for i in range(cfg["encoder_layers"]):
            x = torch_layer(cfg, w, "encoder", i)(x, src_key_padding_mask=pad_mask)
        if cfg["model_type"] == "mbart":
            x = F.layer_norm(x, x.shape[-1:], w("model.encoder.layer_norm.weight"),
                             w("model.encoder.layer_norm.bias"), 1e-5)
        outs.append(x[:, 0])
        y = torch_embed(cfg, w, "decoder", dec)[:, None, :]
        for i in range(cfg["decoder_layers"]):
            y = torch_layer(cfg, w, "decoder", i)(y, x, tgt_mask=causal,
                                                   memory_key_padding_mask=pad_mask)
        if cfg["model_type"] == "mbart":
            y = F.layer_norm(y, y.shape[-1:], w("model.decoder.layer_norm.weight"),
                             w("model.decoder.layer_norm.bias"), 1e-5)
        outs.append(y[:, 0])
        head = w("lm_head.weight") if "lm_head.weight" in w.tensors else w("model.shared.weight")
        outs.append(outs[1] @ head.T + w("final_logits_bias")[0])
    return outs


def check_against_torch_modules(check, cfg, tensors, inp, r):
    widened = {n: t.float() for n, t in tensors.items()}
    w = ref.Weights(widened, torch.float64, "")
    enc, hid, lm = torch_modules_pass(cfg, w, inp)
    n = len(inp["source"]) - inp["source_padding"]
    worst = max(gap(enc[:n], r["encoder_hidden"][:n]), gap(hid, r["decoder_hidden"]),
                gap(lm, r["lm_logits"]))
    check("torch.nn Transformer layers agree", worst < TOL, f"max gap {worst:.1e}")


def scalar_bucket(rel, bidirectional, nb, md):
    """Mesh TensorFlow's _relative_position_bucket for one int, in plain float64 Python."""
    offset, n = 0, -rel
    if bidirectional:
        nb //= 2
        offset, n = (nb if n < 0 else 0), abs(n)
    n = max(n, 0)
    exact = nb // 2
    if n < exact:
        return offset + n
    return offset + min(nb - 1, exact + int(math.log(n / exact) / math.log(md / exact)
                                            * (nb - exact)))


def t5_loop_stack(cfg, w, stack, x, pad, memory=None):
    """T5 stack written head by head with scalar buckets; returns (hidden, self probs)."""
    decoder, eps, n = memory is not None, cfg["layer_norm_epsilon"], x.shape[0]
    heads, dk = cfg["num_heads"], cfg["d_kv"]
    nb, md = cfg["relative_attention_num_buckets"], cfg["relative_attention_max_distance"]
    table = w(f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight")
    bias = torch.stack([torch.stack([table[scalar_bucket(j - i, not decoder, nb, md)]
                                     for j in range(n)]) for i in range(n)])  # [n, n, H]

    def norm(t, name):
        return t * torch.rsqrt((t * t).mean(-1, keepdim=True) + eps) * w(name + ".weight")

    def mha(h, kv, p, b, key_ok):
        out, probs = 0, []
        for hd in range(heads):
            rows = slice(hd * dk, (hd + 1) * dk)
            q = h @ w(p + "q.weight")[rows].T
            k, v = kv @ w(p + "k.weight")[rows].T, kv @ w(p + "v.weight")[rows].T
            s = q @ k.T + (b[:, :, hd] if b is not None else 0)
            s = s.masked_fill(~key_ok, float("-inf"))
            probs.append(torch.softmax(s, -1))
            out = out + probs[-1] @ v @ w(p + "o.weight")[:, rows].T
        return out, torch.stack(probs)

    src_ok = torch.arange(memory.shape[0] if decoder else n) < (memory.shape[0] if decoder
                                                                 else n) - pad
    self_ok = (torch.arange(n)[None, :] <= torch.arange(n)[:, None]) if decoder else src_ok
    all_probs = []
    for i in range(cfg["num_decoder_layers" if decoder else "num_layers"]):
        p = f"{stack}.block.{i}.layer."
        a, probs = mha(norm(x, p + "0.layer_norm"), norm(x, p + "0.layer_norm"),
                       p + "0.SelfAttention.", bias, self_ok)
        x, f = x + a, p + "1."
        all_probs.append(probs)
        if decoder:
            x = x + mha(norm(x, p + "1.layer_norm"), memory, p + "1.EncDecAttention.", None,
                        src_ok)[0]
            f = p + "2."
        h = norm(x, f + "layer_norm")
        if cfg["is_gated_act"]:
            inner = (F.gelu(h @ w(f + "DenseReluDense.wi_0.weight").T, approximate="tanh")
                     * (h @ w(f + "DenseReluDense.wi_1.weight").T))
        else:
            inner = torch.relu(h @ w(f + "DenseReluDense.wi.weight").T)
        x = x + inner @ w(f + "DenseReluDense.wo.weight").T
    return norm(x, f"{stack}.final_layer_norm"), torch.stack(all_probs)


def check_t5_loops(check, cfg, tensors, inp, r):
    w = ref.Weights({n: t.float() for n, t in tensors.items()}, torch.float64, "")
    src, dec = torch.tensor(inp["source"]), torch.tensor(inp["decoder"])
    with torch.no_grad():
        enc, enc_p = t5_loop_stack(cfg, w, "encoder", w("shared.weight")[src],
                                   inp["source_padding"])
        hid, dec_p = t5_loop_stack(cfg, w, "decoder", w("shared.weight")[dec],
                                   inp["source_padding"], enc)
        if "lm_head.weight" in w.tensors:
            lm = hid @ w("lm_head.weight").T
        else:
            lm = hid * cfg["d_model"] ** -0.5 @ w("shared.weight").T
    worst = max(gap(enc, r["encoder_hidden"]), gap(enc_p, r["encoder_attention"]),
                gap(hid, r["decoder_hidden"]), gap(dec_p, r["decoder_attention"]))
    if "lm_logits" in r:
        worst = max(worst, gap(lm, r["lm_logits"]))
    check("head-by-head T5 with scalar buckets agrees", worst < TOL, f"max gap {worst:.1e}")


def check_case(check, root, entry):
    folder = os.path.join(root, entry["case"])
    cfg, tensors = ref.read_config(folder), st_io.load_checkpoint(folder)
    for k, (inp, file) in enumerate(zip(entry["inputs"], entry["references"])):
        check.case = f"{entry['case']} input {k}"
        r = st_io.load_file(os.path.join(folder, file))
        check_reference_file(check, entry, r, inp)
        check_causality_and_padding(check, cfg, tensors, inp)
        if cfg["model_type"] == "t5":
            check_t5_loops(check, cfg, tensors, inp, r)
        else:
            check_against_torch_modules(check, cfg, tensors, inp, r)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    root = os.path.join(sys.argv[1], "seq2seq")
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    check = selftest_checks.Checks()
    check_buckets(check)
    check_sinusoids(check)
    for entry in manifest:
        check_case(check, root, entry)
    print(f"{check.count - len(check.failed)}/{check.count} checks passed")
    if check.failed:
        raise SystemExit("failed: " + "; ".join(check.failed))


if __name__ == "__main__":
    main()
