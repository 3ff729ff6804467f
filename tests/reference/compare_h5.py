#!/usr/bin/python3
"""Check an AttnScope HDF5 export against a PyTorch reference_<k>.safetensors, with h5py alone.

Usage: compare_h5.py FILE.h5 REFERENCE.safetensors
       compare_h5.py --self-test REFERENCE.safetensors   (shows the checker accepts a correct
                                                          file and rejects broken ones)

Expected layout of FILE.h5 (the interchange format the C++ writes):
    tokens      variable-length UTF-8 strings [n]
    token_ids   int64 [n]                 must equal the reference input_ids
    offsets     int64 [n, 2]              character span of each token in `text`
    attention   float32 [layers, heads, n, n], chunked (1, 1, n, n): one chunk per head
    logits      float32, same shape and chunking; scaled q.k before the mask
    mask        uint8 [n, n], 1 = allowed
    entropy     float32 [layers, heads, n], -sum p ln p of the file's own attention rows
    attributes  model, model_type, num_layers, num_heads, scale, mask_kind, text,
                attnscope_version
Prints each check; exits 0 when all pass, 1 with a one-line reason otherwise.
"""

import argparse
import math
import os
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_io  # noqa: E402

# The project's parity requirement for probabilities (style.md: "must agree to 1e-5").
ATTENTION_TOL = 1e-5
# Logits are O(10) here and float32 keeps ~7 digits; a relative bound (floored at magnitude 1
# so near-zero cells are not held to an impossible standard) leaves room for summation order.
LOGITS_RTOL = 1e-4
# Entropy is recomputed from the file's own float32 attention, so only the C++'s arithmetic
# (n terms of p ln p) separates the two.
ENTROPY_TOL = 1e-5
# Scale is a double attribute computed as 1/sqrt(head_dim); allow for float32 round trips.
SCALE_RTOL = 1e-6
REQUIRED_ATTRS = ["model", "model_type", "num_layers", "num_heads", "scale", "mask_kind", "text",
                  "attnscope_version"]


class CheckFailed(Exception):
    """One failed check; the message is the one-line reason."""


def expect(condition, reason):
    if not condition:
        raise CheckFailed(reason)


def dataset(f, name, dtype, shape):
    """Fetch a dataset and check its dtype and shape."""
    expect(name in f, f"dataset '{name}' is missing")
    ds = f[name]
    expect(ds.dtype == np.dtype(dtype), f"{name}: dtype {ds.dtype}, expected {np.dtype(dtype)}")
    expect(ds.shape == shape, f"{name}: shape {ds.shape}, expected {shape}")
    return ds


def attribute(f, name):
    """Attribute value with HDF5 byte strings decoded."""
    value = f.attrs[name]
    return value.decode("utf-8") if isinstance(value, bytes) else value


def check_layout(f, ref):
    """Datasets, dtypes, shapes, chunking and attributes; returns (n, layers, heads)."""
    layers, heads, n, _ = ref["attention"].shape
    missing = [a for a in REQUIRED_ATTRS if a not in f.attrs]
    expect(not missing, f"missing root attributes {missing}")
    expect(int(attribute(f, "num_layers")) == layers and int(attribute(f, "num_heads")) == heads,
           f"attributes say {attribute(f, 'num_layers')} layers x {attribute(f, 'num_heads')} "
           f"heads, reference has {layers} x {heads}")
    expect(isinstance(attribute(f, "text"), str), "attribute 'text' is not a string")
    expect("tokens" in f, "dataset 'tokens' is missing")
    tokens = f["tokens"]
    expect(tokens.shape == (n,), f"tokens: shape {tokens.shape}, expected ({n},)")
    info = h5py.check_string_dtype(tokens.dtype)
    expect(info is not None and info.encoding == "utf-8" and info.length is None,
           f"tokens: dtype {tokens.dtype} is not variable-length UTF-8 strings")
    dataset(f, "token_ids", "int64", (n,))
    dataset(f, "offsets", "int64", (n, 2))
    dataset(f, "mask", "uint8", (n, n))
    dataset(f, "entropy", "float32", (layers, heads, n))
    for name in ("attention", "logits"):
        ds = dataset(f, name, "float32", (layers, heads, n, n))
        expect(ds.chunks == (1, 1, n, n), f"{name}: chunks {ds.chunks}, expected (1, 1, {n}, {n})")
    print(f"ok  layout: {n} tokens, {layers} layers x {heads} heads; dtypes, shapes, "
          f"per-head chunks (1, 1, {n}, {n}) and {len(REQUIRED_ATTRS)} attributes")
    return n, layers, heads


