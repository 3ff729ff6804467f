"""Read-back checks of the GGUF test models (make_gguf_checkpoints.py, issue 32).

Each written GGUF is parsed again with gguf_file.read_gguf and must give, once dequantized
(ggml_blocks) and un-permuted (GPT-2's Conv1D weights transposed back), exactly the tensors of
the Hugging Face folder it stands for, but those the converter drops (hf_to_gguf_classic); its
metadata must describe that folder's config.json and tokenizer files (a BERT file's tokens,
the converter's rewrite undone, are vocab.txt). Two conventions are also
checked against their meaning rather than against our own code: the Q/K row permutation (GGML's
adjacent-pair rotary on the permuted rows must equal Hugging Face's rotate_half rotary on the
original rows) and rope_freqs (llama.cpp's angle / factor must be Hugging Face's llama3 angle).
"""

import collections
import json
import os

import numpy as np
import torch

import gguf_file
import hf_to_gguf
import hf_to_gguf_classic
import llama_reference
import st_io


class CheckFailed(Exception):
    pass


def _expect(ok, what):
    if not ok:
        raise CheckFailed(what)


def converter_permute(values, n_heads):
    """LlamaModel.permute's reshape/swapaxes form (full rotary only), to cross-check ours."""
    shape = values.shape
    return (values.reshape(n_heads, 2, shape[0] // n_heads // 2, *shape[1:])
            .swapaxes(1, 2).reshape(shape))


def _hf_rotary(x, pos, theta, rot):
    """Hugging Face rotary on one head vector: pairs (i, i + rot/2), the rest passes."""
    half = rot // 2
    angle = pos * theta ** (-np.arange(half) * 2.0 / rot)
    a, b = x[:half], x[half:rot]
    return np.concatenate([a * np.cos(angle) - b * np.sin(angle),
                           b * np.cos(angle) + a * np.sin(angle), x[rot:]])


def _ggml_norm_rotary(x, pos, theta, rot):
    """GGML rope mode 0 (NORM): adjacent pairs (2i, 2i+1) over the first rot dims."""
    out = x.copy()
    for i in range(rot // 2):
        angle = pos * theta ** (-2.0 * i / rot)
        x0, x1 = x[2 * i], x[2 * i + 1]
        out[2 * i] = x0 * np.cos(angle) - x1 * np.sin(angle)
        out[2 * i + 1] = x0 * np.sin(angle) + x1 * np.cos(angle)
    return out


def check_permutation_convention(dim, rot, heads=3):
    """The permuted file, rotated the GGML way, must equal the HF rotation, permuted."""
    rng = np.random.RandomState(dim * 100 + rot)
    q = rng.standard_normal(heads * dim)
    if rot == dim:
        _expect(np.array_equal(hf_to_gguf.permute_qk(q, heads, dim, rot),
                               converter_permute(q, heads)),
                f"permutation differs from LlamaModel.permute (dim {dim})")
    for pos in (1, 5):
        hf = np.concatenate([_hf_rotary(h, pos, 1e4, rot) for h in q.reshape(heads, dim)])
        gg = hf_to_gguf.permute_qk(q, heads, dim, rot).reshape(heads, dim)
        gg = np.concatenate([_ggml_norm_rotary(h, pos, 1e4, rot) for h in gg])
        _expect(np.allclose(hf_to_gguf.permute_qk(hf, heads, dim, rot), gg, atol=1e-12),
                f"permuted rotary does not commute (dim {dim}, rot {rot})")


def check_rope_freqs(config, factors):
    """llama.cpp: angle_i = pos * theta^(-2i/n_rot) / factor_i; must be HF's llama3 inv_freq."""
    rot = hf_to_gguf.rotary_dims(config)
    _expect(factors.shape == (rot // 2,), f"rope_freqs shape {factors.shape}")
    base = 1.0 / (config.get("rope_theta", 10000.0)
                  ** (torch.arange(0, rot, 2, dtype=torch.float64) / rot))
    hf = llama_reference.rope_inverse_frequencies(config, rot).double()
    ours = base / torch.from_numpy(factors.astype(np.float64))
    _expect(torch.allclose(ours, hf, rtol=2e-6, atol=0), f"rope_freqs: {ours} vs HF {hf}")


def _check_metadata(meta, config, folder):
    arch = hf_to_gguf.gguf_arch(config)
    _expect(meta["general.architecture"] == arch, "general.architecture")
    expected = {"block_count": config["num_hidden_layers"],
                "embedding_length": config["hidden_size"],
                "feed_forward_length": config["intermediate_size"],
                "attention.head_count": config["num_attention_heads"],
                "attention.head_count_kv": config["num_key_value_heads"]}
    for key, value in expected.items():
        _expect(meta[f"{arch}.{key}"] == value, f"{arch}.{key}")
    with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    _expect([vocab[t] for t in meta["tokenizer.ggml.tokens"]] == list(range(len(vocab))),
            "tokenizer.ggml.tokens are not the vocabulary by id")
    _expect(meta["tokenizer.ggml.merges"] == hf_to_gguf.read_bpe_merges(folder), "merges")
    _expect(meta["tokenizer.ggml.bos_token_id"] == config["bos_token_id"], "bos id")
    control = [i for i, t in enumerate(meta["tokenizer.ggml.token_type"]) if t == 3]
    _expect(control == [config["bos_token_id"]], f"control tokens {control}")


def _verify_classic(meta, tensors, config, hf_folder):
    """GPT-2 / BERT: every tensor the converter keeps, exactly, in its layout."""
    classic = hf_to_gguf_classic
    classic.check_metadata(meta, config, hf_folder, _expect)
    hf = {n: t.float().numpy() for n, t in st_io.load_checkpoint(hf_folder).items()}
    seen = []
    for t in tensors:
        name = classic.hf_name_of(config, hf, t.name)
        got = classic.from_gguf_layout(config, name, t.values())
        _expect(name in hf and got.shape == hf[name].shape, f"{t.name}: ne {t.ne}")
        _expect(len(t.ne) == 2 or t.type_name == "F32", f"{t.name}: 1-D tensor in {t.type_name}")
        _expect(np.array_equal(got, hf[name]), f"{t.name} differs from {name}")
        seen.append(name)
    kept = sorted(set(hf) - set(classic.dropped_names(config, hf)))
    _expect(sorted(seen) == kept, f"tensors {sorted(set(kept) - set(seen))} not in GGUF")
    return dict(sorted(collections.Counter(t.type_name for t in tensors).items()))


def verify_gguf(gguf_path, hf_folder):
    """Check one GGUF against its HF folder; returns {type name: tensor count}."""
    meta, tensors = gguf_file.read_gguf(gguf_path)
    with open(os.path.join(hf_folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if hf_to_gguf_classic.handles(config):
        return _verify_classic(meta, tensors, config, hf_folder)
    _check_metadata(meta, config, hf_folder)
    arch = hf_to_gguf.gguf_arch(config)
    hf = {n: t.float().numpy() for n, t in st_io.load_checkpoint(hf_folder).items()}
    seen = []
    for t in tensors:
        values = t.values()
        if t.name == "rope_freqs.weight":
            _expect(t.type_name == "F32", "rope_freqs type")
            check_rope_freqs(config, values)
            continue
        name = hf_to_gguf.hf_name_of(t.name)
        _expect(list(t.ne) == list(reversed(hf[name].shape)), f"{t.name}: ne {t.ne}")
        _expect(len(t.ne) == 2 or t.type_name == "F32", f"{t.name}: 1-D tensor in {t.type_name}")
        got = hf_to_gguf.from_gguf_layout(config, arch, t.name, values)
        _expect(np.array_equal(got, hf[name]), f"{t.name} differs from {name}")
        seen.append(name)
    _expect(sorted(seen) == sorted(hf), f"tensors {sorted(set(hf) - set(seen))} not in GGUF")
    if hf_to_gguf.permutes_qk(arch):
        check_permutation_convention(hf_to_gguf.head_dim(config), hf_to_gguf.rotary_dims(config))
    return dict(sorted(collections.Counter(t.type_name for t in tensors).items()))
