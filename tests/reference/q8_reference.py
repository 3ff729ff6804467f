"""Independent numpy reference for llama.cpp's 8-bit-activation product on CPU (issue 32).

Written from ggml's C sources (never from AttnScope's C++):
  src/ggml-cpu/arch/x86/quants.c  quantize_row_q8_0: the AVX path every x86 build with AVX runs
        (d = amax/127 stored as f16, id = 127/amax, x*id rounded to nearest with ties to EVEN by
        _mm256_round_ps, then _mm256_cvtps_epi32 and two saturating packs: NaN and values outside
        int32 become -128). ggml-quants.c's quantize_row_q8_0_ref differs (id = 1/d, roundf with
        ties away from zero); test_rows() include ties that tell the two apart.
  src/ggml-quants.c  quantize_row_q8_K_ref (x86's quantize_row_q8_K calls it): the first value of
        largest |x| is `max`, iscale = -127/max, codes = MIN(127, nearest_int(iscale*x)) stored to
        int8 (C's modular conversion), bsums = sums of 16 codes, d = 1/iscale (float32). An
        all-zero block: d = 0, codes 0, and bsums left unwritten by ggml; written 0 here.
  src/ggml-cpu/quants.c  ggml_vec_dot_<type>_q8_<0|K>_generic: what the integer dot product of a
        weight block with an activation block is. Per block b of a weight row and an activation
        row: S = sum_g scale_g * sum_{k in g} code_k * a_k and, for Q2_K/Q4_K/Q5_K,
        M = sum_g min_g * sum_{k in g} a_k, exact integers; the value is d_w*d_x*S - dmin_w*d_x*M.
        dot_reference() sums that over the blocks in float64 (exactly, up to float64's rounding).
Weight codes come from ggml_blocks' bit tables (themselves checked against a build of ggml); the
signs and offsets of each type (Q4_0 -8, Q5_0 -16, Q3_K's hmask -4, Q6_K -32, Q3_K scales -32,
Q2_K's scale/min nibbles) are read off the vec_dot loops here.

Public API:
    quantize_q8_0(x) / quantize_q8_k(x): float32 [rows, K] -> uint8 [rows, blocks, 34 | 292]
    activation_ints(type, blocks) -> (codes int64 [rows, nb, E], d float64 [rows, nb])
    weight_ints(type, blocks) -> WeightInts (codes, scale, minimum, d, dmin), numpy int64/float64
    dot_reference(wtype, wblocks, ablocks) -> (value, magnitude, terms): float64 [n_act, n_w]
    ACTIVATION_TYPE[wtype]: "Q8_0" or "Q8_K"
"""

from typing import NamedTuple, Optional

import numpy as np

import ggml_blocks as gb

F32 = np.float32
ACTIVATION_TYPE = {"Q4_0": "Q8_0", "Q5_0": "Q8_0", "Q8_0": "Q8_0", "Q2_K": "Q8_K",
                   "Q3_K": "Q8_K", "Q4_K": "Q8_K", "Q5_K": "Q8_K", "Q6_K": "Q8_K"}


# ---------------------------------------------------------------- activations
def quantize_q8_0(x):
    """quantize_row_q8_0's AVX path, row by row: uint8 [rows, K/32, 34] (f16 d, 32 int8)."""
    x = np.asarray(x, dtype=F32)
    rows = x.shape[0]
    xb = x.reshape(-1, 32)
    amax = np.abs(xb).max(axis=1)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        d = (amax / F32(127.0)).astype(F32)
        inv = np.where(amax != 0, F32(127.0) / np.where(amax != 0, amax, F32(1)), F32(0))
        scaled = (xb * inv.astype(F32)[:, None]).astype(F32)
        rounded = np.rint(scaled)                       # ties to even
    fits = np.isfinite(rounded) & (rounded >= -2.0 ** 31) & (rounded < 2.0 ** 31)
    codes = np.where(fits, np.clip(np.where(fits, rounded, 0), -128, 127), -128).astype(np.int8)
    with np.errstate(over="ignore"):
        dh = d.astype("<f2")                            # nearest, ties to even; inf on overflow
    out = np.concatenate([dh.reshape(-1, 1).view(np.uint8), codes.view(np.uint8)], axis=1)
    return out.reshape(rows, -1, 34)


