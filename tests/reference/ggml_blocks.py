"""Independent numpy reference for ggml's block formats (GGUF tensor types), issue 32.

Written from ggml's src/ggml-common.h (block layouts), src/ggml-quants.c (`dequantize_row_*`)
and docs/gguf.md (type ids); it shares no code with AttnScope's C++ loader, which is checked
against it bit for bit.

Bit identity: every arithmetic step of the C loops is done here as one numpy float32 operation,
so each product/sum is rounded to float32 separately, exactly like the C source compiled without
FMA contraction. E.g. Q4_1 `x0*d + m` is `(q*d) + m`, Q4_K `d1 = d*sc; m1 = min*m; d1*q - m1`,
Q6_K `d*sc*q` is `(d*sc)*q`. Integers are converted to float32 first (exact: all are < 2^24).
FP16 -> FP32 is numpy's exact widening (denormals, +-0 and +-inf preserved); BF16 is the top
half of an fp32; Q8_K's d is a float32.

Public API:
    TYPES[name] -> BlockType(name, type_id, block_size, type_size); TYPE_BY_ID[id] -> BlockType
    tensor_nbytes(type_name, ne) -> bytes a tensor of shape ne (ggml order) occupies
    dequantize(type_name, raw: bytes, n_elements) -> float32 ndarray of n_elements
    quantize(type_name, values) -> bytes (valid blocks; round-to-nearest, NOT ggml's quantizer;
        block-format types need finite values whose f16 scales fit: |values| below ~1e5)
    quant_error_bound(type_name, values) -> per-element bound on |dequantize(quantize(v)) - v|
Element order is ggml's: n_elements = ne[0]*ne[1]*..., rows of ne[0] values, each row a whole
number of blocks.
"""

from typing import NamedTuple

import numpy as np


class BlockType(NamedTuple):
    name: str
    type_id: int     # ggml_type enum value (docs/gguf.md)
    block_size: int  # elements per block
    type_size: int   # bytes per block


QK_K = 256
TYPES = {t.name: t for t in (
    BlockType("F32", 0, 1, 4),
    BlockType("F16", 1, 1, 2),
    BlockType("Q4_0", 2, 32, 2 + 16),
    BlockType("Q4_1", 3, 32, 2 + 2 + 16),
    BlockType("Q5_0", 6, 32, 2 + 4 + 16),
    BlockType("Q5_1", 7, 32, 2 + 2 + 4 + 16),
    BlockType("Q8_0", 8, 32, 2 + 32),
    BlockType("Q2_K", 10, QK_K, 16 + 64 + 2 + 2),
    BlockType("Q3_K", 11, QK_K, 32 + 64 + 12 + 2),
    BlockType("Q4_K", 12, QK_K, 2 + 2 + 12 + 128),
    BlockType("Q5_K", 13, QK_K, 2 + 2 + 12 + 32 + 128),
    BlockType("Q6_K", 14, QK_K, 128 + 64 + 16 + 2),
    BlockType("Q8_K", 15, QK_K, 4 + 256 + 32),
    BlockType("BF16", 30, 1, 2),
)}
TYPE_BY_ID = {t.type_id: t for t in TYPES.values()}
F32 = np.float32


def tensor_nbytes(type_name, ne):
    """Bytes of a contiguous tensor: rows of ne[0] elements, ne[0] a multiple of the block."""
    t = TYPES[type_name]
    n = int(np.prod([int(v) for v in ne], dtype=np.int64)) if len(ne) else 1
    if ne and int(ne[0]) % t.block_size:
        raise ValueError(f"{type_name}: ne[0]={ne[0]} not a multiple of {t.block_size}")
    return n // t.block_size * t.type_size


# ---------------------------------------------------------------- bit-field tables
# Each quant field is described per element e of a block by (byte index, bit shift) into the
# field's bytes; the same table unpacks (gather) and packs (scatter), so both stay consistent.
def _table(byte, shift):
    return np.asarray(byte, dtype=np.intp), np.asarray(shift, dtype=np.uint8)


