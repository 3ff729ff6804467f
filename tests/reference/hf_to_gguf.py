"""How llama.cpp's convert_hf_to_gguf.py turns a Llama-family Hugging Face folder into GGUF.

Written from the converter (TextModel.set_gguf_parameters, LlamaModel, Qwen2Model, the
_set_vocab_gpt2 path and gguf-py's SpecialVocab, GGUFWriter, constants.py and
tensor_mapping.py), in our own code, for the GGUF test models of make_gguf_checkpoints.py (issue
32). Independent of AttnScope's C++ GGUF loader, which is what these files test.

Conventions kept here, with where they come from:
  * general.architecture "llama" for LlamaForCausalLM / MistralForCausalLM (LlamaModel), "qwen2"
    for Qwen2ForCausalLM (Qwen2Model). Keys in the converter's order: general.*, the TextModel
    hyper-parameters, then LlamaModel's vocab_size and rope.dimension_count, then
    general.quantization_version, then the tokenizer.
  * attention.key_length / value_length whenever config.json has head_dim (TextModel).
  * rope.scaling.type "linear" + rope.scaling.factor for linear scaling; llama3 scaling becomes
    the F32 tensor rope_freqs.weight (LlamaModel.generate_extra_tensors), see rope_freq_factors.
  * The llama architecture stores attn_q / attn_k weights and biases in Meta's interleaved
    rotary order (LlamaModel.permute; K uses the KV head count); qwen2 is stored as is.
  * 1-D tensors and *_norm weights are F32 (ModelBase.prepare_tensors).
  * Tokenizer: byte-level BPE (vocab.json + merges.txt) -> tokenizer.ggml.model "gpt2", tokens by
    id, token_type 1 (normal) / 3 (control), merges "a b", bos/eos ids from config.json,
    add_bos_token only where tokenizer_config.json has it (SpecialVocab).

Two places where these test files deliberately say what the Hugging Face model does rather
than what the converter would write (both documented at the functions): partial rotary
(rope.dimension_count = rotary dims, and only those dims are interleaved) and llama3's
original_max_position_embeddings (read from rope_scaling, as Hugging Face does).
"""

import json
import os
import re

import numpy as np
import torch

# gguf-py LlamaFileType values (general.file_type).
FILE_TYPES = {"ALL_F32": 0, "MOSTLY_F16": 1, "MOSTLY_Q4_0": 2, "MOSTLY_Q8_0": 7,
              "MOSTLY_Q4_K_S": 14, "MOSTLY_Q4_K_M": 15, "MOSTLY_BF16": 32}
FILE_TYPE_OF_DTYPE = {"F32": FILE_TYPES["ALL_F32"], "F16": FILE_TYPES["MOSTLY_F16"],
                      "BF16": FILE_TYPES["MOSTLY_BF16"]}
GGML_QUANT_VERSION = 2  # gguf-py constants.GGML_QUANT_VERSION, always written by the converter
TOKEN_NORMAL, TOKEN_CONTROL = 1, 3  # gguf-py TokenType

# GPT-2 and BERT keep their names; hf_to_gguf_classic.py converts them.
GGUF_ARCH = {"llama": "llama", "mistral": "llama", "qwen2": "qwen2", "gpt2": "gpt2",
             "bert": "bert"}

# HF per-layer module -> GGUF per-layer tensor (gguf-py tensor_mapping.py), in the order a
# converted file lists them here.
LAYER_MODULES = [
    ("input_layernorm", "attn_norm"),
    ("self_attn.q_proj", "attn_q"),
    ("self_attn.k_proj", "attn_k"),
    ("self_attn.v_proj", "attn_v"),
    ("self_attn.o_proj", "attn_output"),
    ("post_attention_layernorm", "ffn_norm"),
    ("mlp.gate_proj", "ffn_gate"),
    ("mlp.up_proj", "ffn_up"),
    ("mlp.down_proj", "ffn_down"),
]
GLOBAL_TENSORS = {"model.embed_tokens": "token_embd", "model.norm": "output_norm",
                  "lm_head": "output"}