def _nearest_int(v):
    """ggml's nearest_int: (bits of v + 1.5*2^23) & 0x7fffff - 0x400000, in float32/int32."""
    shifted = (v + F32(12582912.0)).astype(F32)
    return (shifted.view(np.int32) & 0x007FFFFF) - 0x00400000


def quantize_q8_k(x):
    """quantize_row_q8_K_ref, row by row: uint8 [rows, K/256, 292] (f32 d, 256 int8, 16 int16)."""
    x = np.asarray(x, dtype=F32)
    rows = x.shape[0]
    xb = x.reshape(-1, 256)
    ax = np.abs(xb)
    first = np.argmax(ax, axis=1)                       # first of the largest, as `ax > amax`
    top = xb[np.arange(len(xb)), first]
    zero = ax.max(axis=1) == 0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        iscale = (F32(-127.0) / np.where(zero, F32(1), top)).astype(F32)
        scaled = (iscale[:, None] * xb).astype(F32)
        codes = np.minimum(127, _nearest_int(scaled))
        d = (F32(1.0) / iscale).astype(F32)
    codes = (codes & 0xFF).astype(np.uint8).view(np.int8)   # int -> int8_t wraps, as in C
    codes[zero] = 0
    d[zero] = 0
    bsums = codes.astype(np.int64).reshape(-1, 16, 16).sum(axis=2).astype("<i2")
    out = np.concatenate([d.astype("<f4").reshape(-1, 1).view(np.uint8), codes.view(np.uint8),
                          bsums.view(np.uint8)], axis=1)
    return out.reshape(rows, -1, 292)


def quantize_activations(type_name, x):
    return quantize_q8_0(x) if type_name == "Q8_0" else quantize_q8_k(x)


def activation_ints(type_name, blocks):
    """codes int64 [rows, nb, E] and d float64 [rows, nb] of Q8_0 / Q8_K activation blocks."""
    blocks = np.asarray(blocks, dtype=np.uint8)
    if type_name == "Q8_0":
        d = blocks[..., 0:2].copy().view("<f2")[..., 0].astype(np.float64)
        codes = blocks[..., 2:34].copy().view(np.int8)
    else:
        d = blocks[..., 0:4].copy().view("<f4")[..., 0].astype(np.float64)
        codes = blocks[..., 4:260].copy().view(np.int8)
    return codes.astype(np.int64), d


# ---------------------------------------------------------------- weights
class WeightInts(NamedTuple):
    codes: np.ndarray              # int64 [rows, nb, E]: the integer each weight is a multiple of
    scale: np.ndarray              # int64 [rows, nb, G]: per group (1 for the legacy types)
    minimum: Optional[np.ndarray]  # int64 [rows, nb, G] for Q2_K/Q4_K/Q5_K, else None
    d: np.ndarray                  # float64 [rows, nb]
    dmin: Optional[np.ndarray]     # float64 [rows, nb]


def _f16(b, off):
    return b[:, off:off + 2].copy().view("<f2")[:, 0].astype(np.float64)


def _k4_scale_min(s):
    """get_scale_min_k4 for j = 0..7 (ggml-quants.c), from the 12 scale bytes."""
    s = s.astype(np.int64)
    sc = [s[:, j] & 63 if j < 4 else (s[:, j + 4] & 0xF) | ((s[:, j - 4] >> 6) << 4)
          for j in range(8)]
    mn = [s[:, j + 4] & 63 if j < 4 else (s[:, j + 4] >> 4) | ((s[:, j] >> 6) << 4)
          for j in range(8)]
    return np.stack(sc, axis=1), np.stack(mn, axis=1)


