#!/usr/bin/env python3
"""A random-weight T5 that reads real text, for the alignment view's README screenshot.

The generated encoder-decoder fixtures (tests/reference/make_seq2seq_checkpoints.py) have toy
vocabularies and no tokenizer, so their words would be token numbers. This widens the fixture
t5_v10_f32's embedding to t5-small's 32128 tokens (new rows random, seeded) and copies t5-small's
tokenizer beside it: real words, still random attention (2 decoder layers x 3 heads, d_model 14).

    make_alignment_model.py FIXTURE_DIR/seq2seq/t5_v10_f32 TOKENIZERS/t5-small OUT_DIR

Standard library only (no numpy or torch on the build machines).
"""
import json
import random
import shutil
import struct
import sys
from array import array
from pathlib import Path


def read_safetensors(path):
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    body = data[8 + n :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            sys.exit(f"{path}: {name} is {info['dtype']}; expected F32")
        begin, end = info["data_offsets"]
        values = array("f")
        values.frombytes(body[begin:end])
        tensors[name] = (info["shape"], values)
    return tensors


def write_safetensors(path, tensors):
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, (shape, values) in tensors.items():
        size = len(values) * 4
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, (_, values) in tensors.items():
            f.write(values.tobytes())


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    fixture, tokenizer, out = (Path(a) for a in sys.argv[1:])
    config = json.loads((fixture / "config.json").read_text())
    vocab = json.loads((tokenizer / "config.json").read_text())["vocab_size"]
    tensors = read_safetensors(fixture / "model.safetensors")
    shape, old = tensors["shared.weight"]
    rows, dim = shape
    rng = random.Random(20)
    spread = (sum(v * v for v in old) / len(old)) ** 0.5
    wide = array("f", old)
    wide.extend(rng.gauss(0.0, spread) for _ in range((vocab - rows) * dim))
    tensors["shared.weight"] = ([vocab, dim], wide)
    config["vocab_size"] = vocab
    out.mkdir(parents=True, exist_ok=True)
    write_safetensors(out / "model.safetensors", tensors)
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    for name in ("spiece.model", "tokenizer.json", "tokenizer_config.json",
                 "special_tokens_map.json"):
        if (tokenizer / name).exists():
            shutil.copy(tokenizer / name, out / name)
    print(f"wrote {out}: vocabulary {rows} -> {vocab}")


if __name__ == "__main__":
    main()
