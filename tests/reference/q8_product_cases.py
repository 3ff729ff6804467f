#!/usr/bin/python3
"""Write the cases core_q8_product_test compares the 8-bit-activation product with (issue 32).

usage: q8_product_cases.py OUTDIR

OUTDIR/q8_cases.gguf (ggml order: ne = [row length, rows]) holds
  x                F32   [1024, 24]  activation rows for the dot products: normal rows of scales
                                     1e-3 … 1e3, outlier channels, an all-zero row, 1e5, exact
                                     ties, zero blocks, tiny values, one nonzero value, …
  x.Q8_0, x.Q8_K   Q8_0 / Q8_K       x quantized by q8_reference (llama.cpp's x86 quantizers)
  xq               F32   [512, 12]   rows for the quantizers only: d overflowing f16, 1e30, f32
                                     denormals, ±inf, negative ties, the f16 limit of d, …
  xq.Q8_0, xq.Q8_K
  w.<T>            T     [1024, 20]  random blocks with random f16 scales, for each T of TYPES
  dot.<T>.hi, .lo  F32   [20, 24]    q8_reference.dot_reference(w.<T>, x.Q8_*): the float64 sum
                                     as hi + lo (to ~2^-48 of it), one row per activation row
  dot.<T>.mag      F32   [20, 24]    the sum of the terms' magnitudes
  real.x           F32   [4096, 96]  realistic activations: 32 RMS-normed rows, 32 with six
                                     outlier channels, 32 SwiGLU products (heavy-tailed)
  real.w           F32   [4096, 128] realistic weights, N(0, 0.02) with per-row scales
  real.w.<T>       T     [4096, 128] real.w quantized (ggml_blocks.quantize, round to nearest)
Metadata: attnscope.test.types (array of string), attnscope.test.seed (u32),
attnscope.test.terms.<T> (u32: terms summed per output).

Before writing, checks the reference against itself (exit 1 on failure): codes reconstruct the
rows within half a step; the tie row rounds ties to even where quantize_row_q8_0_ref's roundf
would not; each type's dot_reference equals the float64 dot product of ggml_blocks.dequantize's
weights with the dequantized activations, within the f32 rounding of those values.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggml_blocks as gb  # noqa: E402
import q8_reference as qr  # noqa: E402
from gguf_file import GGUFWriter  # noqa: E402

SEED = 3208
TYPES = ["Q4_0", "Q5_0", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]
SCALE_FIELDS = {"Q4_0": [0], "Q5_0": [0], "Q8_0": [0], "Q2_K": [80, 82], "Q3_K": [108],
                "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208]}
F32 = np.float32


def dot_rows(rng, k=1024):
    """The 24 activation rows of the dot-product cases."""
    rows = [rng.standard_normal(k) * 10.0 ** rng.uniform(-3, 3) for _ in range(12)]
    for _ in range(2):
        r = rng.standard_normal(k)
        r[rng.choice(k, 5, replace=False)] *= 50
        rows.append(r)
    rows.append(np.zeros(k))
    rows.append(rng.standard_normal(k) * 1e5)
    ties = rng.integers(-127, 127, k) + 0.5        # exact .5 after x * (127 / 127)
    ties[::32] = -127.0                            # each block's (and superblock's) first max
    ties[5::64] = 127.0                            # a later +127: Q8_K keeps the first, -127
    rows.append(ties)
    r = rng.standard_normal(k)
    r[:32] = 0
    r[512:768] = 0
    rows.append(r)
    rows.append(rng.standard_normal(k) * 1e-6)
    rows.append(-np.abs(rng.standard_normal(k)))
    r = np.zeros(k)
    r[300] = 2.5
    rows.append(r)
    rows.append(rng.standard_normal(k) * np.repeat(10.0 ** (np.arange(k // 32) % 7 - 3), 32))
    rows += [rng.standard_normal(k) for _ in range(2)]
    return np.array(rows, dtype=F32)


def quantizer_rows(rng, k=512):
    """Rows only the quantizers see: their products would not be finite."""
    rows = [rng.standard_normal(k) * 1e7, rng.standard_normal(k) * 1e30,
            rng.standard_normal(k) * 1e-40]
    for value in (np.inf, -np.inf):
        r = rng.standard_normal(k)
        r[3] = value
        rows.append(r)
    r = rng.integers(-127, 127, k) - 0.5
    r[::32] = 127.0
    rows.append(r)
    r = rng.standard_normal(k)
    r[0], r[10] = 4.0, -4.0                        # Q8_K: +4 comes first, so iscale = -127/4
    rows.append(r)
    rows.append(np.zeros(k))
    r = rng.standard_normal(k)
    r[0], r[32] = 65519.0 * 127, 65520.0 * 127     # d just below / at f16's overflow threshold
    rows.append(r)
    rows.append(rng.standard_normal(k) * 6.1035e-5 * 127 / 3)
    rows += [rng.standard_normal(k) for _ in range(2)]
    return np.array(rows, dtype=F32)


def random_blocks(rng, type_name, rows, k):
    t = gb.TYPES[type_name]
    nb = k // t.block_size
    blocks = rng.integers(0, 256, (rows * nb, t.type_size), dtype=np.uint8)
    for off in SCALE_FIELDS[type_name]:
        scale = rng.standard_normal(rows * nb) * np.exp2(rng.uniform(-12, -4, rows * nb))
        blocks[:, off:off + 2] = scale.astype("<f2").reshape(-1, 1).view(np.uint8)
    return blocks.reshape(rows, nb, t.type_size)


def realistic(rng, k=4096, n=96, m=128):
    """Three kinds of n/3 rows: RMS-normed (channel gains), the same with six outlier channels
    20-40 times larger (as LLMs' massive activations), SwiGLU products (heavy-tailed)."""
    gains = np.exp(rng.normal(0, 0.3, k))
    plain = rng.standard_normal((n // 3, k)) * gains
    gains[rng.choice(k, 6, replace=False)] *= rng.uniform(20, 40, 6)
    outliers = rng.standard_normal((n // 3, k)) * gains
    a, b = rng.standard_normal((2, n // 3, k))
    swiglu = a / (1 + np.exp(-a)) * b * 2
    w = rng.normal(0, 0.02, (m, k)) * np.exp(rng.normal(0, 0.2, (m, 1)))
    return np.concatenate([plain, outliers, swiglu]).astype(F32), w.astype(F32)


def check(condition, message):
    if not condition:
        print("q8_product_cases: self-check failed: " + message, file=sys.stderr)
        sys.exit(1)


def self_check_activations(x):
    finite = np.isfinite(x).all(axis=1)
    for name in ("Q8_0", "Q8_K"):
        codes, d = qr.activation_ints(name, qr.quantize_activations(name, x))
        e = codes.shape[2]
        xb = x.reshape(len(x), -1, e).astype(np.float64)
        amax = np.abs(xb).max(axis=2)
        err = np.abs(codes * d[..., None] - xb).max(axis=2)
        # half a step, the f16 rounding of d (relative 2^-11, or half f16's subnormal spacing)
        bound = amax * (1 / 254 + 2.0 ** -10) + (127 * 2.0 ** -25 if name == "Q8_0" else 1e-30)
        check(np.all((err <= bound)[finite]), f"{name} codes do not reconstruct the rows")
    tie = x[16].reshape(-1, 32)
    ours = qr.activation_ints("Q8_0", qr.quantize_q8_0(x[16:17]))[0][0]
    away = np.trunc(tie + np.copysign(0.5, tie))    # roundf: ties away from zero
    check(np.all(ours == np.rint(tie)) and np.any(ours != away), "tie row")


def self_check_dots(type_name, wblocks, x, value):
    """value against float64 dot products of the dequantized operands (each rounded to f32)."""
    act = qr.ACTIVATION_TYPE[type_name]
    codes, d = qr.activation_ints(act, qr.quantize_activations(act, x))
    xs = (codes * d[..., None]).reshape(len(x), -1)
    raw = wblocks.tobytes()
    w = gb.dequantize(type_name, raw, wblocks.shape[0] * x.shape[1]).reshape(len(wblocks), -1)
    alt = xs @ w.astype(np.float64).T
    ints = qr.weight_ints(type_name, wblocks)
    g = ints.scale.shape[2]
    per = np.abs(ints.d[..., None, None] * ints.scale[..., None] *
                 ints.codes.reshape(*ints.codes.shape[:2], g, -1))
    if ints.minimum is not None:
        per = per + np.abs(ints.dmin[..., None, None] * ints.minimum[..., None])
    elementwise = np.abs(xs) @ per.reshape(len(wblocks), -1).T
    check(np.all(np.abs(alt - value) <= 2.0 ** -20 * elementwise + 1e-300), f"{type_name} dots")


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    x = dot_rows(rng)
    xq = quantizer_rows(rng)
    self_check_activations(x)
    writer = GGUFWriter(os.path.join(out, "q8_cases.gguf"))
    writer.add("attnscope.test.types", TYPES, "array", elem_type="string")
    writer.add("attnscope.test.seed", SEED, "u32")
    for name, rows in (("x", x), ("xq", xq)):
        writer.add_tensor(name, list(reversed(rows.shape)), "F32", rows.astype("<f4").tobytes())
        for act in ("Q8_0", "Q8_K"):
            writer.add_tensor(f"{name}.{act}", list(reversed(rows.shape)), act,
                              qr.quantize_activations(act, rows).tobytes())
    for t in TYPES:
        wblocks = random_blocks(rng, t, 20, x.shape[1])
        act = qr.quantize_activations(qr.ACTIVATION_TYPE[t], x)
        value, magnitude, terms = qr.dot_reference(t, wblocks, act)
        self_check_dots(t, wblocks, x, value)
        hi = value.astype(F32)
        lo = (value - hi.astype(np.float64)).astype(F32)
        writer.add("attnscope.test.terms." + t, terms, "u32")
        writer.add_tensor("w." + t, [x.shape[1], 20], t, wblocks.tobytes())
        for suffix, v in (("hi", hi), ("lo", lo), ("mag", magnitude.astype(F32))):
            writer.add_tensor(f"dot.{t}.{suffix}", [20, len(x)], "F32", v.astype("<f4").tobytes())
    real_x, real_w = realistic(rng)
    writer.add_tensor("real.x", list(reversed(real_x.shape)), "F32", real_x.tobytes())
    writer.add_tensor("real.w", list(reversed(real_w.shape)), "F32", real_w.tobytes())
    for t in TYPES:
        writer.add_tensor_values("real.w." + t, real_w, t)
    writer.write()
    print(f"q8_product_cases: wrote {out}/q8_cases.gguf ({len(TYPES)} weight types)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