def gguf_arch(config):
    """The GGUF architecture name of a config.json; refuses what the test converter lacks."""
    model_type = config["model_type"]
    if model_type not in GGUF_ARCH:
        raise NotImplementedError(f"no GGUF conversion for model_type {model_type}")
    if model_type == "mistral" and config.get("sliding_window") is not None:
        raise NotImplementedError("the llama GGUF architecture has no sliding window")
    if model_type == "qwen2" and (config.get("use_sliding_window")
                                  or "partial_rotary_factor" in config):
        raise NotImplementedError("qwen2 sliding window / partial rotary")
    return GGUF_ARCH[model_type]


def head_dim(config):
    return config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]


def rotary_dims(config):
    return int(head_dim(config) * config.get("partial_rotary_factor", 1.0))


def permutes_qk(arch):
    """LlamaModel.undo_permute is True; Qwen2Model has no permutation (NEOX rotary)."""
    return arch == "llama"


# ------------------------------------------------------------------ tensor names and order
def ordered_hf_names(config, tensors):
    """(HF name, GGUF name) pairs of a Llama-family state dict in conversion order: embeddings,
    then each layer's modules (weight before bias), final norm, LM head. Every tensor must be
    placed, so an unexpected name is an error, not a silently dropped weight."""
    pairs = [("model.embed_tokens.weight", "token_embd.weight")]
    for i in range(config["num_hidden_layers"]):
        for hf_module, gguf_tensor in LAYER_MODULES:
            for suffix in ("weight", "bias"):
                name = f"model.layers.{i}.{hf_module}.{suffix}"
                if name in tensors:
                    pairs.append((name, f"blk.{i}.{gguf_tensor}.{suffix}"))
    pairs.append(("model.norm.weight", "output_norm.weight"))
    if "lm_head.weight" in tensors:
        pairs.append(("lm_head.weight", "output.weight"))
    unplaced = set(tensors) - {hf for hf, _ in pairs}
    missing = {hf for hf, _ in pairs} - set(tensors)
    if unplaced or missing:
        raise ValueError(f"unexpected tensors {sorted(unplaced)}, missing {sorted(missing)}")
    return pairs


def hf_name_of(gguf_name):
    """Inverse of the name map (for reading a GGUF back into HF names)."""
    m = re.fullmatch(r"blk\.(\d+)\.(\w+)\.(weight|bias)", gguf_name)
    if m:
        module = {g: h for h, g in LAYER_MODULES}[m.group(2)]
        return f"model.layers.{m.group(1)}.{module}.{m.group(3)}"
    stem, suffix = gguf_name.rsplit(".", 1)
    return {g: h for h, g in GLOBAL_TENSORS.items()}[stem] + "." + suffix


# ------------------------------------------------------------------ rotary permutation
def qk_row_order(n_rows, n_heads, dim, rot):
    """Row index array p with permuted[j] = hf[p[j]] for a Q or K projection of n_heads heads.

    Meta's checkpoints (and GGML's NORM rotary mode) rotate adjacent pairs (2i, 2i+1); Hugging
    Face's rotate_half pairs (i, i + rot/2). LlamaModel.permute interleaves each head's halves:
    new row 2i = old row i, new row 2i+1 = old row i + dim/2, which is this with rot == dim.
    With partial rotary (rot < dim) only the first rot rows of a head are rotated, pairs
    (i, i + rot/2), so only they are interleaved and rows rot..dim-1 stay in place: GGML's NORM
    mode rotates the first n_rot = rot dims in adjacent pairs and passes the rest, so the file
    then means the Hugging Face model. (The converter ignores partial_rotary_factor for llama,
    and llama.cpp refuses a llama file whose rope.dimension_count is not the head size.)
    """
    if n_rows != n_heads * dim or rot % 2 or rot > dim:
        raise ValueError(f"{n_rows} rows do not split into {n_heads} heads of {dim} ({rot} rot)")
    half = rot // 2
    within = np.concatenate([np.stack([np.arange(half), np.arange(half) + half], 1).reshape(-1),
                             np.arange(rot, dim)])
    return (np.arange(n_heads)[:, None] * dim + within[None, :]).reshape(-1)


