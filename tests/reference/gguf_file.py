"""Minimal GGUF v3 writer and reader (little-endian), written from ggml's docs/gguf.md, issue 32.

Independent of AttnScope's C++ loader: test files made here are what that loader is checked on.

Writing:
    from gguf_file import GGUFWriter
    w = GGUFWriter("out.gguf", alignment=32)      # alignment != 32 also writes general.alignment
    w.add("general.architecture", "llama", "string")
    w.add("llama.block_count", 2, "u32")
    w.add("tokenizer.ggml.tokens", ["<s>", "a"], "array", elem_type="string")
    w.add_tensor("tok_embd.weight", [64, 10], "Q8_0", raw_bytes)   # ne in ggml order
    w.add_tensor_values("output.weight", np_array, "Q4_K")  # numpy shape (.., ne1, ne0), quantized
    w.write()
  value types: u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool string array (VALUE_TYPES). Arrays
  take elem_type (any of those but "array": ggml's gguf.cpp rejects nested arrays).
  Keys and tensors are written in the order they were added. ne[0] is the row length (fastest
  axis); numpy arrays with shape (ne1, ne0) map to ne = [ne0, ne1]. n_dims = len(ne) as given.
  Tensor data offsets are relative to the data section, each a multiple of the alignment, laid
  out back to back with zero padding after every tensor (what ggml's reader requires).

Reading:
    from gguf_file import read_gguf
    meta, tensors = read_gguf("out.gguf")
    meta["llama.block_count"] -> 2;  meta.types["llama.block_count"] -> ("u32", None)
    meta.types["tokenizer.ggml.tokens"] -> ("array", "string")
    tensors[i]: GGUFTensor(name, ne, type_name, offset, raw) ; t.values() -> float32 numpy array
    with shape ne[::-1] (dequantized by ggml_blocks). Also: meta.alignment, meta.data_offset.
  Values: ints -> int, f32/f64 -> float, bool -> bool, string -> str, array -> list.
"""

import struct
from dataclasses import dataclass
from typing import List

import numpy as np

import ggml_blocks

GGUF_MAGIC = b"GGUF"
GGUF_VERSION = 3
DEFAULT_ALIGNMENT = 32

# name -> (gguf_metadata_value_type id, struct format of a scalar or None)
VALUE_TYPES = {
    "u8": (0, "<B"), "i8": (1, "<b"), "u16": (2, "<H"), "i16": (3, "<h"),
    "u32": (4, "<I"), "i32": (5, "<i"), "f32": (6, "<f"), "bool": (7, "<B"),
    "string": (8, None), "array": (9, None), "u64": (10, "<Q"), "i64": (11, "<q"),
    "f64": (12, "<d"),
}
VALUE_TYPE_BY_ID = {tid: name for name, (tid, _) in VALUE_TYPES.items()}


def align_offset(offset, alignment):
    return offset + (alignment - offset % alignment) % alignment


def _string(s):
    b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(b)) + b


def _scalar(value, value_type):
    if value_type == "string":
        return _string(value)
    if value_type == "bool":
        if value not in (True, False, 0, 1):
            raise ValueError(f"bool value must be True/False, got {value!r}")
        return struct.pack("<B", 1 if value else 0)
    fmt = VALUE_TYPES[value_type][1]
    if fmt is None:
        raise ValueError(f"{value_type} is not a scalar type")
    return struct.pack(fmt, float(value) if fmt in ("<f", "<d") else int(value))


def encode_value(value, value_type, elem_type=None):
    """Bytes of one metadata value (without key and type tag)."""
    if value_type != "array":
        return _scalar(value, value_type)
    if elem_type not in VALUE_TYPES or elem_type == "array":
        raise ValueError(f"array elem_type must be a scalar type name, got {elem_type!r}")
    items = list(value)
    out = [struct.pack("<IQ", VALUE_TYPES[elem_type][0], len(items))]
    fmt = VALUE_TYPES[elem_type][1]
    if fmt is not None and elem_type != "bool" and items:
        # bulk-pack numeric arrays (token scores, type lists) in one go
        cast = float if fmt in ("<f", "<d") else int
        out.append(struct.pack("<%d%s" % (len(items), fmt[1]), *map(cast, items)))
    else:
        out.extend(_scalar(v, elem_type) for v in items)
    return b"".join(out)


