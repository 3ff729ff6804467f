"""How llama.cpp's convert_hf_to_gguf.py turns a GPT-2 or BERT Hugging Face folder into GGUF.

Written from the converter of the llama.cpp that node-llama-cpp 3.21.1 ships (conversion/gpt2.py
GPT2Model, conversion/bert.py BertModel, TextModel.set_gguf_parameters and get_vocab_base in
conversion/base.py, gguf-py's SpecialVocab, constants.py MODEL_TENSORS[GPT2] / [BERT] and
tensor_mapping.py), in our own code, for the GGUF test models of make_gguf_checkpoints.py (issue
32); hf_to_gguf.py does the same for the Llama family. Independent of AttnScope's C++ loader.

Conventions kept here, with where they come from:
  * GPT-2 (general.architecture "gpt2"): the Conv1D weights (attn.c_attn, attn.c_proj,
    mlp.c_fc, mlp.c_proj) are transposed to nn.Linear's [out, in] (GPT2Model.modify_tensors),
    so attn_qkv holds q|k|v along its rows; the old attn.bias / attn.masked_bias buffers are
    left out; lm_head.weight, when the checkpoint has it, becomes output.weight (else the file
    has none: tied). Keys: block_count, context_length = n_ctx, embedding_length = n_embd,
    feed_forward_length = 4 * n_embd (the converter ignores n_inner, so a folder that sets a
    different one is refused here), head_count, layer_norm_epsilon, file_type.
    Tokenizer: the byte-level BPE keys of hf_to_gguf.add_tokenizer_keys.
  * BERT ("bert"): "bert." is dropped from names, and so are the pooler, position_ids and every
    cls.* head (BertModel.filter_tensors: the masked-LM head is not converted). Keys:
    TextModel's block_count, context_length = max_position_embeddings, embedding_length,
    feed_forward_length = intermediate_size, head_count, layer_norm_epsilon = layer_norm_eps,
    file_type, then attention.causal false (no modules.json: no pooling_type).
    Tokenizer (BertModel.set_vocab): token_type_count = type_vocab_size, model "bert", pre, the
    vocab.txt tokens with '\u2581' before every word-start token and continuation tokens without
    their "##" (control tokens as they are), token types 3 (control) for the special tokens
    ([PAD] [UNK] [CLS] [SEP] [MASK], added tokens of the fast tokenizer) and 1 for the rest, and
    SpecialVocab's ids: with no tokenizer.json only config.json's, i.e. pad_token_id.
  * 1-D tensors, position_embd and token_types are F32 (ModelBase.prepare_tensors keeps
    POS_EMBD and TOKEN_TYPES in float32); other 2-D ones keep the checkpoint's dtype (as
    hf_to_gguf.py does).

Deliberate choices of these test files: `pre` is "bert-bge" (the converter names the pre-
tokenizer by hashing how the tokenizer splits a probe text; these tiny vocabularies match no
known hash; llama.cpp ignores `pre` for "bert" vocabularies anyway) and "gpt-2" for GPT-2. A BERT
whose hidden_act is not "gelu" is refused: llama.cpp's BERT graph has GELU only, and AttnScope
reads a BERT GGUF as exact GELU, which is "gelu".
"""

import json
import os
import re

import hf_to_gguf

TOKEN_NORMAL, TOKEN_CONTROL = 1, 3
PHANTOM = "\u2581"

# HF module (under the layer's prefix) -> GGUF per-layer tensor, in MODEL_TENSORS order.
GPT2_LAYER = [("ln_1", "attn_norm"), ("attn.c_attn", "attn_qkv"), ("attn.c_proj", "attn_output"),
              ("ln_2", "ffn_norm"), ("mlp.c_fc", "ffn_up"), ("mlp.c_proj", "ffn_down")]
GPT2_GLOBAL = [("wte", "token_embd"), ("wpe", "position_embd")]
GPT2_CONV1D = ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj")
BERT_LAYER = [("attention.self.query", "attn_q"), ("attention.self.key", "attn_k"),
              ("attention.self.value", "attn_v"), ("attention.output.dense", "attn_output"),
              ("attention.output.LayerNorm", "attn_output_norm"),
              ("intermediate.dense", "ffn_up"), ("output.dense", "ffn_down"),
              ("output.LayerNorm", "layer_output_norm")]
BERT_GLOBAL = [("embeddings.word_embeddings", "token_embd"),
               ("embeddings.token_type_embeddings", "token_types"),
               ("embeddings.position_embeddings", "position_embd"),
               ("embeddings.LayerNorm", "token_embd_norm")]
BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def handles(config):
    return config["model_type"] in ("gpt2", "bert")


