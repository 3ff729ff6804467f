#!/usr/bin/python3
"""PyTorch peer of the forward-pass benchmark: BERT, GPT-2 and Llama read from the same
safetensors files as AttnScope, every attention probability map returned, fp32, batch 1.

    torch_peer.py MODEL_DIR --serve            one JSON request per stdin line (see below)
    torch_peer.py MODEL_DIR --export-onnx OUT  the same module as ONNX (for the ORT peer)
    torch_peer.py --gemm 1024 --threads 1,2    torch.mm GFLOP/s and which BLAS serves it

Requests: {"ids": [...], "threads": t, "repeats": k, "warmup": w}; replies: {"times_ms": [...],
"maxrss_kb": ..., "check": [layer 0, last layer]}. Run by /usr/bin/python3 (Debian's torch).

The math follows tests/reference/torch_reference.py and llama_reference.py (checked against
AttnScope to 1e-5), rewritten for speed the way a careful PyTorch user would: weights widened to
fp32 once at load, fused QKV (and gate|up) projections, all heads of a layer in one batched
matmul, grouped-query attention by reshaping queries instead of repeating keys, masks and rotary
tables precomputed, torch.inference_mode. The LM head is not run (AttnScope's pass stops at the
final hidden states too).
"""

import argparse
import json
import math
import os
import resource
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class SafetensorsFile:
    """Tensors of one model.safetensors read one at a time with pread, so loading the 1.1 B
    model never holds the file and its fp32 copy at once (and no mapped file pages count
    towards the peer's resident memory)."""

    _NP = {"F32": np.float32, "F16": np.float16, "BF16": np.int16}

    def __init__(self, folder):
        self.fd = os.open(os.path.join(folder, "model.safetensors"), os.O_RDONLY)
        (n,) = np.frombuffer(os.pread(self.fd, 8, 0), dtype="<u8")
        self.header = json.loads(os.pread(self.fd, int(n), 8))
        self.header.pop("__metadata__", None)
        self.start = 8 + int(n)

    def __contains__(self, name):
        return name in self.header

    def get(self, name):
        """fp32 copy of one tensor (BF16 bits travel as int16, then through torch)."""
        info = self.header[name]
        begin, end = info["data_offsets"]
        raw = bytearray(os.pread(self.fd, end - begin, self.start + begin))
        array = np.frombuffer(raw, dtype=self._NP[info["dtype"]]).reshape(info["shape"])
        t = torch.from_numpy(array)
        if info["dtype"] == "BF16":
            t = t.view(torch.bfloat16)
        return t.float()


def param(t):
    return nn.Parameter(t.contiguous(), requires_grad=False)


def batched_attention(q, k, v, bias, scale):
    """q [kvH, g*n, d], k and v [kvH, n, d] (g query heads share each key/value head; g = 1 for
    plain multi-head attention); bias [n, n] additive mask or None. Returns the context
    [kvH, g*n, d] and the probabilities [kvH*g, n, n]."""
    n = k.shape[1]
    scores = torch.matmul(q * scale, k.transpose(1, 2)).reshape(-1, n, n)
    if bias is not None:
        scores = scores + bias
    probs = torch.softmax(scores, dim=-1)
    ctx = torch.matmul(probs.reshape(k.shape[0], -1, n), v)
    return ctx, probs


def causal_bias(max_pos):
    return torch.full((max_pos, max_pos), float("-inf")).triu(1)