_E32 = np.arange(32)
_NIB32 = _table(_E32 % 16, 4 * (_E32 // 16))     # Q4_0/Q4_1/Q5_x qs: e<16 low nibble of byte e
_BIT32 = _table(_E32 // 8, _E32 % 8)             # Q5_x qh: bit e of the little-endian u32
_E = np.arange(QK_K)
_H, _P = _E // 128, _E % 128                     # Q2_K/Q3_K/Q6_K work in halves of 128
_Q2QS = _table(32 * _H + _P % 32, 2 * (_P // 32))    # Q2_K/Q3_K qs: 2 bits, shift 2j
_Q3HM = _table(_P % 32, 4 * _H + _P // 32)           # Q3_K hmask: bit (4*half + j)
_C, _R = _E // 64, _E % 64                       # Q4_K/Q5_K work in chunks of 64
_Q4QS = _table(32 * _C + _R % 32, 4 * (_R // 32))    # low nibble first 32, high nibble next 32
_Q5QH = _table(_R % 32, 2 * _C + _R // 32)           # Q5_K qh: bit u1/u2 = 2c / 2c+1
_G, _L = _P // 32, _P % 32
_Q6QL = _table(64 * _H + _L + 32 * (_G & 1), 4 * (_G >> 1))
_Q6QH = _table(32 * _H + _L, 2 * _G)


def _gather(field, table, mask):
    """Unpack: value of element e = (field[:, byte[e]] >> shift[e]) & mask, as int32."""
    byte, shift = table
    return ((field[:, byte] >> shift) & mask).astype(np.int32)


def _scatter(values, table, nbytes):
    """Pack: inverse of _gather; elements sharing a shift never share a byte, so |= is safe."""
    byte, shift = table
    out = np.zeros((values.shape[0], nbytes), dtype=np.uint8)
    v = values.astype(np.uint8)
    for s in np.unique(shift):
        sel = shift == s
        out[:, byte[sel]] |= (v[:, sel] << s).astype(np.uint8)
    return out


def _f16(blocks, off):
    """A ggml_half field at byte `off` of every block, widened exactly to float32, shape (nb,1)."""
    return blocks[:, off:off + 2].copy().view("<f2").astype(F32)


def _f32q(q):
    return q.astype(F32)


# ---------------------------------------------------------------- dequantizers (per block)
def _deq_q4_0(b):
    d = _f16(b, 0)
    return _f32q(_gather(b[:, 2:18], _NIB32, 0xF) - 8) * d


def _deq_q4_1(b):
    d, m = _f16(b, 0), _f16(b, 2)
    return _f32q(_gather(b[:, 4:20], _NIB32, 0xF)) * d + m


def _q5(qh, qs):
    return _gather(qs, _NIB32, 0xF) | (_gather(qh, _BIT32, 1) << 4)


def _deq_q5_0(b):
    d = _f16(b, 0)
    return _f32q(_q5(b[:, 2:6], b[:, 6:22]) - 16) * d


def _deq_q5_1(b):
    d, m = _f16(b, 0), _f16(b, 2)
    return _f32q(_q5(b[:, 4:8], b[:, 8:24])) * d + m


def _deq_q8_0(b):
    return _f32q(b[:, 2:34].view(np.int8)) * _f16(b, 0)


def _per_sub(v, n):
    """Repeat per-sub-block values over the n elements of each sub-block."""
    return np.repeat(v, n, axis=1)


def _deq_q2_k(b):
    sc = b[:, 0:16]
    d, dmin = _f16(b, 80), _f16(b, 82)
    dl = d * _f32q(sc & 0xF)
    ml = dmin * _f32q(sc >> 4)
    q = _f32q(_gather(b[:, 16:80], _Q2QS, 3))
    return _per_sub(dl, 16) * q - _per_sub(ml, 16)


def _unpack_q3_scales(s):
    """12 bytes -> 16 six-bit scales: low nibbles in bytes 0..7, high 2 bits in bytes 8..11."""
    lo = np.concatenate([s[:, 0:8] & 0xF, s[:, 0:8] >> 4], axis=1)
    hi = np.concatenate([(s[:, 8:12] >> k) & 3 for k in (0, 2, 4, 6)], axis=1)
    return lo.astype(np.int32) | (hi.astype(np.int32) << 4)


def _pack_q3_scales(v):
    v = v.astype(np.uint8)
    out = np.zeros((v.shape[0], 12), dtype=np.uint8)
    out[:, 0:8] = (v[:, 0:8] & 0xF) | ((v[:, 8:16] & 0xF) << 4)
    for k in range(4):
        out[:, 8:12] |= ((v[:, 4 * k:4 * k + 4] >> 4) << (2 * k)).astype(np.uint8)
    return out


def _deq_q3_k(b):
    d = _f16(b, 108)
    dl = d * _f32q(_unpack_q3_scales(b[:, 96:108]) - 32)
    q = _gather(b[:, 32:96], _Q2QS, 3) - 4 * (1 - _gather(b[:, 0:32], _Q3HM, 1))
    return _per_sub(dl, 16) * _f32q(q)


def _unpack_k4_scales(s):
    """get_scale_min_k4 for j = 0..7: 6-bit (scale, min) pairs packed into 12 bytes."""
    s = s.astype(np.int32)
    sc = np.concatenate([s[:, 0:4] & 63, (s[:, 8:12] & 0xF) | ((s[:, 0:4] >> 6) << 4)], axis=1)
    mn = np.concatenate([s[:, 4:8] & 63, (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)], axis=1)
    return sc, mn


def _pack_k4_scales(sc, mn):
    sc, mn = sc.astype(np.uint8), mn.astype(np.uint8)
    out = np.zeros((sc.shape[0], 12), dtype=np.uint8)
    out[:, 0:4] = (sc[:, 0:4] & 63) | ((sc[:, 4:8] >> 4) << 6)
    out[:, 4:8] = (mn[:, 0:4] & 63) | ((mn[:, 4:8] >> 4) << 6)
    out[:, 8:12] = (sc[:, 4:8] & 0xF) | ((mn[:, 4:8] & 0xF) << 4)
    return out


def _deq_k4(b, q):
    d, dmin = _f16(b, 0), _f16(b, 2)
    sc, mn = _unpack_k4_scales(b[:, 4:16])
    d1 = d * _f32q(sc)
    m1 = dmin * _f32q(mn)
    return _per_sub(d1, 32) * _f32q(q) - _per_sub(m1, 32)


def _deq_q4_k(b):
    return _deq_k4(b, _gather(b[:, 16:144], _Q4QS, 0xF))


def _deq_q5_k(b):
    q = _gather(b[:, 48:176], _Q4QS, 0xF) + 16 * _gather(b[:, 16:48], _Q5QH, 1)
    return _deq_k4(b, q)


def _deq_q6_k(b):
    q = (_gather(b[:, 0:128], _Q6QL, 0xF) | (_gather(b[:, 128:192], _Q6QH, 3) << 4)) - 32
    dsc = _f16(b, 208) * _f32q(b[:, 192:208].view(np.int8))
    return _per_sub(dsc, 16) * _f32q(q)


def _deq_q8_k(b):
    d = b[:, 0:4].copy().view("<f4").astype(F32)
    with np.errstate(over="ignore"):   # a huge float32 d overflows to +-inf, as in C
        return d * _f32q(b[:, 4:260].view(np.int8))


def _deq_float(name, raw):
    if name == "F32":
        return np.frombuffer(raw, dtype="<f4").astype(F32)
    if name == "F16":
        return np.frombuffer(raw, dtype="<f2").astype(F32)
    bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16  # BF16
    return bits.view(F32)


_DEQUANT = {
    "Q4_0": _deq_q4_0, "Q4_1": _deq_q4_1, "Q5_0": _deq_q5_0, "Q5_1": _deq_q5_1,
    "Q8_0": _deq_q8_0, "Q2_K": _deq_q2_k, "Q3_K": _deq_q3_k, "Q4_K": _deq_q4_k,
    "Q5_K": _deq_q5_k, "Q6_K": _deq_q6_k, "Q8_K": _deq_q8_k,
}


def dequantize(type_name, raw, n_elements):
    """ggml's dequantize_row_<type> over n_elements (a whole number of blocks) -> float32."""
    t = TYPES[type_name]
    n_elements = int(n_elements)
    if n_elements % t.block_size:
        raise ValueError(f"{type_name}: {n_elements} elements is not whole blocks")
    nbytes = n_elements // t.block_size * t.type_size
    raw = bytes(raw) if not isinstance(raw, (bytes, bytearray, memoryview)) else raw
    if len(raw) < nbytes:
        raise ValueError(f"{type_name}: need {nbytes} bytes, got {len(raw)}")
    raw = memoryview(raw)[:nbytes]
    if t.block_size == 1:
        return _deq_float(type_name, raw)
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, t.type_size)
    return _DEQUANT[type_name](blocks).reshape(-1).astype(F32, copy=False)


# ---------------------------------------------------------------- quantizers
# Straightforward round-to-nearest. Scales are rounded to f16 *upwards* (one ulp bump when
# rounding went down), so integer codes never need clipping and |error| <= step/2 holds.
def _f16_round(x, direction):
    """float64 -> float16 nearest; direction +1 never below x, -1 never above x."""
    x = np.clip(np.asarray(x, dtype=np.float64), -65504.0, 65504.0)
    h = x.astype(np.float16)
    with np.errstate(over="ignore"):
        if direction > 0:
            h = np.where(h.astype(np.float64) < x, np.nextafter(h, np.float16(np.inf)), h)
        elif direction < 0:
            h = np.where(h.astype(np.float64) > x, np.nextafter(h, np.float16(-np.inf)), h)
    return np.clip(h, np.float16(-65504), np.float16(65504)).astype(np.float16)


def _f16_bytes(h):
    return np.ascontiguousarray(h.astype("<f2")).reshape(-1, 1).view(np.uint8)


def _codes(x, step, lo, hi, offset=0.0):
    """round((x + offset) / step) clipped to [lo, hi]; 0 where the step is 0."""
    safe = np.where(step > 0, step, 1.0)
    q = np.rint((x + offset) / safe)
    return np.clip(np.where(step > 0, q, 0), lo, hi).astype(np.int32)


def _sym_block(x, qlo, qhi):
    """One f16 scale per 32 values, codes in [qlo, qhi] (qlo = -qhi-1)."""
    d = _f16_round(np.abs(x).max(axis=1, keepdims=True) / (qhi + 0.5), +1)
    return d, _codes(x, d.astype(np.float64), qlo, qhi)


def _asym_block(x, levels):
    """f16 scale d and min m per 32 values: x ~ q*d + m, q in [0, levels]."""
    m = _f16_round(x.min(axis=1, keepdims=True), -1)
    d = _f16_round((x.max(axis=1, keepdims=True) - m.astype(np.float64)) / levels, +1)
    return d, m, _codes(x, d.astype(np.float64), 0, levels, -m.astype(np.float64))


def _q5_fields(q):
    return _scatter(q >> 4, _BIT32, 4), _scatter(q & 0xF, _NIB32, 16)


def _q_legacy(name, x):
    x = x.reshape(-1, 32)
    if name in ("Q4_1", "Q5_1"):
        d, m, q = _asym_block(x, 15 if name == "Q4_1" else 31)
        head = [_f16_bytes(d), _f16_bytes(m)]
        body = [_scatter(q, _NIB32, 16)] if name == "Q4_1" else list(_q5_fields(q))
        return np.concatenate(head + body, axis=1)
    qhi = {"Q4_0": 7, "Q5_0": 15, "Q8_0": 127}[name]
    d, q = _sym_block(x, -qhi - 1, qhi)
    if name == "Q4_0":
        body = [_scatter(q + 8, _NIB32, 16)]
    elif name == "Q5_0":
        body = list(_q5_fields(q + 16))
    else:
        body = [q.astype(np.int8).view(np.uint8)]
    return np.concatenate([_f16_bytes(d)] + body, axis=1)


def _ceil_ratio(num, den, smax):
    """ceil(num / den) clipped to [0, smax] (0 where den is 0): the integer sub-block scale or
    min, rounded up so that its product with den covers num and no code needs clipping."""
    safe = np.where(den > 0, den, 1.0)
    return np.clip(np.ceil(np.where(den > 0, num / safe, 0.0)), 0, smax)


def _k_asym(x, nsub, qmax, smax):
    """Super-block x ~ (d*sc_s)*q - dmin*m_s with sub-block mins clamped to <= 0 (so m_s >= 0)."""
    xs = x.reshape(x.shape[0], nsub, -1)
    neg_min = -np.minimum(xs.min(axis=2), 0.0)
    dmin = _f16_round(neg_min.max(axis=1, keepdims=True) / smax, +1)
    dmin64 = dmin.astype(np.float64)
    m = _ceil_ratio(neg_min, dmin64, smax)
    off = dmin64 * m
    step = (xs.max(axis=2) + off) / qmax
    d = _f16_round(step.max(axis=1, keepdims=True) / smax, +1)
    d64 = d.astype(np.float64)
    sc = _ceil_ratio(step, d64, smax)
    q = _codes(xs, (d64 * sc)[:, :, None], 0, qmax, off[:, :, None])
    return d, dmin, sc.astype(np.int32), m.astype(np.int32), q.reshape(x.shape)


def _k_sym(x, nsub, qlo, qhi, smax):
    """Super-block x ~ (d*sc_s)*q with sc_s in [0, smax], q in [qlo, qhi]."""
    xs = x.reshape(x.shape[0], nsub, -1)
    step = np.abs(xs).max(axis=2) / (qhi + 0.5)
    d = _f16_round(step.max(axis=1, keepdims=True) / smax, +1)
    d64 = d.astype(np.float64)
    sc = _ceil_ratio(step, d64, smax)
    q = _codes(xs, (d64 * sc)[:, :, None], qlo, qhi)
    return d, sc.astype(np.int32), q.reshape(x.shape)


def _q_k(name, x):
    x = x.reshape(-1, QK_K)
    if name == "Q2_K":
        d, dmin, sc, m, q = _k_asym(x, 16, 3, 15)
        parts = [(sc | (m << 4)).astype(np.uint8), _scatter(q, _Q2QS, 64),
                 _f16_bytes(d), _f16_bytes(dmin)]
    elif name in ("Q4_K", "Q5_K"):
        d, dmin, sc, m, q = _k_asym(x, 8, 15 if name == "Q4_K" else 31, 63)
        parts = [_f16_bytes(d), _f16_bytes(dmin), _pack_k4_scales(sc, m)]
        if name == "Q5_K":
            parts.append(_scatter(q >> 4, _Q5QH, 32))
        parts.append(_scatter(q & 0xF, _Q4QS, 128))
    elif name == "Q3_K":
        d, sc, q = _k_sym(x, 16, -4, 3, 31)
        q = q + 4
        parts = [_scatter(q >> 2, _Q3HM, 32), _scatter(q & 3, _Q2QS, 64),
                 _pack_q3_scales(sc + 32), _f16_bytes(d)]
    elif name == "Q6_K":
        d, sc, q = _k_sym(x, 16, -32, 31, 127)
        q = q + 32
        parts = [_scatter(q & 0xF, _Q6QL, 128), _scatter(q >> 4, _Q6QH, 64),
                 sc.astype(np.int8).view(np.uint8), _f16_bytes(d)]
    else:  # Q8_K: float32 d, bsums = sums of 16 codes (unused by dequantization, kept valid)
        amax = np.abs(x).max(axis=1, keepdims=True)
        d = (amax / 127.5).astype(F32)
        d = np.where(d.astype(np.float64) * 127.5 < amax, np.nextafter(d, F32(np.inf)), d)
        q = _codes(x, d.astype(np.float64), -128, 127)
        bsums = q.reshape(-1, 16, 16).sum(axis=2).astype("<i2")
        parts = [d.astype("<f4").view(np.uint8), q.astype(np.int8).view(np.uint8),
                 bsums.view(np.uint8)]
    return np.concatenate(parts, axis=1)


def _f32_to_bf16(x):
    """Round-to-nearest-even to bf16 bits (NaN kept quiet), like ggml's fp32 -> bf16."""
    u = x.astype(F32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return np.where(nan, (u >> 16) | 64, r).astype("<u2")


def quantize(type_name, values):
    """values (any shape, size a multiple of the block) -> raw bytes of valid blocks."""
    t = TYPES[type_name]
    x = np.asarray(values, dtype=F32).reshape(-1)
    if x.size % t.block_size:
        raise ValueError(f"{type_name}: {x.size} values is not whole blocks of {t.block_size}")
    if type_name == "F32":
        return x.astype("<f4").tobytes()
    if type_name == "F16":
        return x.astype("<f2").tobytes()
    if type_name == "BF16":
        return _f32_to_bf16(x).tobytes()
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{type_name}: quantizing needs finite values")
    x64 = x.astype(np.float64)
    blocks = _q_k(type_name, x64) if t.block_size == QK_K else _q_legacy(type_name, x64)
    assert blocks.shape[1] == t.type_size, (type_name, blocks.shape)
    return np.ascontiguousarray(blocks, dtype=np.uint8).tobytes()


# Max |error| of quantize() as a fraction of each block's |value| max (asymmetric types: of
# max - min(min, 0) .. see _bound_base), with 1% slack for the f16 rounding of the scales.
_STEP_FRACTION = {
    "Q8_0": 1 / 127.5, "Q4_0": 1 / 7.5, "Q5_0": 1 / 15.5, "Q8_K": 1 / 127.5,
    "Q4_1": 1 / 15, "Q5_1": 1 / 31,
    "Q3_K": (1 + 1 / 31) / 3.5, "Q6_K": (1 + 1 / 127) / 31.5,
    "Q2_K": (1 + 1 / 15) * (1 + 1 / 15) / 3, "Q4_K": (1 + 1 / 63) * (1 + 1 / 63) / 15,
    "Q5_K": (1 + 1 / 63) * (1 + 1 / 63) / 31,
}


def quant_error_bound(type_name, values):
    """Per-element bound on |dequantize(quantize(values)) - values| (float64 array)."""
    t = TYPES[type_name]
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if type_name == "F32":
        return np.zeros_like(x)
    if type_name in ("F16", "BF16"):
        rel = 2.0 ** -11 if type_name == "F16" else 2.0 ** -8
        return np.maximum(np.abs(x) * rel, 2.0 ** -25 if type_name == "F16" else 0.0)
    xb = x.reshape(-1, t.block_size)
    if type_name in ("Q4_1", "Q5_1"):
        base = xb.max(axis=1) - xb.min(axis=1) + np.abs(xb).max(axis=1) * 2.0 ** -10
    elif type_name in ("Q2_K", "Q4_K", "Q5_K"):
        base = xb.max(axis=1) - np.minimum(xb.min(axis=1), 0.0)
    else:
        base = np.abs(xb).max(axis=1)
    bound = 0.5 * _STEP_FRACTION[type_name] * base * 1.01 + 1e-30
    return np.repeat(bound, t.block_size)
