"""Hugging Face config.json contents and tensor layouts for BERT, RoBERTa, DistilBERT and GPT-2.

Split out of make_checkpoints.py for size. Everything here copies what `save_pretrained`
(transformers 4.52) writes for these model types: the config keys it emits (to_diff_dict: every
value that differs from PretrainedConfig's defaults), and the state-dict names and shapes, with
tied weights (MLM decoders, GPT-2 lm_head) left out unless a case asks for them.

Weights are random but far from HF's 0.02 init: the query/key projections get a larger
standard deviation so attention maps are peaked and any indexing or transpose mistake in the
C++ shows up as a large difference, not as a near-uniform map that hides it.
"""

import collections
import importlib

import numpy as np
import torch

TRANSFORMERS_VERSION = "4.52.4"
TORCH_DTYPE_NAME = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}
# std of query/key weights = QK_GAIN / sqrt(fan_in): logits reach ~10, rows are peaked. 1.5 made
# the reference's own float32-vs-float64 gap exceed the 1e-6 it must stay under.
QK_GAIN = 1.2


class WeightMaker:
    """Deterministic random tensors (numpy RandomState: its stream is frozen across versions)."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.tensors = collections.OrderedDict()  # state-dict order matters for sharding

    def normal(self, name, shape, std):
        self.tensors[name] = torch.from_numpy(
            (self.rng.standard_normal(shape) * std).astype(np.float32))

    def linear(self, name, out_dim, in_dim, std_gain=1.0, conv1d=False):
        """nn.Linear stores weight [out, in]; GPT-2's Conv1D stores [in, out]."""
        shape = (in_dim, out_dim) if conv1d else (out_dim, in_dim)
        self.normal(name + ".weight", shape, std_gain / np.sqrt(in_dim))
        self.normal(name + ".bias", (out_dim,), 0.1)

    def layer_norm(self, name, dim):
        self.tensors[name + ".weight"] = torch.from_numpy(
            (1.0 + 0.1 * self.rng.standard_normal(dim)).astype(np.float32))
        self.normal(name + ".bias", (dim,), 0.1)


def hf_config(c, vocab_size, model_type, arch_class, **keys):
    """The keys every config here carries (initializer_range is HF's default 0.02), plus the model
    type's own `keys`; in sorted order, as save_pretrained writes them."""
    cfg = dict(keys, architectures=[arch_class], initializer_range=0.02, model_type=model_type,
               torch_dtype=TORCH_DTYPE_NAME[c["dtype"]],
               transformers_version=TRANSFORMERS_VERSION, vocab_size=vocab_size)
    return dict(sorted(cfg.items()))


def _common_bert_config(c, vocab_size, model_type, arch_class):
    """Keys BertConfig and RobertaConfig both write."""
    return hf_config(c, vocab_size, model_type, arch_class,
                     hidden_size=c["hidden"], intermediate_size=c["ffn"],
                     num_attention_heads=c["heads"], num_hidden_layers=c["layers"],
                     max_position_embeddings=c["max_pos"], hidden_act=c["act"],
                     attention_probs_dropout_prob=0.1, hidden_dropout_prob=0.1,
                     classifier_dropout=None, position_embedding_type="absolute", use_cache=True)


def bert_config(c, vocab_size, special):
    cfg = _common_bert_config(c, vocab_size, "bert", c["arch_class"])
    cfg.update(layer_norm_eps=1e-12, pad_token_id=special["pad"], type_vocab_size=2)
    return cfg


def roberta_config(c, vocab_size, special):
    """RoBERTa reserves positions 0..pad_token_id, so max_position_embeddings = real max + pad + 1
    (roberta-base: 512 usable -> 514)."""
    cfg = _common_bert_config(c, vocab_size, "roberta", c["arch_class"])
    cfg.update(max_position_embeddings=c["max_pos"] + special["pad"] + 1, layer_norm_eps=1e-05,
               pad_token_id=special["pad"], bos_token_id=special["bos"],
               eos_token_id=special["eos"], type_vocab_size=1)
    return cfg


def distilbert_config(c, vocab_size, special):
    return hf_config(c, vocab_size, "distilbert", c["arch_class"],
                     dim=c["hidden"], hidden_dim=c["ffn"], n_heads=c["heads"],
                     n_layers=c["layers"], max_position_embeddings=c["max_pos"],
                     activation=c["act"], pad_token_id=special["pad"],
                     attention_dropout=0.1, dropout=0.1, qa_dropout=0.1, seq_classif_dropout=0.2,
                     sinusoidal_pos_embds=False, tie_weights_=True)


