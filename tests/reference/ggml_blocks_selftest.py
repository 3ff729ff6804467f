#!/usr/bin/python3
"""Self-checks of the ggml block reference and the GGUF writer/reader (issue 32).

Does not use AttnScope. Checks:
  known-values   hand-built blocks per type whose values are worked out here from the formats
  scalar-port    an element-by-element transliteration of ggml's dequantize_row_* loops (own
                 f16 decoding, float32 scalar ops) agrees BIT FOR BIT with the vectorised
                 dequantize() on every tensor of ggml_blocks_cases (random + edge scales)
  round-trip     quantize -> dequantize error within quant_error_bound on random data
  gguf-bytes     a tiny file matches bytes assembled by hand from docs/gguf.md
  gguf-roundtrip writer -> reader of every metadata type and every tensor type, alignments
  cases          ggml_blocks_cases writes deterministic files whose expected tensors re-read
Exit 0 on success; one summary line per check.
"""

import math
import os
import struct
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggml_blocks as gb  # noqa: E402
import ggml_blocks_cases as gc  # noqa: E402
from gguf_file import GGUFWriter, read_gguf  # noqa: E402

F = np.float32


def h2f(bits):
    """IEEE half bits -> float32, decoded by hand (not via numpy's float16)."""
    sign = -1.0 if bits & 0x8000 else 1.0
    e, m = (bits >> 10) & 31, bits & 1023
    if e == 31:
        return F(sign * math.inf) if m == 0 else F(math.nan)
    return F(sign * math.ldexp(m if e == 0 else 1024 + m, (e or 1) - 25))


def half(v):
    """float -> its half bits (exact values only), little-endian bytes."""
    return np.array([v], dtype="<f2").tobytes()


# ------------------------------------------------------------------ scalar transliteration
def _u16(b, off):
    return h2f(b[off] | (b[off + 1] << 8))


def _legacy(name, b):
    d = _u16(b, 0)
    m = _u16(b, 2) if name in ("Q4_1", "Q5_1") else None
    if name == "Q8_0":
        return [F(v) * d for v in struct.unpack("<32b", b[2:34])]
    qs = b[{"Q4_0": 2, "Q4_1": 4, "Q5_0": 6, "Q5_1": 8}[name]:]
    qh = 0
    if name in ("Q5_0", "Q5_1"):
        qh = struct.unpack("<I", b[2:6] if name == "Q5_0" else b[4:8])[0]
    y = [None] * 32
    for j in range(16):
        x0, x1 = qs[j] & 0x0F, qs[j] >> 4
        x0 |= ((qh >> j) << 4) & 0x10
        x1 |= (qh >> (j + 12)) & 0x10
        if m is None:
            off = 8 if name == "Q4_0" else 16
            y[j], y[j + 16] = F(x0 - off) * d, F(x1 - off) * d
        else:
            y[j], y[j + 16] = F(x0) * d + m, F(x1) * d + m
    return y


def _q2k(b):
    sc, q, d, mn = b[0:16], b[16:80], _u16(b, 80), _u16(b, 82)
    y, i = [], 0
    for n in range(2):
        for j in range(4):
            for half_ in range(2):
                s = sc[i]
                i += 1
                dl, ml = d * F(s & 0xF), mn * F(s >> 4)
                for l in range(16):
                    y.append(dl * F((q[32 * n + 16 * half_ + l] >> (2 * j)) & 3) - ml)
    return y


def _q3k(b):
    hm, q, d = b[0:32], b[32:96], _u16(b, 108)
    aux = list(struct.unpack("<3I", b[96:108])) + [0]
    k1, k2, tmp = 0x03030303, 0x0F0F0F0F, aux[2]
    aux[2] = ((aux[0] >> 4) & k2) | (((tmp >> 4) & k1) << 4)
    aux[3] = ((aux[1] >> 4) & k2) | (((tmp >> 6) & k1) << 4)
    aux[0] = (aux[0] & k2) | (((tmp >> 0) & k1) << 4)
    aux[1] = (aux[1] & k2) | (((tmp >> 2) & k1) << 4)
    scales = struct.unpack("<16b", struct.pack("<4I", *aux))
    y, i, bit = [], 0, 1
    for n in range(2):
        for j in range(4):
            for half_ in range(2):
                dl = d * F(scales[i] - 32)
                i += 1
                for l in range(16):
                    k = 16 * half_ + l
                    qv = ((q[32 * n + k] >> (2 * j)) & 3) - (0 if hm[k] & bit else 4)
                    y.append(dl * F(qv))
            bit <<= 1
    return y