class BertPeer(nn.Module):
    """Post-norm BERT encoder: embeddings (word + position + token type 0) and LayerNorm, then
    x = LN(x + attn(x)); x = LN(x + ffn(x)); exact-erf GELU."""

    def __init__(self, cfg, st):
        super().__init__()
        self.h, self.heads = cfg["hidden_size"], cfg["num_attention_heads"]
        self.eps = cfg["layer_norm_eps"]
        p = "bert." if "bert.embeddings.word_embeddings.weight" in st else ""
        e = p + "embeddings."
        self.word = param(st.get(e + "word_embeddings.weight"))
        self.pos = param(st.get(e + "position_embeddings.weight"))
        self.type0 = param(st.get(e + "token_type_embeddings.weight")[0])
        self.ln_e = nn.ParameterList([param(st.get(e + "LayerNorm.weight")),
                                      param(st.get(e + "LayerNorm.bias"))])
        self.layers = nn.ModuleList()
        for i in range(cfg["num_hidden_layers"]):
            a = f"{p}encoder.layer.{i}."
            names = ["attention.self.query", "attention.self.key", "attention.self.value"]
            layer = nn.Module()
            layer.wqkv = param(torch.cat([st.get(a + s + ".weight") for s in names]))
            layer.bqkv = param(torch.cat([st.get(a + s + ".bias") for s in names]))
            for short, name in (("o", "attention.output.dense"), ("f1", "intermediate.dense"),
                                ("f2", "output.dense"), ("ln1", "attention.output.LayerNorm"),
                                ("ln2", "output.LayerNorm")):
                setattr(layer, short + "_w", param(st.get(a + name + ".weight")))
                setattr(layer, short + "_b", param(st.get(a + name + ".bias")))
            self.layers.append(layer)

    def forward(self, ids):
        h, heads = self.h, self.heads
        d = h // heads
        n = ids.shape[0]
        x = self.word[ids] + self.pos[:n] + self.type0
        x = F.layer_norm(x, (h,), self.ln_e[0], self.ln_e[1], self.eps)
        probs_all = []
        for L in self.layers:
            qkv = F.linear(x, L.wqkv, L.bqkv)
            q, k, v = (t.reshape(-1, heads, d).transpose(0, 1) for t in qkv.split(h, dim=1))
            ctx, probs = batched_attention(q, k, v, None, 1.0 / math.sqrt(d))
            x = F.layer_norm(x + F.linear(ctx.transpose(0, 1).reshape(-1, h), L.o_w, L.o_b),
                             (h,), L.ln1_w, L.ln1_b, self.eps)
            f = F.linear(F.gelu(F.linear(x, L.f1_w, L.f1_b)), L.f2_w, L.f2_b)
            x = F.layer_norm(x + f, (h,), L.ln2_w, L.ln2_b, self.eps)
            probs_all.append(probs)
        return (x, *probs_all)


class Gpt2Peer(nn.Module):
    """Pre-norm GPT-2: x += attn(LN1(x)); x += mlp(LN2(x)), causal, ln_f; Conv1D weights are
    [in, out], used as stored through addmm; tanh GELU."""

    def __init__(self, cfg, st):
        super().__init__()
        self.h, self.heads = cfg["n_embd"], cfg["n_head"]
        self.eps = cfg["layer_norm_epsilon"]
        p = "transformer." if "transformer.wte.weight" in st else ""
        self.wte = param(st.get(p + "wte.weight"))
        self.wpe = param(st.get(p + "wpe.weight"))
        self.register_buffer("bias", causal_bias(cfg["n_positions"]), persistent=False)
        self.layers = nn.ModuleList()
        for i in range(cfg["n_layer"]):
            layer = nn.Module()
            for name in ("ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj"):
                short = name.replace(".", "_")
                setattr(layer, short + "_w", param(st.get(f"{p}h.{i}.{name}.weight")))
                setattr(layer, short + "_b", param(st.get(f"{p}h.{i}.{name}.bias")))
            self.layers.append(layer)
        self.lnf_w, self.lnf_b = param(st.get(p + "ln_f.weight")), param(st.get(p + "ln_f.bias"))

    def forward(self, ids):
        h, heads = self.h, self.heads
        d = h // heads
        n = ids.shape[0]
        x = self.wte[ids] + self.wpe[:n]
        bias = self.bias[:n, :n]
        probs_all = []
        for L in self.layers:
            a = F.layer_norm(x, (h,), L.ln_1_w, L.ln_1_b, self.eps)
            qkv = torch.addmm(L.attn_c_attn_b, a, L.attn_c_attn_w)
            q, k, v = (t.reshape(-1, heads, d).transpose(0, 1) for t in qkv.split(h, dim=1))
            ctx, probs = batched_attention(q, k, v, bias, 1.0 / math.sqrt(d))
            x = x + torch.addmm(L.attn_c_proj_b, ctx.transpose(0, 1).reshape(-1, h),
                                L.attn_c_proj_w)
            m = F.layer_norm(x, (h,), L.ln_2_w, L.ln_2_b, self.eps)
            m = F.gelu(torch.addmm(L.mlp_c_fc_b, m, L.mlp_c_fc_w), approximate="tanh")
            x = x + torch.addmm(L.mlp_c_proj_b, m, L.mlp_c_proj_w)
            probs_all.append(probs)
        return (F.layer_norm(x, (h,), self.lnf_w, self.lnf_b, self.eps), *probs_all)


