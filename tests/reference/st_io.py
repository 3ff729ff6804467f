"""Minimal safetensors reader/writer for the reference tooling.

Hand-written on purpose: Debian ships no `safetensors` Python package and the test machines have
no network, so /usr/bin/python3 cannot `pip install` it. The format is small enough to write here:

    8 bytes   little-endian u64 N = header length
    N bytes   UTF-8 JSON {name: {"dtype", "shape", "data_offsets": [begin, end]},
                          "__metadata__": {str: str}}  (metadata optional)
    rest      data area; offsets are relative to its start; tensors are contiguous, row-major,
              little-endian.

The writer mimics the Rust `safetensors` library that Hugging Face uses (tensors ordered by
descending element size then name, compact JSON with `__metadata__` first, header padded with
spaces to a multiple of 8 bytes) so the C++ loader is tested on files shaped like real ones.
It also writes sharded checkpoints the way `save_pretrained(max_shard_size=...)` does.
"""

import json
import os
import struct

import numpy as np
import torch

# dtype name -> (torch dtype used to hold it, numpy dtype of its raw little-endian bytes).
# BF16 has no numpy dtype, so its bytes travel as int16 and are reinterpreted by torch.
_DTYPES = {
    "F64": (torch.float64, np.dtype("<f8")),
    "F32": (torch.float32, np.dtype("<f4")),
    "F16": (torch.float16, np.dtype("<f2")),
    "BF16": (torch.bfloat16, np.dtype("<i2")),
    "I64": (torch.int64, np.dtype("<i8")),
    "I32": (torch.int32, np.dtype("<i4")),
    "I16": (torch.int16, np.dtype("<i2")),
    "I8": (torch.int8, np.dtype("i1")),
    "U8": (torch.uint8, np.dtype("u1")),
    "BOOL": (torch.bool, np.dtype("?")),
}
_NAME_OF_TORCH = {torch_dtype: name for name, (torch_dtype, _) in _DTYPES.items()}


def dtype_name(tensor):
    """Safetensors dtype string ("F32", "BF16", ...) for a torch tensor."""
    return _NAME_OF_TORCH[tensor.dtype]


def _tensor_bytes(tensor):
    """Raw little-endian bytes of a tensor in its own dtype (BF16 through an int16 view)."""
    t = tensor.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    array = t.numpy()
    return array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()


def _ordered_names(tensors):
    """Order used by the Rust writer: larger element size first, then by name."""
    return sorted(tensors, key=lambda n: (-tensors[n].element_size(), n))


def header_bytes(header):
    """The bytes before the data: the header's length (u64 LE) and its JSON, space-padded as the
    Rust writer does so the data area is 8-aligned. `header` maps names to dtype/shape/offsets."""
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-(8 + len(text)) % 8)
    return struct.pack("<Q", len(text)) + text


def save_file(tensors, path, metadata=None):
    """Write `tensors` (name -> torch tensor, already in the dtype to store) to `path`."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs, offset = [], 0
    for name in _ordered_names(tensors):
        blob = _tensor_bytes(tensors[name])
        header[name] = {
            "dtype": dtype_name(tensors[name]),
            "shape": list(tensors[name].shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        blobs.append(blob)
        offset += len(blob)
    with open(path, "wb") as f:
        f.write(header_bytes(header))
        for blob in blobs:
            f.write(blob)


def read_header(path):
    """Return (header dict without __metadata__, metadata dict, data-area start offset)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n).decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    return header, metadata, 8 + n


def load_file(path):
    """Read every tensor of one safetensors file, keeping its stored dtype.

    Checks what a careful reader must: offsets inside the file, byte counts matching the shape,
    and tensors tiling the data area without gaps or overlap.
    """
    header, _, start = read_header(path)
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read()
    out, spans = {}, []
    for name, info in header.items():
        torch_dtype, np_dtype = _DTYPES[info["dtype"]]
        begin, end = info["data_offsets"]
        count = int(np.prod(info["shape"], dtype=np.int64))
        if not 0 <= begin <= end <= len(data) or end - begin != count * np_dtype.itemsize:
            raise ValueError(f"{path}: {name}: bad data_offsets {info['data_offsets']}")
        array = np.frombuffer(data, dtype=np_dtype, count=count, offset=begin).copy()
        t = torch.from_numpy(array.astype(np_dtype.newbyteorder("="), copy=False))
        if info["dtype"] == "BF16":
            t = t.view(torch.bfloat16)
        out[name] = t.reshape(info["shape"]).to(torch_dtype)
        spans.append((begin, end))
    covered = 0
    for begin, end in sorted(spans):
        if begin != covered:
            raise ValueError(f"{path}: data area has a gap or overlap at byte {begin}")
        covered = end
    if covered != len(data):
        raise ValueError(f"{path}: {len(data) - covered} trailing bytes after the last tensor")
    return out


def plan_shards(tensors, max_shard_size):
    """Split names into shards like huggingface_hub's split_state_dict_into_shards_factory.

    Walk tensors in state-dict order; start a new shard when the next tensor would push the
    current one past max_shard_size; a tensor larger than the limit gets a shard of its own.
    """
    shards, current, size = [], [], 0
    for name, t in tensors.items():
        nbytes = t.numel() * t.element_size()
        if nbytes > max_shard_size:
            shards.append([name])
            continue
        if current and size + nbytes > max_shard_size:
            shards.append(current)
            current, size = [], 0
        current.append(name)
        size += nbytes
    if current:
        shards.append(current)
    return shards


def save_sharded(tensors, folder, num_shards, metadata=None):
    """Save as model-0000i-of-0000n.safetensors plus model.safetensors.index.json.

    Picks the smallest max_shard_size that yields exactly `num_shards` shards, then writes the
    index as save_pretrained does (indent 2, sorted keys, trailing newline). Returns file names.
    """
    total = sum(t.numel() * t.element_size() for t in tensors.values())
    limit = -(-total // num_shards)
    while len(plan_shards(tensors, limit)) > num_shards:
        limit += 1
    shards = plan_shards(tensors, limit)
    if len(shards) != num_shards:
        raise ValueError(f"cannot split {len(tensors)} tensors into {num_shards} shards")
    weight_map, files = {}, []
    for i, names in enumerate(shards):
        file = f"model-{i + 1:05d}-of-{num_shards:05d}.safetensors"
        save_file({n: tensors[n] for n in names}, os.path.join(folder, file), metadata)
        weight_map.update({n: file for n in names})
        files.append(file)
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    with open(os.path.join(folder, "model.safetensors.index.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")
    return files


def load_checkpoint(folder):
    """All tensors of an HF checkpoint folder: model.safetensors, or every shard of the index."""
    index_path = os.path.join(folder, "model.safetensors.index.json")
    if not os.path.exists(index_path):
        return load_file(os.path.join(folder, "model.safetensors"))
    with open(index_path, encoding="utf-8") as f:
        weight_map = json.load(f)["weight_map"]
    out = {}
    for file in sorted(set(weight_map.values())):
        for name, t in load_file(os.path.join(folder, file)).items():
            if weight_map.get(name) != file:
                raise ValueError(f"{folder}/{file}: {name} is not listed for this shard")
            out[name] = t
    missing = set(weight_map) - set(out)
    if missing:
        raise ValueError(f"{folder}: index lists tensors no shard holds: {sorted(missing)[:3]}")
    return out