def check_convertible(config):
    """Refuses folders whose GGUF would not mean the same model (see the module docstring)."""
    if config["model_type"] == "gpt2":
        if config.get("n_inner") not in (None, 4 * config["n_embd"]):
            raise NotImplementedError("GPT2Model writes feed_forward_length 4 * n_embd, "
                                      "not n_inner")
        if config.get("activation_function", "gelu_new") != "gelu_new":
            raise NotImplementedError("llama.cpp's GPT-2 runs gelu_new only")
        if config.get("scale_attn_by_inverse_layer_idx") or not config.get("scale_attn_weights",
                                                                           True):
            raise NotImplementedError("GPT-2 attention scaling options are not in GGUF")
    elif config.get("hidden_act", "gelu") != "gelu":
        raise NotImplementedError("llama.cpp's BERT runs GELU only")


def _prefix(config, tensors):
    """The task-head prefix the checkpoint's names carry ("transformer.", "bert." or "")."""
    probe = "wte.weight" if config["model_type"] == "gpt2" else "embeddings.word_embeddings.weight"
    for p in ("", "transformer.", "bert."):
        if p + probe in tensors:
            return p
    raise ValueError(f"no {probe} under any known prefix")


def _dropped(config, name):
    """Checkpoint tensors the converter leaves out."""
    if config["model_type"] == "gpt2":
        return name.endswith((".attn.bias", ".attn.masked_bias"))
    return (name.startswith(("cls.", "pooler.", "bert.pooler."))
            or name.endswith("embeddings.position_ids"))


def ordered_hf_names(config, tensors):
    """(HF name, GGUF name) pairs in this file's order; every tensor is placed or dropped."""
    gpt2 = config["model_type"] == "gpt2"
    p = _prefix(config, tensors)
    layer_prefix = p + ("h.{}." if gpt2 else "encoder.layer.{}.")
    pairs = []
    for hf, gg in GPT2_GLOBAL if gpt2 else BERT_GLOBAL:
        for suffix in ("weight", "bias"):
            if f"{p}{hf}.{suffix}" in tensors:
                pairs.append((f"{p}{hf}.{suffix}", f"{gg}.{suffix}"))
    layers = config["n_layer"] if gpt2 else config["num_hidden_layers"]
    for i in range(layers):
        for hf, gg in GPT2_LAYER if gpt2 else BERT_LAYER:
            for suffix in ("weight", "bias"):
                name = layer_prefix.format(i) + f"{hf}.{suffix}"
                if name in tensors:
                    pairs.append((name, f"blk.{i}.{gg}.{suffix}"))
    if gpt2:
        pairs += [(f"{p}ln_f.{s}", f"output_norm.{s}") for s in ("weight", "bias")]
        if "lm_head.weight" in tensors:
            pairs.append(("lm_head.weight", "output.weight"))
    placed = {hf for hf, _ in pairs}
    unplaced = {n for n in tensors if n not in placed and not _dropped(config, n)}
    missing = placed - set(tensors)
    if unplaced or missing:
        raise ValueError(f"unexpected tensors {sorted(unplaced)}, missing {sorted(missing)}")
    return pairs


def stored_type(gguf_name, checkpoint_type, ndim):
    """The ggml type a tensor is written in (see the module docstring)."""
    if ndim < 2 or gguf_name.split(".")[0] in ("position_embd", "token_types"):
        return "F32"
    return checkpoint_type


def _is_conv1d(config, hf_name):
    return (config["model_type"] == "gpt2" and hf_name.endswith(".weight")
            and hf_name[:-len(".weight")].endswith(GPT2_CONV1D))


def to_gguf_layout(config, hf_name, values):
    """An HF tensor (numpy) as the file stores it: GPT-2's Conv1D [in, out] transposed."""
    return values.T.copy() if _is_conv1d(config, hf_name) else values


def from_gguf_layout(config, hf_name, values):
    return values.T.copy() if _is_conv1d(config, hf_name) else values


def hf_name_of(config, hf_names, gguf_name):
    """The checkpoint name a GGUF tensor came from (hf_names: the checkpoint's names)."""
    gpt2 = config["model_type"] == "gpt2"
    p = _prefix(config, hf_names)
    m = re.fullmatch(r"blk\.(\d+)\.(\w+)\.(weight|bias)", gguf_name)
    if m:
        module = {g: h for h, g in (GPT2_LAYER if gpt2 else BERT_LAYER)}[m.group(2)]
        layer = "h" if gpt2 else "encoder.layer"
        return f"{p}{layer}.{m.group(1)}.{module}.{m.group(3)}"
    stem, suffix = gguf_name.rsplit(".", 1)
    table = dict((g, h) for h, g in (GPT2_GLOBAL if gpt2 else BERT_GLOBAL))
    if gpt2 and stem == "output":
        return "lm_head.weight"
    if gpt2 and stem == "output_norm":
        return f"{p}ln_f.{suffix}"
    return f"{p}{table[stem]}.{suffix}"


def dropped_names(config, hf_names):
    return sorted(n for n in hf_names if _dropped(config, n))