def permute_qk(values, n_heads, dim, rot):
    """HF row order -> GGUF (interleaved) row order; values: numpy [rows] or [rows, cols]."""
    return values[qk_row_order(values.shape[0], n_heads, dim, rot)]


def unpermute_qk(values, n_heads, dim, rot):
    """GGUF row order -> HF row order (inverse of permute_qk)."""
    out = np.empty_like(values)
    out[qk_row_order(values.shape[0], n_heads, dim, rot)] = values
    return out


def qk_heads(config, gguf_tensor):
    """Head count LlamaModel.permute uses for attn_q (query heads) or attn_k (KV heads)."""
    if gguf_tensor == "attn_q":
        return config["num_attention_heads"]
    return config.get("num_key_value_heads", config["num_attention_heads"])


def to_gguf_layout(config, arch, gguf_name, values):
    """An HF tensor's values (numpy float32) as the GGUF file stores them (rows permuted)."""
    role = gguf_name.split(".")[-2]
    if permutes_qk(arch) and role in ("attn_q", "attn_k"):
        return permute_qk(values, qk_heads(config, role), head_dim(config), rotary_dims(config))
    return values


def from_gguf_layout(config, arch, gguf_name, values):
    """Inverse of to_gguf_layout."""
    role = gguf_name.split(".")[-2]
    if permutes_qk(arch) and role in ("attn_q", "attn_k"):
        return unpermute_qk(values, qk_heads(config, role), head_dim(config),
                            rotary_dims(config))
    return values


# ------------------------------------------------------------------ rope scaling
def rope_scaling_kind(config):
    scaling = config.get("rope_scaling") or {}
    return scaling.get("rope_type", scaling.get("type", "default")), scaling


def rope_freq_factors(config):
    """llama3 rope scaling as the float32 per-frequency divisors of rope_freqs.weight, or None.

    As LlamaModel.generate_extra_tensors: base frequencies f_i = 1 / theta^(2i/d) in float32
    over d = head_dim (i < d/2); wavelength w = 2*pi / f; factor 1 where w < old_ctx/high,
    `factor` where w > old_ctx/low, else 1 / ((1 - s)/factor + s) with s = (old_ctx/w - low) /
    (high - low). llama.cpp divides each rotation angle by its factor, which is Hugging Face's
    llama3 inv_freq. old_ctx is rope_scaling's original_max_position_embeddings (what Hugging
    Face uses); the converter reads the top-level key and defaults to 8192, the same number for
    real Llama 3.x configs, but not for a test config that sets it only in rope_scaling.
    """
    kind, scaling = rope_scaling_kind(config)
    if kind != "llama3":
        return None
    dim = rotary_dims(config)  # the converter uses head_dim: the same unless partial rotary
    freqs = 1.0 / (config.get("rope_theta", 10000.0)
                   ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    factor = scaling.get("factor", 8.0)
    low, high = scaling.get("low_freq_factor", 1.0), scaling.get("high_freq_factor", 4.0)
    old_ctx = scaling.get("original_max_position_embeddings", 8192)
    wavelen = 2 * np.pi / freqs
    smooth = (old_ctx / wavelen - low) / (high - low)
    out = torch.where(wavelen > old_ctx / low, torch.full_like(freqs, factor),
                      1 / ((1 - smooth) / factor + smooth))
    out = torch.where(wavelen < old_ctx / high, torch.ones_like(freqs), out)
    return out.numpy().astype(np.float32)


# ------------------------------------------------------------------ metadata
def add_model_keys(writer, config, name, file_type):
    """general.* and {arch}.* keys as the converter writes them (see the module docstring)."""
    arch = gguf_arch(config)
    writer.add("general.architecture", arch, "string")
    writer.add("general.type", "model", "string")
    writer.add("general.name", name, "string")
    k = arch + "."
    writer.add(k + "block_count", config["num_hidden_layers"], "u32")
    writer.add(k + "context_length", config["max_position_embeddings"], "u32")
    writer.add(k + "embedding_length", config["hidden_size"], "u32")
    writer.add(k + "feed_forward_length", config["intermediate_size"], "u32")
    writer.add(k + "attention.head_count", config["num_attention_heads"], "u32")
    writer.add(k + "attention.head_count_kv",
               config.get("num_key_value_heads", config["num_attention_heads"]), "u32")
    kind, scaling = rope_scaling_kind(config)
    if kind == "linear":
        writer.add(k + "rope.scaling.type", "linear", "string")
        writer.add(k + "rope.scaling.factor", scaling["factor"], "f32")
    elif kind not in ("default", "llama3"):
        raise NotImplementedError(f"rope scaling {kind}")
    writer.add(k + "rope.freq_base", config.get("rope_theta", 10000.0), "f32")
    writer.add(k + "attention.layer_norm_rms_epsilon", config["rms_norm_eps"], "f32")
    if config.get("head_dim") is not None:
        writer.add(k + "attention.key_length", config["head_dim"], "u32")
        writer.add(k + "attention.value_length", config["head_dim"], "u32")
    writer.add("general.file_type", file_type, "u32")
    if arch == "llama":
        writer.add(k + "vocab_size", config["vocab_size"], "u32")
        writer.add(k + "rope.dimension_count", rotary_dims(config), "u32")
    writer.add("general.quantization_version", GGML_QUANT_VERSION, "u32")


def _read_json(folder, file):
    with open(os.path.join(folder, file), encoding="utf-8") as f:
        return json.load(f)


def _special_strings(tokenizer_config):
    """Token strings the tokenizer treats as special: its *_token entries (added special tokens
    in transformers) plus anything shaped <|...|> (TextModel.does_token_look_special)."""
    out = set()
    for key in ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token",
                "mask_token"):
        entry = tokenizer_config.get(key)
        if isinstance(entry, dict):
            entry = entry.get("content")
        if isinstance(entry, str):
            out.add(entry)
    return out


