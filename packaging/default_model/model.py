"""A small BERT masked-LM in plain torch, with parameter names equal to Hugging Face's
BertForMaskedLM so the state dict can be written out unchanged (no `transformers` on Debian 12).

Also holds the config.json writer and a minimal safetensors writer/reader (Debian has no
`safetensors` package either); the format is the one /work/main/tests/reference/st_io.py writes.
"""

import json
import math
import struct

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

LN_EPS = 1e-12


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)

    def forward(self, x, bias, want_probs=False):
        b, n, h = x.shape
        nh, d = self.heads, h // self.heads
        # 3-D bmm over (batch * heads): on Debian's torch 1.13 the backward of a 4-D matmul is
        # ~6x slower than this (measured: 1381 vs 222 ms per layer at batch 32, n = 128).
        split = lambda t: t.view(b, n, nh, d).transpose(1, 2).reshape(b * nh, n, d)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        logits = torch.bmm(q, k.transpose(1, 2)).view(b, nh, n, n) / math.sqrt(d) + bias
        probs = logits.softmax(-1)
        out = torch.bmm(probs.view(b * nh, n, n), v).view(b, nh, n, d)
        out = out.transpose(1, 2).reshape(b, n, h)
        return out, (probs if want_probs else None)


class _Dense(nn.Module):
    """HF's BertSelfOutput / BertOutput: dense, (dropout), residual, LayerNorm (post-norm)."""

    def __init__(self, d_in, hidden):
        super().__init__()
        self.dense = nn.Linear(d_in, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=LN_EPS)

    def forward(self, x, residual):
        return self.LayerNorm(self.dense(x) + residual)


class _Attention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.self = SelfAttention(hidden, heads)
        self.output = _Dense(hidden, hidden)


class _Intermediate(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.dense = nn.Linear(hidden, ffn)


class Layer(nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attention = _Attention(hidden, heads)
        self.intermediate = _Intermediate(hidden, ffn)
        self.output = _Dense(ffn, hidden)

    def forward(self, x, bias, want_probs=False):
        a, probs = self.attention.self(x, bias, want_probs)
        x = self.attention.output(a, x)
        # HF "gelu" is the exact erf form, not the tanh approximation.
        return self.output(F.gelu(self.intermediate.dense(x)), x), probs


class _Embeddings(nn.Module):
    def __init__(self, vocab, hidden, max_pos, types):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(max_pos, hidden)
        self.token_type_embeddings = nn.Embedding(types, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=LN_EPS)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1])
        x = (self.word_embeddings(ids) + self.position_embeddings(pos)[None]
             + self.token_type_embeddings(torch.zeros_like(ids)))
        return self.LayerNorm(x)


class _Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(Layer(c["hidden_size"], c["num_attention_heads"],
                                         c["intermediate_size"])
                                   for _ in range(c["num_hidden_layers"]))


class _Bert(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = _Embeddings(c["vocab_size"], c["hidden_size"],
                                      c["max_position_embeddings"], c["type_vocab_size"])
        self.encoder = _Encoder(c)


class _Transform(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=LN_EPS)


class _Predictions(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.transform = _Transform(hidden)
        self.bias = nn.Parameter(torch.zeros(vocab))


class _Cls(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.predictions = _Predictions(vocab, hidden)


class BertForMaskedLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.bert = _Bert(c)
        self.cls = _Cls(c["vocab_size"], c["hidden_size"])
        self.apply(self._init)

    @staticmethod
    def _init(m):
        # BERT's initialisation: N(0, 0.02) weights, zero biases, unit LayerNorm.
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear):
            nn.init.zeros_(m.bias)
        if isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)

    def encode(self, ids, pad_mask, want_probs=False):
        """Final hidden states (b, n, h) and, on request, every layer's attention probs."""
        bias = torch.zeros(pad_mask.shape, dtype=torch.float32)
        bias = bias.masked_fill(~pad_mask, -1e9)[:, None, None, :]
        x, all_probs = self.bert.embeddings(ids), []
        for layer in self.bert.encoder.layer:
            x, probs = layer(x, bias, want_probs)
            all_probs.append(probs)
        return x, all_probs

    def mlm_logits(self, h):
        """The MLM head on selected hidden states (m, h); the decoder is tied to the embeddings."""
        t = self.cls.predictions.transform
        h = t.LayerNorm(F.gelu(t.dense(h)))
        return h @ self.bert.embeddings.word_embeddings.weight.T + self.cls.predictions.bias


def hf_config(c, pad_id):
    return {
        "architectures": ["BertForMaskedLM"],
        "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": c["hidden_size"],
        "initializer_range": 0.02,
        "intermediate_size": c["intermediate_size"],
        "layer_norm_eps": LN_EPS,
        "max_position_embeddings": c["max_position_embeddings"],
        "model_type": "bert",
        "num_attention_heads": c["num_attention_heads"],
        "num_hidden_layers": c["num_hidden_layers"],
        "pad_token_id": pad_id,
        "position_embedding_type": "absolute",
        "torch_dtype": "float16",
        "transformers_version": "4.46.3",
        "type_vocab_size": c["type_vocab_size"],
        "use_cache": True,
        "vocab_size": c["vocab_size"],
    }


def save_safetensors(tensors, path, metadata=None):
    """Rust-safetensors layout: ordered by (element size desc, name), 8-aligned header."""
    header = {"__metadata__": metadata} if metadata else {}
    blobs, offset = [], 0
    for name in sorted(tensors, key=lambda n: (-tensors[n].element_size(), n)):
        t = tensors[name].detach().contiguous()
        blob = t.numpy().astype(t.numpy().dtype.newbyteorder("<"), copy=False).tobytes()
        dtype = {torch.float16: "F16", torch.float32: "F32"}[t.dtype]
        header[name] = {"dtype": dtype, "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    header.pop("__metadata__", None)
    np_type = {"F16": "<f2", "F32": "<f4"}
    out = {}
    for name, h in header.items():
        a, b = h["data_offsets"]
        arr = np.frombuffer(data[a:b], dtype=np_type[h["dtype"]]).reshape(h["shape"])
        out[name] = torch.from_numpy(arr.copy())
    return out


def export(model, out_dir, pad_id, metadata=None):
    """config.json + model.safetensors (F16, tied decoder weight left out as HF does)."""
    with open(f"{out_dir}/config.json", "w") as f:
        json.dump(hf_config(model.config, pad_id), f, indent=2, sort_keys=True)
        f.write("\n")
    tensors = {k: v.to(torch.float16) for k, v in model.state_dict().items()}
    save_safetensors(tensors, f"{out_dir}/model.safetensors", metadata or {"format": "pt"})


def load_exported(model_dir):
    """Rebuild the torch model from an exported folder (weights upcast from F16 to F32)."""
    with open(f"{model_dir}/config.json") as f:
        c = json.load(f)
    model = BertForMaskedLM(c)
    state = {k: v.float() for k, v in load_safetensors(f"{model_dir}/model.safetensors").items()}
    model.load_state_dict(state)
    return model.eval()