def check_tokens_and_mask(f, ref, n, ref_mask_kind):
    """token_ids equal the reference; mask_kind is the reference's (its metadata "mask") and
    the mask matches it where the kind is known."""
    ids = f["token_ids"][()]
    expect(np.array_equal(ids, ref["input_ids"].numpy()),
           f"token_ids {ids.tolist()} != reference input_ids {ref['input_ids'].tolist()}")
    mask, kind = f["mask"][()], attribute(f, "mask_kind")
    expect(ref_mask_kind is None or kind == ref_mask_kind,
           f"mask_kind '{kind}', but the reference was computed with '{ref_mask_kind}'")
    expect(np.isin(mask, (0, 1)).all(), "mask holds values other than 0 and 1")
    patterns = {"none": np.ones((n, n), np.uint8), "causal": np.tril(np.ones((n, n), np.uint8))}
    if kind in patterns:
        expect(np.array_equal(mask, patterns[kind]), f"mask does not match mask_kind '{kind}'")
        print(f"ok  token_ids equal the reference; mask is the '{kind}' pattern")
    else:
        print(f"ok  token_ids equal the reference; no pattern known for mask_kind '{kind}'")


def check_values(f, ref):
    """attention, logits and scale against the reference."""
    att = f["attention"][()].astype(np.float64)
    gap = float(np.abs(att - ref["attention"].double().numpy()).max())
    expect(gap <= ATTENTION_TOL, f"max |attention - reference| = {gap:.3e} > {ATTENTION_TOL}")
    leaked = float(np.abs(att[..., f["mask"][()] == 0]).max(initial=0.0))
    expect(leaked == 0.0, f"attention is {leaked:.3e} on a cell the file's mask forbids")
    print(f"ok  attention: max |diff| {gap:.2e} <= {ATTENTION_TOL}; exactly 0 where mask is 0")
    logits, want = f["logits"][()].astype(np.float64), ref["logits"].double().numpy()
    rel = float((np.abs(logits - want) / np.maximum(1.0, np.abs(want))).max())
    expect(rel <= LOGITS_RTOL, f"logits: max relative diff {rel:.3e} > {LOGITS_RTOL}")
    print(f"ok  logits: max relative diff {rel:.2e} <= {LOGITS_RTOL} (all cells, pre-mask)")
    heads = ref["attention"].shape[1]
    head_dim = ref["hidden"].shape[1] // heads
    scale, want_scale = float(attribute(f, "scale")), 1.0 / math.sqrt(head_dim)
    expect(abs(scale - want_scale) <= SCALE_RTOL * want_scale,
           f"scale attribute {scale!r}, expected 1/sqrt({head_dim}) = {want_scale!r}")
    print(f"ok  scale {scale:.6g} = 1/sqrt({head_dim})")


def row_entropy(p):
    """-sum p ln p over the last axis with 0 ln 0 = 0, in float64."""
    p = p.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(p), 0.0)
    return terms.sum(axis=-1)


def check_entropy(f):
    """entropy equals the entropy of the file's own attention rows (all-zero rows: 0 or NaN)."""
    att, ent = f["attention"][()], f["entropy"][()].astype(np.float64)
    want = row_entropy(att)
    empty = att.sum(axis=-1) == 0
    ok_empty = np.where(empty, np.isnan(ent) | (ent == 0), True)
    expect(ok_empty.all(), "entropy of an all-zero attention row is neither 0 nor NaN")
    gap = float(np.where(empty, 0.0, np.abs(ent - want)).max())
    expect(np.isfinite(gap) and gap <= ENTROPY_TOL,
           f"max |entropy - (-sum p ln p)| = {gap:.3e} > {ENTROPY_TOL}")
    print(f"ok  entropy matches -sum p ln p of the file's attention: max |diff| {gap:.2e}")