class LlamaPeer(nn.Module):
    """Llama: RMSNorm, rotary positions (rotate_half pairing, default scaling), grouped-query
    causal attention, SwiGLU, final RMSNorm. Plain Llama only (no biases, window or scaling)."""

    def __init__(self, cfg, st):
        super().__init__()
        self.h, self.heads = cfg["hidden_size"], cfg["num_attention_heads"]
        self.kv_heads = cfg.get("num_key_value_heads", self.heads)
        self.d = cfg.get("head_dim") or self.h // self.heads
        self.eps = cfg["rms_norm_eps"]
        if cfg.get("rope_scaling") or cfg.get("attention_bias") or cfg.get("mlp_bias"):
            raise NotImplementedError("torch_peer: rope_scaling / biases are not benchmarked")
        inv = 1.0 / (cfg.get("rope_theta", 10000.0)
                     ** (torch.arange(0, self.d, 2, dtype=torch.int64).float() / self.d))
        angles = torch.arange(cfg["max_position_embeddings"]).float()[:, None] * inv[None, :]
        emb = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)
        self.register_buffer("bias", causal_bias(cfg["max_position_embeddings"]),
                             persistent=False)
        self.embed = param(st.get("model.embed_tokens.weight"))
        self.layers = nn.ModuleList()
        for i in range(cfg["num_hidden_layers"]):
            p = f"model.layers.{i}."
            layer = nn.Module()
            layer.wqkv = param(torch.cat([st.get(p + f"self_attn.{s}_proj.weight")
                                          for s in "qkv"]))
            layer.wo = param(st.get(p + "self_attn.o_proj.weight"))
            layer.wgu = param(torch.cat([st.get(p + "mlp.gate_proj.weight"),
                                         st.get(p + "mlp.up_proj.weight")]))
            layer.wd = param(st.get(p + "mlp.down_proj.weight"))
            layer.n1 = param(st.get(p + "input_layernorm.weight"))
            layer.n2 = param(st.get(p + "post_attention_layernorm.weight"))
            self.layers.append(layer)
        self.norm = param(st.get("model.norm.weight"))

    def rms(self, x, w):
        return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))

    def rope(self, x, cos, sin):
        half = x.shape[-1] // 2
        return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin

    def forward(self, ids):
        heads, kvh, d = self.heads, self.kv_heads, self.d
        n = ids.shape[0]
        cos, sin, bias = self.cos[:n], self.sin[:n], self.bias[:n, :n]
        x = self.embed[ids]
        probs_all = []
        for L in self.layers:
            qkv = F.linear(self.rms(x, L.n1), L.wqkv)
            q, k, v = qkv.split([heads * d, kvh * d, kvh * d], dim=1)
            q = self.rope(q.reshape(-1, heads, d).transpose(0, 1), cos, sin)
            k = self.rope(k.reshape(-1, kvh, d).transpose(0, 1), cos, sin)
            v = v.reshape(-1, kvh, d).transpose(0, 1)
            # Query heads kv*g .. kv*g+g-1 share key/value head kv: stack them along the rows.
            ctx, probs = batched_attention(q.reshape(kvh, -1, d), k, v, bias,
                                           1.0 / math.sqrt(d))
            ctx = ctx.reshape(heads, -1, d).transpose(0, 1).reshape(-1, heads * d)
            x = x + F.linear(ctx, L.wo)
            gate, up = F.linear(self.rms(x, L.n2), L.wgu).chunk(2, dim=1)
            x = x + F.linear(F.silu(gate) * up, L.wd)
            probs_all.append(probs)
        return (self.rms(x, self.norm), *probs_all)


