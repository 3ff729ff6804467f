#!/usr/bin/python3
"""Write bit-exact dequantization cases for every ggml type the reference covers (issue 32).

usage: ggml_blocks_cases.py OUTDIR

OUTDIR/blocks.gguf (alignment 32, no general.alignment key) holds, per type T in TYPE_ORDER:
  T        random (seeded) block bytes, ne = [2*block, 3] (64 for F32/F16/BF16 and 32-blocks,
           512 for K-quants); every f16/f32 scale field is a random *finite* value.
  T.edge   block-format types: one block per combination of edge scale values (d, and m/dmin for
           the types that have one), from EDGE_F16 (or EDGE_F32 for Q8_K's float32 d); quant
           bytes random; ne = [2*block, n_blocks/2]. F32/F16/BF16: ne = [64, 3] holding edge
           values (+-0, denormals, max, +-inf; never NaN) followed by random finite values.
OUTDIR/blocks_expected.gguf (alignment 64, general.alignment = 64 u32) holds, for every tensor
  of blocks.gguf in the same order, an F32 tensor of the same name and ne with
  ggml_blocks.dequantize() of it.
Both files carry `attnscope.test.types` (array of string: TYPE_ORDER) and
`attnscope.test.seed` (u32).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggml_blocks  # noqa: E402
from gguf_file import GGUFWriter  # noqa: E402

SEED = 32
TYPE_ORDER = ["F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1",
              "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "Q8_K"]

# Byte offsets of the ggml_half scale fields inside one block (ggml-common.h): d first, then
# m / dmin where the type has one. Q8_K's d is a float32 at offset 0.
SCALE_FIELDS = {
    "Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0],
    "Q2_K": [80, 82], "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208],
}
# +0, -0, smallest denormal, largest denormal, smallest normal, 65504, 1, and negatives.
EDGE_F16 = [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x3C00,
            0x8001, 0x83FF, 0x8400, 0xFBFF, 0xBC00]
# float32 d of Q8_K: the same idea in f32, plus FLT_MAX (d*q overflows to +-inf, as in C).
EDGE_F32 = [0x00000000, 0x80000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF,
            0x3F800000, 0x33800000, 0x80000001, 0x807FFFFF, 0xFF7FFFFF, 0xBF800000]
EDGE_VALUES = {
    "F16": [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x7BFF, 0xFBFF,
            0x7C00, 0xFC00, 0x3C00, 0x3555],
    "BF16": [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x807F, 0x0080, 0x7F7F, 0xFF7F,
             0x7F80, 0xFF80, 0x3F80, 0x3EAB],
    "F32": [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000,
            0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x3F800000, 0x3EAAAAAB],
}


def _finite_bits(rng, n, bits):
    """Random IEEE bit patterns of width 16 (f16) / 32 (f32) / 'bf16', never inf or NaN."""
    if bits == 16:
        u = rng.integers(0, 1 << 16, n, dtype=np.uint32)
        return np.where((u & 0x7C00) == 0x7C00, u & ~np.uint32(0x4000), u).astype(np.uint16)
    u = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    u = np.where((u & 0x7F800000) == 0x7F800000, u & ~np.uint32(0x40000000), u)
    return (u >> 16).astype(np.uint16) if bits == "bf16" else u


def _float_tensor(rng, name, edge):
    """Raw bytes of a [64, 3] F32/F16/BF16 tensor; edge values first when asked."""
    n = 64 * 3
    kind = {"F32": 32, "F16": 16, "BF16": "bf16"}[name]
    u = _finite_bits(rng, n, kind)
    if edge:
        vals = EDGE_VALUES[name]
        u[:len(vals)] = vals
    return u.astype("<u4" if name == "F32" else "<u2").tobytes()


def _q8k_d(rng, n):
    """Finite random float32 d for Q8_K (moderate magnitude, so d*q stays finite)."""
    d = rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n).astype(np.float64))
    return d.astype("<f4").view(np.uint8).reshape(n, 4)


def _random_blocks(rng, name, n_blocks):
    t = ggml_blocks.TYPES[name]
    blocks = rng.integers(0, 256, (n_blocks, t.type_size), dtype=np.uint8)
    if name == "Q8_K":
        blocks[:, 0:4] = _q8k_d(rng, n_blocks)
        qs = blocks[:, 4:260].view(np.int8).astype(np.int64)
        bsums = qs.reshape(n_blocks, 16, 16).sum(axis=2).astype("<i2")
        blocks[:, 260:292] = bsums.view(np.uint8)   # keep the (unused) bsums consistent
        return blocks
    for off in SCALE_FIELDS[name]:
        blocks[:, off:off + 2] = _finite_bits(rng, n_blocks, 16).astype("<u2").view(
            np.uint8).reshape(n_blocks, 2)
    return blocks


def _edge_blocks(rng, name):
    """One block per edge-scale combination (d x m for two-scale types)."""
    if name == "Q8_K":
        d = np.array(EDGE_F32, dtype="<u4")
        blocks = _random_blocks(rng, name, len(d))
        blocks[:, 0:4] = d.view(np.uint8).reshape(-1, 4)
        return blocks
    fields = SCALE_FIELDS[name]
    grid = np.array(np.meshgrid(*[EDGE_F16] * len(fields), indexing="ij")).reshape(len(fields), -1)
    blocks = _random_blocks(rng, name, grid.shape[1])
    for off, vals in zip(fields, grid):
        blocks[:, off:off + 2] = vals.astype("<u2").view(np.uint8).reshape(-1, 2)
    return blocks


def build_cases(seed=SEED):
    """[(name, ne, type_name, raw)] for blocks.gguf, deterministic for a seed."""
    rng = np.random.default_rng(seed)
    cases = []
    for name in TYPE_ORDER:
        t = ggml_blocks.TYPES[name]
        if t.block_size == 1:
            cases.append((name, [64, 3], name, _float_tensor(rng, name, False)))
            cases.append((name + ".edge", [64, 3], name, _float_tensor(rng, name, True)))
            continue
        ne0 = 2 * t.block_size
        cases.append((name, [ne0, 3], name, _random_blocks(rng, name, 6).tobytes()))
        edge = _edge_blocks(rng, name)
        if len(edge) % 2:
            raise AssertionError(f"{name}: odd number of edge blocks")
        cases.append((name + ".edge", [ne0, len(edge) // 2], name, edge.tobytes()))
    return cases


def _common_meta(w):
    w.add("attnscope.test.types", TYPE_ORDER, "array", elem_type="string")
    w.add("attnscope.test.seed", SEED, "u32")


def write_cases(outdir):
    os.makedirs(outdir, exist_ok=True)
    cases = build_cases()
    blocks = GGUFWriter(os.path.join(outdir, "blocks.gguf"))
    expected = GGUFWriter(os.path.join(outdir, "blocks_expected.gguf"), alignment=64)
    _common_meta(blocks)
    _common_meta(expected)
    for name, ne, type_name, raw in cases:
        blocks.add_tensor(name, ne, type_name, raw)
        values = ggml_blocks.dequantize(type_name, raw, int(np.prod(ne)))
        expected.add_tensor(name, ne, "F32", values.astype("<f4").tobytes())
    blocks.write()
    expected.write()
    return cases


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    cases = write_cases(argv[1])
    print(f"ggml_blocks_cases: wrote {len(cases)} tensors for {len(TYPE_ORDER)} types "
          f"to {argv[1]}/blocks.gguf and blocks_expected.gguf")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