def _q3_scales(s):
    """ggml_vec_dot_q3_K's kmask shuffle of the 12 scale bytes, then -32."""
    s = s.astype(np.int64)
    out = []
    for j in range(16):
        low = s[:, j] & 0xF if j < 8 else s[:, j - 8] >> 4
        high = (s[:, 8 + j % 4] >> (2 * (j // 4))) & 3
        out.append((low | (high << 4)) - 32)
    return np.stack(out, axis=1)


def _decode(type_name, b):
    """(codes [nb, E], scale [nb, G], minimum or None, d [nb], dmin or None) of blocks b."""
    g = gb._gather
    ones = np.ones((len(b), 1), dtype=np.int64)
    if type_name == "Q4_0":
        return g(b[:, 2:18], gb._NIB32, 0xF) - 8, ones, None, _f16(b, 0), None
    if type_name == "Q5_0":
        q = g(b[:, 6:22], gb._NIB32, 0xF) | (g(b[:, 2:6], gb._BIT32, 1) << 4)
        return q - 16, ones, None, _f16(b, 0), None
    if type_name == "Q8_0":
        return b[:, 2:34].view(np.int8), ones, None, _f16(b, 0), None
    if type_name == "Q2_K":
        sc = b[:, 0:16].astype(np.int64)
        return g(b[:, 16:80], gb._Q2QS, 3), sc & 0xF, sc >> 4, _f16(b, 80), _f16(b, 82)
    if type_name == "Q3_K":
        high = g(b[:, 0:32], gb._Q3HM, 1)
        q = g(b[:, 32:96], gb._Q2QS, 3) - np.where(high == 1, 0, 4)
        return q, _q3_scales(b[:, 96:108]), None, _f16(b, 108), None
    if type_name in ("Q4_K", "Q5_K"):
        sc, mn = _k4_scale_min(b[:, 4:16])
        if type_name == "Q4_K":
            q = g(b[:, 16:144], gb._Q4QS, 0xF)
        else:
            q = g(b[:, 48:176], gb._Q4QS, 0xF) | (g(b[:, 16:48], gb._Q5QH, 1) << 4)
        return q, sc, mn, _f16(b, 0), _f16(b, 2)
    if type_name == "Q6_K":
        q = (g(b[:, 0:128], gb._Q6QL, 0xF) | (g(b[:, 128:192], gb._Q6QH, 3) << 4)) - 32
        return q, b[:, 192:208].view(np.int8), None, _f16(b, 208), None
    raise ValueError(f"{type_name}: no 8-bit dot product")


def weight_ints(type_name, blocks):
    """The integers and scales of weight rows: blocks uint8 [rows, nb, type_size]."""
    blocks = np.ascontiguousarray(blocks, dtype=np.uint8)
    rows, nb, _ = blocks.shape
    codes, scale, minimum, d, dmin = _decode(type_name, blocks.reshape(rows * nb, -1))

    def shaped(v, dtype):
        return None if v is None else np.asarray(v).astype(dtype).reshape(rows, nb, -1)

    return WeightInts(shaped(codes, np.int64), shaped(scale, np.int64), shaped(minimum, np.int64),
                      d.reshape(rows, nb), None if dmin is None else dmin.reshape(rows, nb))


# ---------------------------------------------------------------- dot products
def dot_reference(weight_type, wblocks, ablocks):
    """Every weight row . every activation row, as the exact sum over blocks of
    d_w*d_x*S - dmin_w*d_x*M in float64. Returns value [n_act, n_w], magnitude (the same sum of
    absolute terms) and the number of terms per output (blocks, twice with a minimum)."""
    w = weight_ints(weight_type, wblocks)
    a, dx = activation_ints(ACTIVATION_TYPE[weight_type], ablocks)
    groups = w.scale.shape[2]
    elems = w.codes.shape[2]
    wg = w.codes.reshape(*w.codes.shape[:2], groups, elems // groups)
    ag = a.reshape(*a.shape[:2], groups, elems // groups)
    per_group = np.einsum("rbgk,cbgk->crbg", wg, ag)             # int64, exact
    s = np.einsum("crbg,rbg->crb", per_group, w.scale)
    terms = dx[:, None, :] * w.d[None, :, :] * s.astype(np.float64)
    value = terms.sum(axis=2)
    magnitude = np.abs(terms).sum(axis=2)
    count = w.d.shape[1]
    if w.minimum is not None:
        m = np.einsum("cbg,rbg->crb", ag.sum(axis=3), w.minimum)
        mterms = dx[:, None, :] * w.dmin[None, :, :] * m.astype(np.float64)
        value = value - mterms.sum(axis=2)
        magnitude = magnitude + np.abs(mterms).sum(axis=2)
        count *= 2
    return value, magnitude, count