def _scale_min_k4(j, q):
    if j < 4:
        return q[j] & 63, q[j + 4] & 63
    return (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4)


def _q45k(b, five):
    d, mn, sc = _u16(b, 0), _u16(b, 2), b[4:16]
    qh, ql = (b[16:48], b[48:176]) if five else (None, b[16:144])
    y = []
    for c in range(4):
        for nib in range(2):
            s, m = _scale_min_k4(2 * c + nib, sc)
            d1, m1 = d * F(s), mn * F(m)
            for l in range(32):
                v = (ql[32 * c + l] >> (4 * nib)) & 0xF
                if five and qh[l] & (1 << (2 * c + nib)):
                    v += 16
                y.append(d1 * F(v) - m1)
    return y


def _q6k(b):
    d = _u16(b, 208)
    sc = struct.unpack("<16b", b[192:208])
    y = [None] * 256
    for n in range(2):
        ql, qh = b[64 * n:64 * n + 64], b[128 + 32 * n:128 + 32 * n + 32]
        for l in range(32):
            qs = [(ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4),
                  (ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4),
                  (ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4),
                  (ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)]
            for g in range(4):
                y[128 * n + 32 * g + l] = d * F(sc[8 * n + l // 16 + 2 * g]) * F(qs[g] - 32)
    return y


def scalar_dequantize(name, raw):
    if name == "F32":
        return [F(v) for v in struct.unpack("<%df" % (len(raw) // 4), raw)]
    if name in ("F16", "BF16"):
        bits = struct.unpack("<%dH" % (len(raw) // 2), raw)
        if name == "F16":
            return [h2f(v) for v in bits]
        return [F(struct.unpack("<f", struct.pack("<I", v << 16))[0]) for v in bits]
    t = gb.TYPES[name]
    out = []
    for i in range(0, len(raw), t.type_size):
        b = raw[i:i + t.type_size]
        if t.block_size == 32:
            out += _legacy(name, b)
        elif name == "Q8_K":
            d = F(struct.unpack("<f", b[0:4])[0])
            out += [d * F(v) for v in struct.unpack("<256b", b[4:260])]
        else:
            out += {"Q2_K": _q2k, "Q3_K": _q3k, "Q4_K": lambda x: _q45k(x, False),
                    "Q5_K": lambda x: _q45k(x, True), "Q6_K": _q6k}[name](b)
    return out


def bits_equal(a, b):
    a, b = np.asarray(a, dtype=F), np.asarray(b, dtype=F)
    return a.shape == b.shape and bool(np.all(a.view(np.uint32) == b.view(np.uint32)))


def check_scalar_port():
    n = 0
    with np.errstate(all="ignore"):
        for name, ne, type_name, raw in gc.build_cases():
            want = scalar_dequantize(type_name, raw)
            got = gb.dequantize(type_name, raw, int(np.prod(ne)))
            assert all(type(v) is F for v in want), f"{name}: scalar port left float32"
            assert bits_equal(got, want), f"{name}: vectorised != scalar port"
            n += len(want)
    return f"{n} elements of {len(gc.TYPE_ORDER) * 2} case tensors bit-identical"


# ------------------------------------------------------------------ hand-built blocks
def _known_blocks():
    """[(type, raw bytes, expected float32 values)] worked out by hand from ggml-common.h."""
    cases = []
    vals = [1.5, -0.0, 2.0 ** -149, -np.inf]
    cases.append(("F32", struct.pack("<4f", *vals), vals))
    cases.append(("F16", struct.pack("<4H", 0x3C00, 0x0001, 0xFC00, 0x8000),
                  [1.0, 2.0 ** -24, -np.inf, -0.0]))
    cases.append(("BF16", struct.pack("<3H", 0x3F80, 0xC040, 0x0001), [1.0, -3.0, 2.0 ** -133]))
    qs = bytes(j | ((15 - j) << 4) for j in range(16))   # element j: nibble j, element 16+j: 15-j
    nib = list(range(16)) + [15 - j for j in range(16)]
    cases.append(("Q4_0", half(0.5) + qs, [(n - 8) * 0.5 for n in nib]))
    cases.append(("Q4_1", half(0.25) + half(-1.0) + qs, [n * 0.25 - 1.0 for n in nib]))
    q5 = bytes(j | (j << 4) for j in range(16))   # nibble of elements j and j+16 is j
    hi = [(i >> 2) & 1 for i in range(32)]     # qh = 0xF0F0F0F0: bit i set iff (i//4) odd
    q5v = [(i % 16) + 16 * hi[i] for i in range(32)]
    qh = struct.pack("<I", 0xF0F0F0F0)
    cases.append(("Q5_0", half(1.0) + qh + q5, [v - 16 for v in q5v]))
    cases.append(("Q5_1", half(2.0) + half(0.5) + qh + q5, [v * 2.0 + 0.5 for v in q5v]))
    cases.append(("Q8_0", half(0.125) + struct.pack("<32b", *[8 * i - 128 for i in range(32)]),
                  [i - 16.0 for i in range(32)]))
    # Q2_K: sub-block s has scale s, min 15-s; every qs byte 0xE4 -> code j at shift 2j.
    sc2 = bytes((s % 16) | ((15 - s) << 4) for s in range(16))
    v2 = [(e // 16) * ((e % 128) // 32) - 0.5 * (15 - e // 16) for e in range(256)]
    cases.append(("Q2_K", sc2 + b"\xE4" * 64 + half(1.0) + half(0.5), v2))
    # Q3_K: 6-bit scales 4s+3 (low nibbles in bytes 0..7, top 2 bits in bytes 8..11),
    # codes j (qs 0xE4), hmask 0x0F: high bit set in the first 128 values, so -4 in the rest.
    v = [4 * s + 3 for s in range(16)]
    sc3 = bytes((v[i] & 15) | ((v[i + 8] & 15) << 4) for i in range(8))
    sc3 += bytes(sum(((v[4 * g + k] >> 4) & 3) << (2 * g) for g in range(4)) for k in range(4))
    v3 = [0.5 * (v[e // 16] - 32) * ((e % 128) // 32 - (0 if e < 128 else 4)) for e in range(256)]
    cases.append(("Q3_K", b"\x0F" * 32 + b"\xE4" * 64 + sc3 + half(0.5), v3))
    # Q4_K/Q5_K: scale/min pairs for j<4 and j>=4 (the latter split 4+2 bits), qs 0x5A:
    # low nibble 10 for the first 32 values of each 64, high nibble 5 for the next 32.
    sc, mn = [1, 2, 3, 63, 17, 33, 48, 5], [0, 7, 63, 9, 20, 44, 1, 62]
    k4 = bytes(sc[j] | ((sc[j + 4] >> 4) << 6) for j in range(4))
    k4 += bytes(mn[j] | ((mn[j + 4] >> 4) << 6) for j in range(4))
    k4 += bytes((sc[j + 4] & 15) | ((mn[j + 4] & 15) << 4) for j in range(4))
    code4 = [10 if e % 64 < 32 else 5 for e in range(256)]
    v4 = [F(F(sc[e // 32]) * code4[e]) - F(0.5 * mn[e // 32]) for e in range(256)]
    cases.append(("Q4_K", half(1.0) + half(0.5) + k4 + b"\x5A" * 128, v4))
    # Q5_K qh 0x55: bit 2c set -> +16 on the first 32 values of every chunk c.
    code5 = [c + (16 if e % 64 < 32 else 0) for e, c in enumerate(code4)]
    v5 = [F(F(0.25 * sc[e // 32]) * code5[e]) - F(0.5 * mn[e // 32]) for e in range(256)]
    cases.append(("Q5_K", half(0.25) + half(0.5) + k4 + b"\x55" * 32 + b"\x5A" * 128, v5))
    # Q6_K: scales s-8, ql 0x21, qh 0xE4 -> per 32-group g codes 1|0<<4, 1|1<<4, 2|2<<4, 2|3<<4.
    code6 = [1 - 32, 17 - 32, 34 - 32, 50 - 32]
    v6 = [0.25 * (e // 16 - 8) * code6[(e % 128) // 32] for e in range(256)]
    sc6 = struct.pack("<16b", *[s - 8 for s in range(16)])
    cases.append(("Q6_K", b"\x21" * 128 + b"\xE4" * 64 + sc6 + half(0.25), v6))
    q8k = [e - 128 for e in range(256)]
    sums = [sum(q8k[16 * g:16 * g + 16]) for g in range(16)]
    cases.append(("Q8_K", struct.pack("<f256b16h", 0.75, *q8k, *sums), [0.75 * q for q in q8k]))
    return cases


def check_known_values():
    cases = _known_blocks()
    for name, raw, want in cases:
        got = gb.dequantize(name, raw, len(want))
        assert bits_equal(got, want), f"{name}: got {got[:8]} want {np.asarray(want, F)[:8]}"
    assert sorted(n for n, _, _ in cases) == sorted(gb.TYPES), "a type has no hand-built block"
    sizes = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
             "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q2_K": (10, 256, 84),
             "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176),
             "Q6_K": (14, 256, 210), "Q8_K": (15, 256, 292), "BF16": (30, 1, 2)}
    for name, t in gb.TYPES.items():
        assert (t.type_id, t.block_size, t.type_size) == sizes[name], name
    return f"{len(cases)} hand-built blocks and the id/block/byte table match"


# ------------------------------------------------------------------ quantize round trip
def check_round_trip():
    rng = np.random.default_rng(7)
    worst = {}
    for name, t in gb.TYPES.items():
        n = max(t.block_size, 32) * 64
        x = rng.standard_normal(n) * np.repeat(np.exp2(rng.uniform(-8, 8, n // 32)), 32)
        x[: 2 * max(t.block_size, 32)] = 0.0              # all-zero blocks
        x[-t.block_size:] = 0.375 if t.block_size > 1 else x[-1]   # constant block
        x[n // 2:n // 2 + 256] = np.abs(x[n // 2:n // 2 + 256])   # positive-only blocks
        x = x.astype(F)
        raw = gb.quantize(name, x)
        assert len(raw) == gb.tensor_nbytes(name, [n]), name
        y = gb.dequantize(name, raw, n)
        err = np.abs(y.astype(np.float64) - x)
        bound = gb.quant_error_bound(name, x)
        assert np.all(np.isfinite(y)) and np.all(err <= bound), \
            f"{name}: error {err.max()} exceeds bound at {int(np.argmax(err - bound))}"
        assert np.all(y[:2 * max(t.block_size, 32)] == 0), f"{name}: zero block not exact"
        worst[name] = float(np.max(err / np.maximum(bound, 1e-300)))
    big = rng.standard_normal(1 << 20).astype(F)
    for name in ("Q4_K", "Q8_0"):
        assert np.all(np.abs(gb.dequantize(name, gb.quantize(name, big), big.size) - big)
                      <= gb.quant_error_bound(name, big))
    return "all %d types within bound (worst err/bound %.3f), 1M-element Q4_K/Q8_0 ok" % (
        len(worst), max(worst.values()))


# ------------------------------------------------------------------ GGUF writer / reader
def check_gguf_bytes(tmp):
    """One u32 key + one 2x1 F32 tensor, assembled by hand from docs/gguf.md."""
    path = os.path.join(tmp, "tiny.gguf")
    w = GGUFWriter(path)
    w.add("a.b", 7, "u32")
    w.add_tensor("t", [2, 1], "F32", struct.pack("<2f", 1.0, -2.0))
    w.write()
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 1)
    head += struct.pack("<Q", 3) + b"a.b" + struct.pack("<II", 4, 7)
    head += struct.pack("<Q", 1) + b"t" + struct.pack("<IQQIQ", 2, 2, 1, 0, 0)
    want = head + b"\0" * (-len(head) % 32) + struct.pack("<2f", 1.0, -2.0) + b"\0" * 24
    with open(path, "rb") as f:
        got = f.read()
    assert got == want, "tiny GGUF bytes differ from the hand-assembled ones"
    return f"tiny file is byte-exact ({len(got)} bytes)"


_META = [
    ("t.u8", 255, "u8", None), ("t.i8", -128, "i8", None), ("t.u16", 65535, "u16", None),
    ("t.i16", -32768, "i16", None), ("t.u32", 2 ** 32 - 1, "u32", None),
    ("t.i32", -2 ** 31, "i32", None), ("t.f32", 0.1, "f32", None), ("t.bool_t", True, "bool", None),
    ("t.bool_f", False, "bool", None), ("t.str", "héllo ▁wörld", "string", None),
    ("t.empty_str", "", "string", None), ("t.u64", 2 ** 64 - 1, "u64", None),
    ("t.i64", -2 ** 63, "i64", None), ("t.f64", 1e300, "f64", None),
    ("t.arr_str", ["<s>", "", "▁a", "日本"], "array", "string"),
    ("t.arr_empty", [], "array", "i32"), ("t.arr_bool", [True, False, True], "array", "bool"),
    ("t.arr_f32", [0.5, -1.25, 3.0], "array", "f32"), ("t.arr_u8", [0, 255], "array", "u8"),
    ("t.arr_i8", [-1, 1], "array", "i8"), ("t.arr_u16", [1, 65535], "array", "u16"),
    ("t.arr_i16", [-2, 2], "array", "i16"), ("t.arr_u32", [3, 2 ** 32 - 1], "array", "u32"),
    ("t.arr_i32", [-3, 3], "array", "i32"), ("t.arr_u64", [2 ** 63], "array", "u64"),
    ("t.arr_i64", [-2 ** 63, 5], "array", "i64"), ("t.arr_f64", [1e-300, 2.5], "array", "f64"),
]


def _meta_value_ok(value, want, vtype, elem_type):
    """Equal value and python type; f32 values come back rounded to float32."""
    if vtype == "array":
        return len(value) == len(want) and all(
            _meta_value_ok(v, w, elem_type, None) for v, w in zip(value, want))
    if vtype == "f32":
        want = float(F(want))
    return value == want and type(value) is type(want)


def _roundtrip_file(tmp, alignment, key):
    path = os.path.join(tmp, f"rt{alignment}_{key}.gguf")
    rng = np.random.default_rng(alignment)
    w = GGUFWriter(path, alignment=alignment, write_alignment_key=key)
    for k, v, vt, et in _META:
        w.add(k, v, vt, elem_type=et)
    tensors = []
    for name, t in gb.TYPES.items():
        ne = [t.block_size * (3 if t.block_size == 1 else 2), 3, 2] if name != "F32" else [5]
        raw = gb.quantize(name, rng.standard_normal(int(np.prod(ne))).astype(F))
        w.add_tensor("blk.0." + name.lower(), ne, name, raw)
        tensors.append(("blk.0." + name.lower(), ne, name, raw))
    vals = rng.standard_normal((4, 64)).astype(F)
    w.add_tensor_values("values.q8_0", vals, "Q8_0")
    w.write()
    meta, got = read_gguf(path)
    return path, meta, got, tensors, vals


def check_gguf_roundtrip(tmp):
    n_files = 0
    for alignment, key in ((32, None), (32, True), (64, None), (256, None)):
        path, meta, got, tensors, vals = _roundtrip_file(tmp, alignment, key)
        for k, v, vt, et in _META:
            assert meta.types[k] == (vt, et), f"{k}: type {meta.types[k]}"
            assert _meta_value_ok(meta[k], v, vt, et), f"{k}: {meta[k]!r} != {v!r}"
        has_key = alignment != 32 or key
        assert ("general.alignment" in meta) == bool(has_key), "general.alignment presence"
        assert meta.alignment == alignment and meta.data_offset % alignment == 0
        with open(path, "rb") as f:
            data = f.read()
        end = 0
        for (name, ne, type_name, raw), t in zip(tensors, got):
            assert (t.name, t.ne, t.type_name, t.raw) == (name, ne, type_name, raw), name
            assert t.offset % alignment == 0 and t.offset == -(-end // alignment) * alignment
            pad = data[meta.data_offset + end:meta.data_offset + t.offset]
            assert pad == b"\0" * len(pad), f"{name}: non-zero padding"
            end = t.offset + len(raw)
        q = got[-1]
        assert q.ne == [64, 4] and q.values().shape == (4, 64)
        bound = gb.quant_error_bound("Q8_0", vals).reshape(4, 64)
        assert np.all(np.abs(q.values() - vals) <= bound)
        assert len(data) == meta.data_offset + -(-(q.offset + len(q.raw)) // alignment) * alignment
        n_files += 1
    return (f"{n_files} files: {len(_META)} keys of all 13 value types, "
            f"{len(tensors) + 1} tensors each")


def check_cases(tmp):
    a, b = gc.build_cases(), gc.build_cases()
    assert a == b, "case generation is not deterministic"
    gc.write_cases(tmp)
    meta, blocks = read_gguf(os.path.join(tmp, "blocks.gguf"))
    meta_e, expected = read_gguf(os.path.join(tmp, "blocks_expected.gguf"))
    assert meta["attnscope.test.types"] == gc.TYPE_ORDER and meta_e.alignment == 64
    assert [t.name for t in blocks] == [t.name for t in expected] == [c[0] for c in a]
    for t, e in zip(blocks, expected):
        assert e.type_name == "F32" and e.ne == t.ne
        with np.errstate(all="ignore"):
            assert bits_equal(e.values(), t.values()), t.name
        assert not np.any(np.isnan(e.values())), f"{t.name}: NaN in expected values"
    return f"{len(blocks)} tensors written twice identically and re-read"


def main():
    checks = [("known-values", check_known_values), ("scalar-port", check_scalar_port),
              ("round-trip", check_round_trip)]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        checks += [("gguf-bytes", lambda: check_gguf_bytes(tmp)),
                   ("gguf-roundtrip", lambda: check_gguf_roundtrip(tmp)),
                   ("cases", lambda: check_cases(os.path.join(tmp, "cases")))]
        for label, fn in checks:
            try:
                print(f"PASS {label}: {fn()}")
            except AssertionError as exc:
                failed += 1
                print(f"FAIL {label}: {exc}")
    print(f"ggml_blocks_selftest: {len(checks) - failed}/{len(checks)} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