def compare(h5_path, ref_path):
    """Run every check; raises CheckFailed on the first failure."""
    ref = st_io.load_file(ref_path)
    ref_mask_kind = st_io.read_header(ref_path)[1].get("mask")
    try:
        f = h5py.File(h5_path, "r")
    except OSError as e:
        raise CheckFailed(f"cannot open {h5_path}: {e}") from None
    with f:
        n, _, _ = check_layout(f, ref)
        check_tokens_and_mask(f, ref, n, ref_mask_kind)
        check_values(f, ref)
        check_entropy(f)


def write_example(path, ref, mask_kind, **broken):
    """An export as the C++ should write it, built from the reference (for --self-test).
    `broken` overrides one aspect: attention_delta, chunks, token_ids_dtype."""
    layers, heads, n, _ = ref["attention"].shape
    att = ref["attention"].numpy().copy()
    att[0, 0, n - 1, 0] += broken.get("attention_delta", 0.0)
    mask = np.tril(np.ones((n, n), np.uint8)) if mask_kind == "causal" else np.ones((n, n),
                                                                                    np.uint8)
    chunks = broken.get("chunks", (1, 1, n, n))
    with h5py.File(path, "w") as f:
        f.create_dataset("tokens", data=[f"t{i}" for i in range(n)],
                         dtype=h5py.string_dtype("utf-8"))
        f.create_dataset("token_ids", data=ref["input_ids"].numpy().astype(
            broken.get("token_ids_dtype", np.int64)))
        f.create_dataset("offsets", data=np.stack([np.arange(n), np.arange(n) + 1], 1))
        f.create_dataset("attention", data=att, chunks=chunks)
        f.create_dataset("logits", data=ref["logits"].numpy(), chunks=chunks)
        f.create_dataset("mask", data=mask)
        f.create_dataset("entropy", data=row_entropy(att).astype(np.float32))
        head_dim = ref["hidden"].shape[1] // heads
        f.attrs.update(model="self-test", model_type="unknown", num_layers=layers,
                       num_heads=heads, scale=1.0 / math.sqrt(head_dim), mask_kind=mask_kind,
                       text=" ".join(f"t{i}" for i in range(n)), attnscope_version="self-test")


def self_test(ref_path):
    """A correct file must pass and each broken variant must fail; returns an exit code."""
    ref = st_io.load_file(ref_path)
    kind = st_io.read_header(ref_path)[1]["mask"]
    other = {"none": "causal", "causal": "none"}[kind]
    variants = [("correct", {}, True), ("attention off by 2e-5", {"attention_delta": 2e-5}, False),
                ("whole-tensor chunks", {"chunks": tuple(ref["attention"].shape)}, False),
                ("int32 token_ids", {"token_ids_dtype": np.int32}, False),
                (f"mask_kind {other}", {"mask_kind": other}, False)]
    with tempfile.TemporaryDirectory() as tmp:
        for label, broken, should_pass in variants:
            path = os.path.join(tmp, "x.h5")
            broken = dict(broken)
            write_example(path, ref, broken.pop("mask_kind", kind), **broken)
            try:
                compare(path, ref_path)
                passed, reason = True, ""
            except CheckFailed as e:
                passed, reason = False, str(e)
            print(f"self-test [{label}]: {'accepted' if passed else 'rejected: ' + reason}")
            if passed != should_pass:
                print(f"FAIL: self-test variant '{label}' was wrongly "
                      f"{'accepted' if passed else 'rejected'}")
                return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="FILE.h5 REFERENCE.safetensors, or REFERENCE with --self-test")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.files[0])
    if len(args.files) != 2:
        parser.error("expected FILE.h5 REFERENCE.safetensors")
    try:
        compare(*args.files)
    except CheckFailed as e:
        print(f"FAIL: {e}")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