@dataclass
class GGUFTensor:
    name: str
    ne: List[int]       # ggml order: ne[0] = row length
    type_name: str      # ggml_blocks.TYPES key, or "type<id>" for types the reference lacks
    offset: int         # relative to the data section
    raw: bytes

    @property
    def type_id(self):
        return ggml_blocks.TYPES[self.type_name].type_id

    def values(self):
        n = int(np.prod(self.ne, dtype=np.int64)) if self.ne else 1
        flat = ggml_blocks.dequantize(self.type_name, self.raw, n)
        return flat.reshape(list(reversed(self.ne)) or [1])


class GGUFWriter:
    """Collects metadata and tensors, then write() emits one GGUF v3 file."""

    def __init__(self, path, alignment=DEFAULT_ALIGNMENT, write_alignment_key=None):
        if alignment <= 0 or alignment % 8 or alignment & (alignment - 1):
            raise ValueError("alignment must be a power of two and a multiple of 8")
        self.path = path
        self.alignment = alignment
        self._kv = []        # (key, value_type, encoded bytes)
        self._tensors = []   # (name, ne, type_name, raw)
        if write_alignment_key is None:
            write_alignment_key = alignment != DEFAULT_ALIGNMENT
        if write_alignment_key:
            self.add("general.alignment", alignment, "u32")

    def add(self, key, value, value_type, elem_type=None):
        """Append one key/value; value_type is a VALUE_TYPES name."""
        if value_type not in VALUE_TYPES:
            raise ValueError(f"unknown value type {value_type!r}")
        if any(k == key for k, _, _ in self._kv):
            raise ValueError(f"duplicate key {key!r}")
        if key == "general.alignment":
            if value_type != "u32":
                raise ValueError("general.alignment must be u32")
            self.alignment = int(value)
        self._kv.append((key, value_type, encode_value(value, value_type, elem_type)))

    def add_tensor(self, name, ne, type_name, raw):
        """Append a tensor whose data is already in type_name's block format."""
        ne = [int(v) for v in ne]
        if len(name.encode("utf-8")) >= 64:
            raise ValueError(f"tensor name {name!r} is too long for ggml (max 63 bytes)")
        if any(t[0] == name for t in self._tensors):
            raise ValueError(f"duplicate tensor {name!r}")
        raw = bytes(raw)
        expected = ggml_blocks.tensor_nbytes(type_name, ne)
        if len(raw) != expected:
            raise ValueError(f"{name}: {len(raw)} bytes, {type_name} {ne} needs {expected}")
        self._tensors.append((name, ne, type_name, raw))

    def add_tensor_values(self, name, values, type_name):
        """Quantize a numpy array (shape = reversed ne) to type_name and append it."""
        values = np.asarray(values, dtype=np.float32)
        ne = list(reversed(values.shape)) or [1]
        self.add_tensor(name, ne, type_name, ggml_blocks.quantize(type_name, values))

    def _header(self):
        parts = [GGUF_MAGIC, struct.pack("<IQQ", GGUF_VERSION, len(self._tensors), len(self._kv))]
        for key, value_type, payload in self._kv:
            parts += [_string(key), struct.pack("<I", VALUE_TYPES[value_type][0]), payload]
        offset = 0
        for name, ne, type_name, raw in self._tensors:
            parts += [_string(name), struct.pack("<I%dQ" % len(ne), len(ne), *ne),
                      struct.pack("<IQ", ggml_blocks.TYPES[type_name].type_id, offset)]
            offset = align_offset(offset + len(raw), self.alignment)
        return b"".join(parts)

    def write(self):
        header = self._header()
        with open(self.path, "wb") as f:
            f.write(header)
            f.write(b"\0" * (align_offset(len(header), self.alignment) - len(header)))
            for _, _, _, raw in self._tensors:
                f.write(raw)
                f.write(b"\0" * (align_offset(len(raw), self.alignment) - len(raw)))


