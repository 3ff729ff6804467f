#!/usr/bin/python3
"""Writes a Llama-3-8B-shaped GGUF with random quantized blocks (issue 32's "an 8 B Q4_K_M model
opens and runs at n = 512 with every map recorded in at most 8 GiB"): 32 layers, 4096 wide, 32
heads with 8 key/value heads, SwiGLU 14336, 128256 tokens, untied output; Q4_K_M's type mix
(token_embd Q4_K, output Q6_K, attn_v and ffn_down Q6_K in llama.cpp's use_more_bits layers,
the rest Q4_K, norms F32), or every matrix Q8_0 (--type Q8_0). About 4.6 GB (Q4_K_M) or 8.0 GB.

Usage: make_big_gguf.py --out /tmp/big8b.gguf [--type Q4_K_M|Q8_0] [--layers 32]

The blocks are random bytes with every scale (d, dmin) set to a small f16, so the weights are
finite and small; only timings and memory mean anything. Written tensor by tensor (never the
whole file in memory), with a minimal gpt2-type tokenizer so llama.cpp can load it too. Never
write the output inside the repository.
"""

import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import ggml_blocks  # noqa: E402

SHAPE = dict(hidden=4096, ffn=14336, heads=32, kv_heads=8, vocab=128256, ctx=8192)
ALIGN = 32
SCALE = np.float16(0.0005).view(np.uint16)
# Where each block type keeps its f16 scales (byte offsets), from ggml-common.h.
SCALE_AT = {"Q4_K": (0, 2), "Q6_K": (208,), "Q8_0": (0,)}


def use_more_bits(i, n):
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def tensors(layers, mix):
    """[(name, ne, type)] in llama.cpp's order."""
    h, f, kv = SHAPE["hidden"], SHAPE["ffn"], SHAPE["kv_heads"] * (SHAPE["hidden"] // SHAPE["heads"])
    q8 = mix == "Q8_0"
    out = [("token_embd.weight", [h, SHAPE["vocab"]], "Q8_0" if q8 else "Q4_K")]
    for i in range(layers):
        more = "Q8_0" if q8 else ("Q6_K" if use_more_bits(i, layers) else "Q4_K")
        base = "Q8_0" if q8 else "Q4_K"
        p = f"blk.{i}."
        out += [(p + "attn_norm.weight", [h], "F32"), (p + "attn_q.weight", [h, h], base),
                (p + "attn_k.weight", [h, kv], base), (p + "attn_v.weight", [h, kv], more),
                (p + "attn_output.weight", [h, h], base), (p + "ffn_norm.weight", [h], "F32"),
                (p + "ffn_gate.weight", [h, f], base), (p + "ffn_up.weight", [h, f], base),
                (p + "ffn_down.weight", [f, h], more)]
    out += [("output_norm.weight", [h], "F32"),
            ("output.weight", [h, SHAPE["vocab"]], "Q8_0" if q8 else "Q6_K")]
    return out


def gstr(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, fmt_type, value):
    types = {"u32": (4, "<I"), "f32": (6, "<f")}
    if fmt_type == "str":
        return gstr(key) + struct.pack("<I", 8) + gstr(value)
    if fmt_type == "strs":
        return (gstr(key) + struct.pack("<IIQ", 9, 8, len(value)) + b"".join(gstr(v) for v in value))
    if fmt_type == "i32s":
        return gstr(key) + struct.pack("<IIQ", 9, 5, len(value)) + struct.pack(f"<{len(value)}i", *value)
    tid, fmt = types[fmt_type]
    return gstr(key) + struct.pack("<I", tid) + struct.pack(fmt, value)


def metadata(layers, mix):
    a, s = "llama", SHAPE
    # A byte-level vocabulary: 256 byte symbols, one merge (two spaces), then filler tokens up
    # to the embedding's rows.
    space = ggml_blocks_byte(32)
    tokens = ([ggml_blocks_byte(i) for i in range(256)] + [space + space] +
              [f"<t{i}>" for i in range(257, s["vocab"])])
    items = [kv("general.architecture", "str", a), kv("general.name", "str", "synthetic-8b"),
             kv("general.file_type", "u32", 7 if mix == "Q8_0" else 15),
             kv(a + ".block_count", "u32", layers), kv(a + ".context_length", "u32", s["ctx"]),
             kv(a + ".embedding_length", "u32", s["hidden"]),
             kv(a + ".feed_forward_length", "u32", s["ffn"]),
             kv(a + ".attention.head_count", "u32", s["heads"]),
             kv(a + ".attention.head_count_kv", "u32", s["kv_heads"]),
             kv(a + ".rope.freq_base", "f32", 500000.0),
             kv(a + ".attention.layer_norm_rms_epsilon", "f32", 1e-5),
             kv("tokenizer.ggml.model", "str", "gpt2"), kv("tokenizer.ggml.pre", "str", "default"),
             kv("tokenizer.ggml.tokens", "strs", tokens),
             kv("tokenizer.ggml.token_type", "i32s", [1] * len(tokens)),
             kv("tokenizer.ggml.merges", "strs", [space + " " + space])]
    return items


def ggml_blocks_byte(i):
    """GPT-2's byte-to-unicode symbol of byte i (the byte-level BPE alphabet)."""
    printable = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    if i in printable:
        return chr(i)
    return chr(256 + [b for b in range(256) if b not in printable].index(i))


def nbytes(ne, type_name):
    t = ggml_blocks.TYPES[type_name]
    n = int(np.prod(ne))
    return n // t.block_size * t.type_size


def write_tensor(f, ne, type_name, rng):
    """Random blocks with small scales, a chunk of rows at a time."""
    if type_name == "F32":
        f.write(np.ones(int(np.prod(ne)), dtype=np.float32).tobytes())
        return
    t = ggml_blocks.TYPES[type_name]
    per_row = ne[0] // t.block_size
    rows = int(np.prod(ne[1:]))
    chunk = max(1, (64 << 20) // (per_row * t.type_size))
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start) * per_row
        blocks = rng.integers(0, 256, size=(n, t.type_size), dtype=np.uint8)
        for at in SCALE_AT[type_name]:
            blocks[:, at:at + 2] = np.frombuffer(struct.pack("<H", int(SCALE)), dtype=np.uint8)
        f.write(blocks.tobytes())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--type", default="Q4_K_M", choices=["Q4_K_M", "Q8_0"])
    p.add_argument("--layers", type=int, default=32)
    args = p.parse_args()
    items = tensors(args.layers, args.type)
    meta = metadata(args.layers, args.type)
    header = b"GGUF" + struct.pack("<IQQ", 3, len(items), len(meta)) + b"".join(meta)
    offset, infos = 0, b""
    for name, ne, type_name in items:
        infos += gstr(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne)
        infos += struct.pack("<IQ", ggml_blocks.TYPES[type_name].type_id, offset)
        offset += nbytes(ne, type_name)
        offset += -offset % ALIGN
    head = header + infos
    head += b"\0" * (-len(head) % ALIGN)
    rng = np.random.default_rng(8)
    with open(args.out, "wb") as f:
        f.write(head)
        for name, ne, type_name in items:
            write_tensor(f, ne, type_name, rng)
            f.write(b"\0" * (-f.tell() % ALIGN))
    print(f"wrote {args.out}: {len(items)} tensors, {os.path.getsize(args.out) / 2**30:.2f} GiB")


if __name__ == "__main__":
    main()
