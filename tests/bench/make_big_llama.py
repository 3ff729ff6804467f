#!/usr/bin/python3
"""Writes a Llama-2-7B-shaped random-weight checkpoint in BF16 (issue 6's "a 7-8 B model opens
and runs on a 24 GB machine"): 32 layers, 4096 wide, 32 heads, SwiGLU 11008, 32000 tokens,
untied lm_head; 6.74 B parameters, 13.5 GB on disk.

Usage: make_big_llama.py --out /tmp/big7b [--shared ../shared] [--layers 32]

The folder is what `save_pretrained` writes for LlamaForCausalLM (config from
tests/reference/llama_layouts.py, tensor names and order as llama_weights there), sharded at
5 GB like the Hub's checkpoints: model-0000k-of-0000K.safetensors plus
model.safetensors.index.json. The Llama-2 tokenizer is copied from ../shared when present.

Memory stays small: values are slices, at random offsets, of one pool of 16 M standard normals,
scaled per tensor like llama_weights (1/sqrt(fan-in)), rounded to BF16 and written a chunk of
rows at a time (about 200 MB in flight). Only timings and memory mean anything with these
weights. Never write the output inside the repository.
"""

import argparse
import json
import pathlib
import shutil
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "reference"))
from hf_layouts import QK_GAIN  # noqa: E402
import llama_layouts  # noqa: E402
import st_io  # noqa: E402

LLAMA2_7B = {"arch": "llama", "hidden": 4096, "ffn": 11008, "layers": 32, "heads": 32,
             "kv_heads": 32, "max_pos": 4096, "dtype": "BF16", "tied": False}
VOCAB = 32000
SPECIAL = {"bos": 1, "eos": 2}
SHARD_BYTES = 5_000_000_000  # transformers' default max_shard_size "5GB"
POOL = 1 << 24
CHUNK = 1 << 24  # values per write


def tensor_plan(c):
    """(name, shape, kind, scale) in llama_weights' order; kind "normal" or "norm"."""
    h, f = c["hidden"], c["ffn"]
    q_out = kv_out = c["heads"] * (h // c["heads"])
    plan = [("model.embed_tokens.weight", (VOCAB, h), "normal", 1.0)]
    for i in range(c["layers"]):
        p = f"model.layers.{i}."
        plan += [
            (p + "self_attn.q_proj.weight", (q_out, h), "normal", QK_GAIN / np.sqrt(h)),
            (p + "self_attn.k_proj.weight", (kv_out, h), "normal", QK_GAIN / np.sqrt(h)),
            (p + "self_attn.v_proj.weight", (kv_out, h), "normal", 1.0 / np.sqrt(h)),
            (p + "self_attn.o_proj.weight", (h, q_out), "normal", 1.0 / np.sqrt(q_out)),
            (p + "mlp.gate_proj.weight", (f, h), "normal", 1.0 / np.sqrt(h)),
            (p + "mlp.up_proj.weight", (f, h), "normal", 1.0 / np.sqrt(h)),
            (p + "mlp.down_proj.weight", (h, f), "normal", 1.0 / np.sqrt(f)),
            (p + "input_layernorm.weight", (h,), "norm", 0.1),
            (p + "post_attention_layernorm.weight", (h,), "norm", 0.1),
        ]
    plan.append(("model.norm.weight", (h,), "norm", 0.1))
    plan.append(("lm_head.weight", (VOCAB, h), "normal", 1.0 / np.sqrt(h)))
    return plan


def shards_of(plan):
    """Greedy split in order, as save_pretrained does: a shard closes before the tensor that
    would take it past SHARD_BYTES."""
    shards, size = [[]], 0
    for entry in plan:
        nbytes = 2 * int(np.prod(entry[1]))
        if shards[-1] and size + nbytes > SHARD_BYTES:
            shards.append([])
            size = 0
        shards[-1].append(entry)
        size += nbytes
    return shards


def to_bf16(x):
    """float32 -> BF16 bits, rounded to nearest even (as torch's .to(torch.bfloat16))."""
    u = x.view(np.uint32)
    return ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)) \
        .astype(np.uint16)


def write_tensor(f, shape, kind, scale, pool, rng):
    total = int(np.prod(shape))
    for start in range(0, total, CHUNK):
        n = min(CHUNK, total - start)
        if kind == "norm":
            values = 1.0 + scale * pool[:n]
        else:
            offset = int(rng.integers(0, POOL - n + 1))
            values = pool[offset:offset + n] * np.float32(scale)
        f.write(to_bf16(values.astype(np.float32)).astype("<u2").tobytes())


def write_shard(path, entries, pool, rng):
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape, _, _ in entries:
        nbytes = 2 * int(np.prod(shape))
        header[name] = {"dtype": "BF16", "shape": list(shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(st_io.header_bytes(header))
        for _, shape, kind, scale in entries:
            write_tensor(f, shape, kind, scale, pool, rng)
    tmp.replace(path)
    return offset


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder to write (outside the repository)")
    parser.add_argument("--shared", default=None, help="the ../shared data folder (tokenizer)")
    parser.add_argument("--layers", type=int, default=LLAMA2_7B["layers"],
                        help="fewer layers for a quick check of the script")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    if (pathlib.Path(__file__).resolve().parents[2] in out.resolve().parents):
        sys.exit(f"make_big_llama: {out} is inside the repository; write it elsewhere")
    start = time.monotonic()
    c = dict(LLAMA2_7B, layers=args.layers)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261129)
    pool = rng.standard_normal(POOL, dtype=np.float32)
    shards = shards_of(tensor_plan(c))
    weight_map, total = {}, 0
    for k, entries in enumerate(shards, start=1):
        name = f"model-{k:05d}-of-{len(shards):05d}.safetensors"
        total += write_shard(out / name, entries, pool, rng)
        weight_map.update({e[0]: name for e in entries})
        print(f"make_big_llama: wrote {name} ({len(entries)} tensors)", flush=True)
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (out / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    config = llama_layouts.llama_config(c, VOCAB, SPECIAL)
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    tokenizer = pathlib.Path(args.shared or "/nonexistent") / "data/tokenizers/llama-2"
    for f in ("tokenizer.model", "tokenizer.json", "tokenizer_config.json"):
        if (tokenizer / f).exists():
            shutil.copyfile(tokenizer / f, out / f)
    params = total // 2
    print(f"make_big_llama: {out}: {params / 1e9:.2f} B parameters, {total / 1e9:.1f} GB BF16, "
          f"{len(shards)} shards, {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
