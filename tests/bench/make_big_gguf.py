#!/usr/bin/python3
"""Writes a Llama-3-shaped GGUF with random weights (issue 32's memory check and its benchmark,
gguf_bench.py). Shapes (--shape): `8b`, Llama 3 8B: 32 layers, 4096 wide, 32 heads with 8
key/value heads, SwiGLU 14336, 128256 tokens, untied output; `1b`, Llama 3.2 1B: 16 layers, 2048
wide, 32 heads with 8 key/value heads, SwiGLU 8192, 128256 tokens, tied output (no
output.weight). Types (--type): Q4_K_M's mix as llama.cpp's quantizer picks it (token_embd Q4_K,
or Q6_K when it is also the output; output Q6_K; attn_v and ffn_down Q6_K in the use_more_bits
layers; the rest Q4_K), every matrix Q8_0, every matrix BF16, or every matrix F32; norms F32. 8b:
about 4.9 GB (Q4_K_M), 8.5 GB (Q8_0), 16.1 GB (BF16), 32 GB (F32); 1b: 0.8, 1.3, 2.5, 5.0 GB.

Usage: make_big_gguf.py --out /tmp/big8b.gguf [--type Q4_K_M|Q8_0|BF16|F32] [--shape 8b|1b]
                        [--layers N]

Quantized blocks are random bytes with every scale (d, dmin) set to a small f16; BF16 and F32
matrices are slices, at random offsets, of one pool of normals times 0.02 (F32 norm weights are
ones). So the weights are finite and small and only timings and memory mean anything. Written a chunk at a time (never the whole file
in memory), with a minimal gpt2-type tokenizer so llama.cpp can load it too. Never write the
output inside the repository.
"""

import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import ggml_blocks  # noqa: E402

SHAPES = {
    "8b": dict(layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8, vocab=128256, ctx=8192,
               tied=False),
    "1b": dict(layers=16, hidden=2048, ffn=8192, heads=32, kv_heads=8, vocab=128256, ctx=8192,
               tied=True),
}
# general.file_type as llama.cpp numbers it (llama_ftype).
FILE_TYPE = {"F32": 0, "Q8_0": 7, "Q4_K_M": 15, "BF16": 32}
ALIGN = 32
SCALE = np.float16(0.0005).view(np.uint16)
# Where each block type keeps its f16 scales (byte offsets), from ggml-common.h.
SCALE_AT = {"Q4_K": (0, 2), "Q6_K": (208,), "Q8_0": (0,)}
BF16_POOL = 1 << 24  # normals in the pool BF16 values are sliced from
BF16_CHUNK = 1 << 23  # values per write


def use_more_bits(i, n):
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def tensors(shape, layers, mix):
    """[(name, ne, type)] in llama.cpp's order. A tied model has no output.weight, and llama.cpp's
    quantizer then gives token_embd the output's type."""
    h, f = shape["hidden"], shape["ffn"]
    kv = shape["kv_heads"] * (h // shape["heads"])
    k_mix = mix == "Q4_K_M"
    out_type = "Q6_K" if k_mix else mix
    embd_type = out_type if shape["tied"] else ("Q4_K" if k_mix else mix)
    out = [("token_embd.weight", [h, shape["vocab"]], embd_type)]
    for i in range(layers):
        more = ("Q6_K" if use_more_bits(i, layers) else "Q4_K") if k_mix else mix
        base = "Q4_K" if k_mix else mix
        p = f"blk.{i}."
        out += [(p + "attn_norm.weight", [h], "F32"), (p + "attn_q.weight", [h, h], base),
                (p + "attn_k.weight", [h, kv], base), (p + "attn_v.weight", [h, kv], more),
                (p + "attn_output.weight", [h, h], base), (p + "ffn_norm.weight", [h], "F32"),
                (p + "ffn_gate.weight", [h, f], base), (p + "ffn_up.weight", [h, f], base),
                (p + "ffn_down.weight", [f, h], more)]
    out.append(("output_norm.weight", [h], "F32"))
    if not shape["tied"]:
        out.append(("output.weight", [h, shape["vocab"]], out_type))
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


def metadata(shape_name, layers, mix):
    a, s = "llama", SHAPES[shape_name]
    # A byte-level vocabulary: 256 byte symbols, one merge (two spaces), then filler tokens up
    # to the embedding's rows.
    space = ggml_blocks_byte(32)
    tokens = ([ggml_blocks_byte(i) for i in range(256)] + [space + space] +
              [f"<t{i}>" for i in range(257, s["vocab"])])
    items = [kv("general.architecture", "str", a),
             kv("general.name", "str", "synthetic-" + shape_name),
             kv("general.file_type", "u32", FILE_TYPE[mix]),
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


def bf16_pool(rng):
    """BF16 bits of BF16_POOL normals times 0.02 (truncated: the values only need to be small)."""
    values = rng.standard_normal(BF16_POOL, dtype=np.float32) * np.float32(0.02)
    return (values.view(np.uint32) >> np.uint32(16)).astype("<u2")


def write_tensor(f, ne, type_name, rng, pool):
    """Random blocks with small scales, a chunk of rows at a time; BF16 and F32 matrices slices
    of the pool (its BF16 bits, or the fp32 values those bits stand for); norm weights ones."""
    if type_name == "F32" and len(ne) == 1:
        f.write(np.ones(int(np.prod(ne)), dtype=np.float32).tobytes())
        return
    if type_name in ("BF16", "F32"):
        total = int(np.prod(ne))
        for start in range(0, total, BF16_CHUNK):
            n = min(BF16_CHUNK, total - start)
            offset = int(rng.integers(0, BF16_POOL - n + 1))
            part = pool[offset:offset + n]
            if type_name == "F32":
                part = (part.astype("<u4") << np.uint32(16)).view("<f4")
            f.write(part.tobytes())
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
    p.add_argument("--type", default="Q4_K_M", choices=sorted(FILE_TYPE))
    p.add_argument("--shape", default="8b", choices=sorted(SHAPES))
    p.add_argument("--layers", type=int, default=None, help="default: the shape's")
    args = p.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.abspath(args.out).startswith(repo + os.sep):
        sys.exit(f"make_big_gguf: {args.out} is inside the repository; write it elsewhere")
    layers = args.layers or SHAPES[args.shape]["layers"]
    items = tensors(SHAPES[args.shape], layers, args.type)
    meta = metadata(args.shape, layers, args.type)
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
    pool = bf16_pool(rng) if args.type in ("BF16", "F32") else None
    with open(args.out, "wb") as f:
        f.write(head)
        for name, ne, type_name in items:
            write_tensor(f, ne, type_name, rng, pool)
            f.write(b"\0" * (-f.tell() % ALIGN))
    print(f"wrote {args.out}: {len(items)} tensors, {os.path.getsize(args.out) / 2**30:.2f} GiB")


if __name__ == "__main__":
    main()