def gpt2_config(c, vocab_size, special):
    """n_inner None means 4 * n_embd; n_ctx is an old key that real gpt2 configs still carry."""
    return hf_config(c, vocab_size, "gpt2", c["arch_class"],
                     n_embd=c["hidden"], n_inner=c["ffn"], n_head=c["heads"], n_layer=c["layers"],
                     n_ctx=c["max_pos"], n_positions=c["max_pos"], activation_function=c["act"],
                     bos_token_id=special["bos"], eos_token_id=special["eos"],
                     attn_pdrop=0.1, embd_pdrop=0.1, resid_pdrop=0.1, summary_first_dropout=0.1,
                     layer_norm_epsilon=1e-05, reorder_and_upcast_attn=False,
                     scale_attn_by_inverse_layer_idx=False, scale_attn_weights=True,
                     summary_activation=None, summary_proj_to_labels=True,
                     summary_type="cls_index", summary_use_proj=True, use_cache=True)


# A post-norm encoder layer's modules in registration order (query, key, value, attention output,
# its LayerNorm, FFN in, FFN out, output LayerNorm): BertLayer/RobertaLayer and DistilBERT's
# TransformerBlock name them differently but register them in the same order.
BERT_LAYER = ("attention.self.query", "attention.self.key", "attention.self.value",
              "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
              "output.dense", "output.LayerNorm")
DISTILBERT_LAYER = ("attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                    "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm")


def _post_norm_layers(m, c, layer_prefix, names):
    """c["layers"] encoder layers named `names` under layer_prefix.format(i)."""
    h, f = c["hidden"], c["ffn"]
    query, key, value, out, attn_norm, ffn_in, ffn_out, out_norm = names
    for i in range(c["layers"]):
        layer = layer_prefix.format(i)
        m.linear(layer + query, h, h, QK_GAIN)
        m.linear(layer + key, h, h, QK_GAIN)
        m.linear(layer + value, h, h)
        m.linear(layer + out, h, h)
        m.layer_norm(layer + attn_norm, h)
        m.linear(layer + ffn_in, f, h)
        m.linear(layer + ffn_out, h, f)
        m.layer_norm(layer + out_norm, h)


def bert_weights(c, vocab_size, config):
    """BertForMaskedLM ("bert." prefix, cls.predictions head), BertForPreTraining (adds pooler,
    NSP head and the old persistent position_ids buffer) or BertModel (no prefix, pooler)."""
    m, h = WeightMaker(c["seed"]), c["hidden"]
    roberta = config["model_type"] == "roberta"
    p = {"BertModel": ""}.get(c["arch_class"], "roberta." if roberta else "bert.")
    if c["arch_class"] == "BertForPreTraining":  # pre-4.31 checkpoints saved this buffer
        m.tensors[p + "embeddings.position_ids"] = torch.arange(config["max_position_embeddings"],
                                                                dtype=torch.int64)[None, :]
    m.normal(p + "embeddings.word_embeddings.weight", (vocab_size, h), 1.0)
    m.normal(p + "embeddings.position_embeddings.weight", (config["max_position_embeddings"], h),
             1.0)
    m.normal(p + "embeddings.token_type_embeddings.weight", (config["type_vocab_size"], h), 1.0)
    m.layer_norm(p + "embeddings.LayerNorm", h)
    _post_norm_layers(m, c, p + "encoder.layer.{}.", BERT_LAYER)
    if c["arch_class"] in ("BertModel", "BertForPreTraining"):
        m.linear(p + "pooler.dense", h, h)
    if roberta:
        m.linear("lm_head.dense", h, h)
        m.layer_norm("lm_head.layer_norm", h)
        m.normal("lm_head.bias", (vocab_size,), 0.1)
    elif c["arch_class"] != "BertModel":
        m.normal("cls.predictions.bias", (vocab_size,), 0.1)
        m.linear("cls.predictions.transform.dense", h, h)
        m.layer_norm("cls.predictions.transform.LayerNorm", h)
        if c["arch_class"] == "BertForPreTraining":
            m.linear("cls.seq_relationship", 2, h)
    return m.tensors


def distilbert_weights(c, vocab_size, config):
    """DistilBertForMaskedLM: no token types, q_lin/k_lin/v_lin/out_lin, vocab_* MLM head."""
    m, h = WeightMaker(c["seed"]), c["hidden"]
    m.normal("distilbert.embeddings.word_embeddings.weight", (vocab_size, h), 1.0)
    m.normal("distilbert.embeddings.position_embeddings.weight", (c["max_pos"], h), 1.0)
    m.layer_norm("distilbert.embeddings.LayerNorm", h)
    _post_norm_layers(m, c, "distilbert.transformer.layer.{}.", DISTILBERT_LAYER)
    m.linear("vocab_transform", h, h)
    m.layer_norm("vocab_layer_norm", h)
    m.normal("vocab_projector.bias", (vocab_size,), 0.1)
    return m.tensors


def _gpt2_c_attn(m, name, h):
    """c_attn is one Conv1D [in=h, out=3h] with q|k|v side by side on the out axis; q and k get
    the larger std, v the ordinary one."""
    std = np.concatenate([np.full(2 * h, QK_GAIN), np.ones(h)]) / np.sqrt(h)
    w = m.rng.standard_normal((h, 3 * h)) * std[None, :]
    m.tensors[name + ".weight"] = torch.from_numpy(w.astype(np.float32))
    m.normal(name + ".bias", (3 * h,), 0.1)


def gpt2_weights(c, vocab_size, config):
    """GPT2LMHeadModel ("transformer." prefix) or GPT2Model (no prefix). Optional extras: the
    old attn.bias / attn.masked_bias buffers and an explicit (tied) lm_head.weight."""
    m, h = WeightMaker(c["seed"]), c["hidden"]
    f = c["ffn"] if c["ffn"] is not None else 4 * h
    n_pos = config["n_positions"]
    p = "transformer." if c["arch_class"] == "GPT2LMHeadModel" else ""
    m.normal(p + "wte.weight", (vocab_size, h), 0.5)
    m.normal(p + "wpe.weight", (n_pos, h), 0.5)
    for i in range(c["layers"]):
        block = f"{p}h.{i}."
        m.layer_norm(block + "ln_1", h)
        if c.get("old_buffers"):
            m.tensors[block + "attn.bias"] = torch.tril(torch.ones(n_pos, n_pos))[None, None]
            m.tensors[block + "attn.masked_bias"] = torch.tensor(-1e4, dtype=torch.float32)
        _gpt2_c_attn(m, block + "attn.c_attn", h)
        m.linear(block + "attn.c_proj", h, h, conv1d=True)
        m.layer_norm(block + "ln_2", h)
        m.linear(block + "mlp.c_fc", f, h, conv1d=True)
        m.linear(block + "mlp.c_proj", h, f, conv1d=True)
    m.layer_norm(p + "ln_f", h)
    if c.get("lm_head"):
        m.tensors["lm_head.weight"] = m.tensors[p + "wte.weight"].clone()
    return m.tensors


def cast_for_storage(tensors, dtype):
    """Store float weights in the case's dtype; buffers keep HF's dtypes (F32 mask, I64 ids)."""
    target = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}[dtype]
    out = collections.OrderedDict()
    for name, t in tensors.items():
        is_buffer = name.endswith((".attn.bias", ".attn.masked_bias")) or not t.is_floating_point()
        out[name] = t if is_buffer else t.to(target)
    return out