# ------------------------------------------------------------------ metadata
def add_model_keys(writer, config, name, file_type):
    """general.* and {arch}.* keys in the converter's order."""
    check_convertible(config)
    arch = config["model_type"]
    writer.add("general.architecture", arch, "string")
    writer.add("general.type", "model", "string")
    writer.add("general.name", name, "string")
    k = arch + "."
    if arch == "gpt2":
        sizes = [("block_count", config["n_layer"]), ("context_length", config["n_ctx"]),
                 ("embedding_length", config["n_embd"]),
                 ("feed_forward_length", 4 * config["n_embd"]),
                 ("attention.head_count", config["n_head"])]
        eps = config["layer_norm_epsilon"]
    else:
        sizes = [("block_count", config["num_hidden_layers"]),
                 ("context_length", config["max_position_embeddings"]),
                 ("embedding_length", config["hidden_size"]),
                 ("feed_forward_length", config["intermediate_size"]),
                 ("attention.head_count", config["num_attention_heads"])]
        eps = config["layer_norm_eps"]
    for key, value in sizes:
        writer.add(k + key, value, "u32")
    writer.add(k + "attention.layer_norm_epsilon", eps, "f32")
    writer.add("general.file_type", file_type, "u32")
    if arch == "bert":
        writer.add(k + "attention.causal", False, "bool")
    writer.add("general.quantization_version", hf_to_gguf.GGML_QUANT_VERSION, "u32")


def phantom_tokens(tokens, types):
    """BertModel.set_vocab's rewrite: '\u2581' + word starts, "##" dropped, control kept."""
    out = []
    for t, kind in zip(tokens, types):
        if kind == TOKEN_CONTROL:
            out.append(t)
        elif t.startswith("##"):
            out.append(t[2:])
        else:
            out.append(PHANTOM + t)
    return out


def read_wordpiece(folder):
    """vocab.txt tokens by line and their types (the five BERT specials are control)."""
    with open(os.path.join(folder, "vocab.txt"), encoding="utf-8") as f:
        tokens = [line.rstrip("\n") for line in f]
    types = [TOKEN_CONTROL if t in BERT_SPECIALS else TOKEN_NORMAL for t in tokens]
    return tokens, types


def add_tokenizer_keys(writer, folder, config):
    """tokenizer.ggml.* as the converter writes them for this architecture."""
    if config["model_type"] == "gpt2":
        return hf_to_gguf.add_tokenizer_keys(writer, folder, config)
    tokens, types = read_wordpiece(folder)
    if len(tokens) != config["vocab_size"]:
        raise ValueError(f"{folder}: {len(tokens)} tokens, vocab_size {config['vocab_size']}")
    writer.add("tokenizer.ggml.token_type_count", config.get("type_vocab_size", 1), "u32")
    writer.add("tokenizer.ggml.model", "bert", "string")
    writer.add("tokenizer.ggml.pre", "bert-bge", "string")
    writer.add("tokenizer.ggml.tokens", phantom_tokens(tokens, types), "array",
               elem_type="string")
    writer.add("tokenizer.ggml.token_type", types, "array", elem_type="i32")
    if isinstance(config.get("pad_token_id"), int):
        writer.add("tokenizer.ggml.padding_token_id", config["pad_token_id"], "u32")
    return tokens, types


def check_metadata(meta, config, folder, expect):
    """The keys of a converted file describe config.json and the tokenizer files; `expect(ok,
    what)` reports a failure."""
    arch = config["model_type"]
    expect(meta["general.architecture"] == arch, "general.architecture")
    gpt2 = arch == "gpt2"
    sizes = {"block_count": config["n_layer" if gpt2 else "num_hidden_layers"],
             "embedding_length": config["n_embd" if gpt2 else "hidden_size"],
             "attention.head_count": config["n_head" if gpt2 else "num_attention_heads"],
             "context_length": config["n_ctx" if gpt2 else "max_position_embeddings"]}
    for key, value in sizes.items():
        expect(meta[f"{arch}.{key}"] == value, f"{arch}.{key}")
    if gpt2:
        with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
            vocab = json.load(f)
        expect([vocab[t] for t in meta["tokenizer.ggml.tokens"]] == list(range(len(vocab))),
               "tokenizer.ggml.tokens are not the vocabulary by id")
        return
    expect(meta[f"{arch}.attention.causal"] is False, "bert.attention.causal")
    tokens, types = read_wordpiece(folder)
    stored = meta["tokenizer.ggml.tokens"]
    expect(len(stored) == len(tokens), "token count")
    for t, kind, s in zip(tokens, types, stored):
        # The rewrite undone must give vocab.txt back: what AttnScope's reader relies on.
        back = s if kind == TOKEN_CONTROL else (s[1:] if s.startswith(PHANTOM) else "##" + s)
        expect(back == t, f"token {t!r} stored as {s!r}")
    expect(meta["tokenizer.ggml.token_type_count"] == config["type_vocab_size"],
           "token_type_count")