class Metadata(dict):
    """key -> python value; .types[key] = (value_type, elem_type or None)."""

    def __init__(self):
        super().__init__()
        self.types = {}
        self.alignment = DEFAULT_ALIGNMENT
        self.data_offset = 0


class _Cursor:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError(f"GGUF truncated at byte {self.pos} (need {n})")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt):
        vals = struct.unpack(fmt, self.take(struct.calcsize(fmt)))
        return vals[0] if len(vals) == 1 else vals

    def string(self):
        return self.take(self.unpack("<Q")).decode("utf-8")


def _read_value(cur, value_type):
    if value_type == "string":
        return cur.string()
    if value_type == "bool":
        b = cur.unpack("<B")
        if b > 1:
            raise ValueError(f"invalid bool byte {b}")
        return bool(b)
    return cur.unpack(VALUE_TYPES[value_type][1])


def _read_kv(cur, meta):
    key = cur.string()
    value_type = VALUE_TYPE_BY_ID[cur.unpack("<I")]
    elem_type = None
    if value_type == "array":
        elem_type = VALUE_TYPE_BY_ID[cur.unpack("<I")]
        if elem_type == "array":
            raise ValueError(f"{key}: nested arrays are not supported")
        count = cur.unpack("<Q")
        fmt = VALUE_TYPES[elem_type][1]
        if fmt is not None and elem_type != "bool":
            size = struct.calcsize(fmt)
            value = list(struct.unpack("<%d%s" % (count, fmt[1]), cur.take(count * size)))
        else:
            value = [_read_value(cur, elem_type) for _ in range(count)]
    else:
        value = _read_value(cur, value_type)
    meta[key] = value
    meta.types[key] = (value_type, elem_type)


def read_gguf(path):
    """Parse a little-endian GGUF v3 file -> (Metadata, [GGUFTensor])."""
    with open(path, "rb") as f:
        data = f.read()
    cur = _Cursor(data)
    if cur.take(4) != GGUF_MAGIC:
        raise ValueError(f"{path}: not a GGUF file")
    version, n_tensors, n_kv = cur.unpack("<IQQ")
    if version != GGUF_VERSION:
        raise ValueError(f"{path}: GGUF version {version}, expected 3")
    meta = Metadata()
    for _ in range(n_kv):
        _read_kv(cur, meta)
    meta.alignment = int(meta.get("general.alignment", DEFAULT_ALIGNMENT))
    infos = []
    for _ in range(n_tensors):
        name = cur.string()
        n_dims = cur.unpack("<I")
        ne = list(struct.unpack("<%dQ" % n_dims, cur.take(8 * n_dims)))
        type_id, offset = cur.unpack("<IQ")
        infos.append((name, ne, type_id, offset))
    meta.data_offset = align_offset(cur.pos, meta.alignment)
    tensors = []
    for name, ne, type_id, offset in infos:
        if offset % meta.alignment:
            raise ValueError(f"{name}: offset {offset} not aligned to {meta.alignment}")
        bt = ggml_blocks.TYPE_BY_ID.get(type_id)
        type_name = bt.name if bt else f"type{type_id}"
        raw = b""
        if bt:
            start = meta.data_offset + offset
            end = start + ggml_blocks.tensor_nbytes(bt.name, ne)
            if end > len(data):
                raise ValueError(f"{name}: data runs past the end of the file")
            raw = data[start:end]
        tensors.append(GGUFTensor(name, ne, type_name, offset, raw))
    return meta, tensors