CONFIG_WRITERS = {"bert": bert_config, "roberta": roberta_config,
                  "distilbert": distilbert_config, "gpt2": gpt2_config}
WEIGHT_MAKERS = {"bert": bert_weights, "roberta": bert_weights,
                 "distilbert": distilbert_weights, "gpt2": gpt2_weights}


def register_llama_family():
    """llama_layouts imports this module, so it is added here, after both are defined."""
    import llama_layouts  # noqa: E402
    for arch in ("llama", "mistral", "qwen2"):
        CONFIG_WRITERS[arch] = llama_layouts.llama_config
        WEIGHT_MAKERS[arch] = llama_layouts.llama_weights


register_llama_family()

# model_type -> features(case, config): the manifest's "features" dict (issue 33's architectures).
FEATURE_WRITERS = {}


def _deferred(module, name):
    """module.name, looked up when called: the layouts modules import this one, so one of them
    may still be loading while this module registers it."""
    def call(*args):
        return getattr(importlib.import_module(module), name)(*args)
    return call


def register_modern_families():
    """Gemma 1/2/3, Qwen3, OLMo-2, Phi-3 and GPT-NeoX (issue 33); like register_llama_family."""
    for arch in ("gemma", "gemma2", "gemma3_text"):
        CONFIG_WRITERS[arch] = _deferred("gemma_layouts", "gemma_config")
        WEIGHT_MAKERS[arch] = _deferred("gemma_layouts", "gemma_weights")
        FEATURE_WRITERS[arch] = _deferred("gemma_layouts", "gemma_features")
    CONFIG_WRITERS["gemma3"] = _deferred("gemma_layouts", "gemma3_multimodal_config")
    WEIGHT_MAKERS["gemma3"] = _deferred("gemma_layouts", "gemma3_multimodal_weights")
    FEATURE_WRITERS["gemma3"] = _deferred("gemma_layouts", "gemma_features")
    for arch in ("qwen3", "olmo2", "phi3", "gpt_neox"):
        CONFIG_WRITERS[arch] = _deferred("modern_layouts", arch + "_config")
        WEIGHT_MAKERS[arch] = _deferred("modern_layouts", arch + "_weights")
        FEATURE_WRITERS[arch] = _deferred("modern_layouts", "modern_features")


register_modern_families()
