#!/usr/bin/python3
"""Writes the forward-pass benchmark models (random weights, Hugging Face layout) into a folder
of the build tree: bert-base (bert-base-uncased's shape), gpt2 (GPT-2 small, 124M) and
llama-1b (TinyLlama-1.1B's shape, BF16 on disk).

Usage: make_forward_models.py --out DIR [--models bert-base,gpt2,llama-1b] [--shared DIR]

The layouts come from tests/reference (hf_layouts.py, llama_layouts.py), so the files are what
`save_pretrained` writes. Those modules build every tensor in memory, which is fine for their
tiny test cases but would hold 4.4 GB of float32 for the 1.1 B model; here their WeightMaker is
swapped for one that casts and appends each tensor to the data file as soon as it exists, so
memory stays at one tensor. A folder whose bench_config.json matches is left alone.
"""

import argparse
import collections
import json
import os
import pathlib
import shutil
import sys
import time

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "reference"))
import hf_layouts  # noqa: E402
import llama_layouts  # noqa: E402
import st_io  # noqa: E402

# Bumped when the generator's output changes, so old folders are rewritten.
GENERATOR_VERSION = 1

MODELS = {
    "bert-base": {
        "arch": "bert", "hidden": 768, "ffn": 3072, "layers": 12, "heads": 12, "act": "gelu",
        "max_pos": 512, "dtype": "F32", "arch_class": "BertForMaskedLM", "seed": 61,
        "vocab_size": 30522, "tokenizer": "bert-base-uncased", "special": {"pad": 0},
    },
    "gpt2": {
        "arch": "gpt2", "hidden": 768, "ffn": None, "layers": 12, "heads": 12, "act": "gelu_new",
        "max_pos": 1024, "dtype": "F32", "arch_class": "GPT2LMHeadModel", "seed": 62,
        "vocab_size": 50257, "tokenizer": "gpt2", "special": {"bos": 50256, "eos": 50256},
    },
    "llama-1b": {
        "arch": "llama", "hidden": 2048, "ffn": 5632, "layers": 22, "heads": 32, "kv_heads": 4,
        "max_pos": 2048, "dtype": "BF16", "tied": False, "seed": 63, "vocab_size": 32000,
        "tokenizer": "TinyLlama-1.1B-Chat-v1.0", "special": {"bos": 1, "eos": 2},
    },
}

_STORAGE = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


class StreamingTensors(collections.OrderedDict):
    """Stands in for WeightMaker.tensors: each tensor is cast and appended to `data_file` when
    assigned, and only its header entry is kept."""

    dtype = "F32"
    data_file = None

    def __setitem__(self, name, tensor):
        t = tensor.detach().contiguous()
        if t.is_floating_point():
            t = t.to(_STORAGE[self.dtype])
        name_of = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
                   torch.int64: "I64"}
        raw = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
        blob = raw.numpy().tobytes()
        begin = self.data_file.tell()
        self.data_file.write(blob)
        super().__setitem__(name, {"dtype": name_of[t.dtype], "shape": list(t.shape),
                                   "data_offsets": [begin, begin + len(blob)]})


class StreamingMaker(hf_layouts.WeightMaker):
    def __init__(self, seed):
        super().__init__(seed)
        self.tensors = StreamingTensors()


def write_checkpoint(c, vocab_size, config, out):
    """model.safetensors written in two steps (data first, since the header needs every offset,
    then header + data), so no more than one tensor is ever in memory."""
    # Both modules look WeightMaker up as a module global at call time.
    saved = hf_layouts.WeightMaker, llama_layouts.WeightMaker
    hf_layouts.WeightMaker = llama_layouts.WeightMaker = StreamingMaker
    StreamingTensors.dtype = c["dtype"]
    data_path = out / "model.safetensors.data"
    try:
        with open(data_path, "wb") as data:
            StreamingTensors.data_file = data
            header = hf_layouts.WEIGHT_MAKERS[c["arch"]](c, vocab_size, config)
    finally:
        hf_layouts.WeightMaker, llama_layouts.WeightMaker = saved
        StreamingTensors.data_file = None
    entries = {"__metadata__": {"format": "pt"}, **header}
    tmp = out / "model.safetensors.tmp"
    with open(tmp, "wb") as f, open(data_path, "rb") as data:
        f.write(st_io.header_bytes(entries))
        shutil.copyfileobj(data, f, 64 << 20)
    os.replace(tmp, out / "model.safetensors")
    data_path.unlink()
    return header


def copy_tokenizer(name, shared, out):
    """Real tokenizer files when ../shared has them, so the folders also open in the app; the
    benchmark itself feeds token ids."""
    src = pathlib.Path(shared) / "data/tokenizers" / name if shared else None
    if src is None or not src.is_dir():
        return False
    for f in src.iterdir():
        if f.name in ("vocab.txt", "vocab.json", "merges.txt", "tokenizer.json",
                      "tokenizer.model", "tokenizer_config.json", "special_tokens_map.json"):
            shutil.copyfile(f, out / f.name)
    return True


def vocab_size_of(spec, shared):
    """bert-base-uncased's real vocabulary when present (its size is 30522 either way)."""
    vocab = pathlib.Path(shared or "/nonexistent") / "data/tokenizers" / spec["tokenizer"]
    if spec["arch"] == "bert" and (vocab / "vocab.txt").exists():
        with open(vocab / "vocab.txt", encoding="utf-8") as f:
            return sum(1 for _ in f)
    return spec["vocab_size"]


def make(name, root, shared):
    spec = MODELS[name]
    out = root / name
    vocab_size = vocab_size_of(spec, shared)
    wanted = {"generator_version": GENERATOR_VERSION, "model": name, "spec": spec,
              "vocab_size": vocab_size}
    stamp = out / "bench_config.json"
    if stamp.exists() and (out / "model.safetensors").exists():
        if json.loads(stamp.read_text()) == wanted:
            print(f"make_forward_models: {out} is up to date")
            return
    start = time.monotonic()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    c = dict(spec)
    config = hf_layouts.CONFIG_WRITERS[c["arch"]](c, vocab_size, spec["special"])
    header = write_checkpoint(c, vocab_size, config, out)
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    if not copy_tokenizer(spec["tokenizer"], shared, out) and c["arch"] == "bert":
        print(f"make_forward_models: no real vocabulary under {shared}; "
              f"{name} has random weights over a vocabulary of {vocab_size} ids only")
    params = sum(int(np.prod(e["shape"])) for e in header.values())
    stamp.write_text(json.dumps(wanted, indent=2) + "\n")
    print(f"make_forward_models: {out}: {params / 1e6:.1f} M parameters, {c['dtype']}, "
          f"{time.monotonic() - start:.0f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder to hold one subfolder per model")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated subset")
    parser.add_argument("--shared", default=None, help="the ../shared data folder (tokenizers)")
    args = parser.parse_args()
    root = pathlib.Path(args.out)
    root.mkdir(parents=True, exist_ok=True)
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit(f"make_forward_models: unknown model {name!r}; known: {', '.join(MODELS)}")
        make(name, root, args.shared)


if __name__ == "__main__":
    main()