PEERS = {"bert": BertPeer, "gpt2": Gpt2Peer, "llama": LlamaPeer}


def load(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    model = PEERS[cfg["model_type"]](cfg, SafetensorsFile(folder))
    return model.eval(), cfg


def fingerprint(probs):
    """Mean attended key position (the same formula as forward_bench.cpp)."""
    n = probs.shape[-1]
    return float((probs.double() * torch.arange(n, dtype=torch.float64)).sum() / (probs.numel() / n))


def maxrss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def current_rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def time_forward(model, request):
    torch.set_num_threads(request["threads"])
    ids = torch.tensor(request["ids"], dtype=torch.int64)
    times, out = [], None
    warmup, repeats = request.get("warmup", 0), request.get("repeats", 1)
    with torch.inference_mode():
        for i in range(warmup + repeats):
            out = None  # free the previous maps first, as the other programs do
            start = time.perf_counter()
            out = model(ids)
            ms = (time.perf_counter() - start) * 1e3
            if i >= warmup:
                times.append(ms)
    return {"n": len(request["ids"]), "threads": torch.get_num_threads(), "times_ms": times,
            "maxrss_kb": maxrss_kb(), "rss_kb": current_rss_kb(),
            "check": [fingerprint(out[1]), fingerprint(out[-1])]}


def blas_in_use():
    """The BLAS library torch's sgemm resolved to (Debian's libblas.so.3 is an alternative:
    reference BLAS, or OpenBLAS once libopenblas0-openmp is installed)."""
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    return sorted(os.path.realpath(p) for p in libs)


def serve(folder):
    start = time.perf_counter()
    model, _ = load(folder)
    print(json.dumps({"ready": True, "program": "pytorch", "torch": torch.__version__,
                      "load_ms": (time.perf_counter() - start) * 1e3,
                      "rss_after_load_kb": current_rss_kb(), "maxrss_kb": maxrss_kb(),
                      "blas": blas_in_use()}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if request.get("quit"):
                break
            reply = time_forward(model, request)
        except Exception as e:  # noqa: BLE001 - reported to the driver, which stops
            reply = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


def export_onnx(folder, out):
    """The same module to ONNX (opset 14, dynamic sequence length, the probabilities of each
    layer as outputs probs_0 ...). Models over 2 GB go to external data files beside `out`
    (protobuf's limit), which torch decides by itself when given a path."""
    model, cfg = load(folder)
    n_layers = cfg.get("num_hidden_layers", cfg.get("n_layer"))
    outputs = ["hidden"] + [f"probs_{i}" for i in range(n_layers)]
    axes = {"input_ids": {0: "n"}, "hidden": {0: "n"}}
    axes.update({name: {1: "n", 2: "n"} for name in outputs[1:]})
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(model, (torch.arange(7, dtype=torch.int64),), out, opset_version=14,
                          input_names=["input_ids"], output_names=outputs, dynamic_axes=axes,
                          do_constant_folding=True)


def gemm(size, threads, repeats):
    a, b = torch.randn(size, size), torch.randn(size, size)
    results = []
    for t in threads:
        torch.set_num_threads(t)
        torch.mm(a, b)
        gflops = []
        for _ in range(repeats):
            start = time.perf_counter()
            torch.mm(a, b)
            gflops.append(2.0 * size ** 3 / (time.perf_counter() - start) / 1e9)
        results.append({"threads": t, "size": size, "gflops": gflops})
    return {"program": "torch-sgemm", "blas": blas_in_use(), "results": results}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", nargs="?", help="model folder")
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--export-onnx", metavar="OUT")
    parser.add_argument("--gemm", type=int, default=0, metavar="SIZE")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    # Inter-op parallelism would only add a second pool competing for the same 2 cores.
    torch.set_num_interop_threads(1)
    if args.gemm:
        threads = [int(t) for t in args.threads.split(",")]
        print(json.dumps(gemm(args.gemm, threads, args.repeats)))
    elif args.export_onnx:
        export_onnx(args.model, args.export_onnx)
    elif args.serve and args.model:
        serve(args.model)
    else:
        parser.error("give MODEL --serve, MODEL --export-onnx OUT, or --gemm SIZE")


if __name__ == "__main__":
    main()