def read_bpe_merges(folder):
    """merges.txt lines as "a b" (SpecialVocab._try_load_merges_txt: #version line skipped)."""
    with open(os.path.join(folder, "merges.txt"), encoding="utf-8") as f:
        lines = [line.strip() for line in f]
    return [line for line in lines if line and not line.startswith("#")]


def add_tokenizer_keys(writer, folder, config):
    """tokenizer.ggml.* of a byte-level BPE folder (vocab.json + merges.txt), in the order
    LlamaModel.set_vocab / _set_vocab_gpt2 / SpecialVocab.add_to_gguf write them."""
    arch = gguf_arch(config)
    tok_config = _read_json(folder, "tokenizer_config.json")
    vocab = _read_json(folder, "vocab.json")
    if sorted(vocab.values()) != list(range(config["vocab_size"])):
        raise ValueError(f"{folder}: vocab.json ids are not 0..{config['vocab_size'] - 1}")
    if arch == "llama" and isinstance(tok_config.get("add_prefix_space"), bool):
        writer.add("tokenizer.ggml.add_space_prefix", tok_config["add_prefix_space"], "bool")
    tokens = [None] * len(vocab)
    for token, i in vocab.items():
        tokens[i] = token
    specials = _special_strings(tok_config)
    types = [TOKEN_CONTROL if t in specials or (t.startswith("<|") and t.endswith("|>"))
             else TOKEN_NORMAL for t in tokens]
    writer.add("tokenizer.ggml.model", "gpt2", "string")
    # The converter picks `pre` by hashing how the tokenizer splits a probe text; these tiny
    # vocabularies match no known hash, but they use GPT-2's own pre-tokenizer regex.
    writer.add("tokenizer.ggml.pre", "gpt-2", "string")
    writer.add("tokenizer.ggml.tokens", tokens, "array", elem_type="string")
    writer.add("tokenizer.ggml.token_type", types, "array", elem_type="i32")
    writer.add("tokenizer.ggml.merges", read_bpe_merges(folder), "array", elem_type="string")
    for kind in ("bos", "eos"):
        if isinstance(config.get(f"{kind}_token_id"), int):
            writer.add(f"tokenizer.ggml.{kind}_token_id", config[f"{kind}_token_id"], "u32")
    if isinstance(tok_config.get("add_bos_token"), bool):
        writer.add("tokenizer.ggml.add_bos_token", tok_config["add_bos_token"], "bool")
    return tokens, types
