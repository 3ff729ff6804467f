"""config.json and state-dict layouts of Gemma, Gemma 2 and Gemma 3 (text-only and the
multimodal Gemma3ForConditionalGeneration) as `save_pretrained` (transformers 4.52) writes them.

Config keys follow to_diff_dict: every attribute the config class defines is written, base
PretrainedConfig keys only when they differ from its defaults, so tie_word_embeddings (True in
every Gemma config class and in the base class) is absent, and the loader must know that Gemma
ties its head. The multimodal config's text_config is a nested diff: only the keys whose values
differ from Gemma3TextConfig's defaults, plus model_type (recursive_diff_dict), so the loader
must also know those defaults (rope_theta 1e6, rope_local_base_freq 1e4, rms_norm_eps 1e-6, ...).

Gemma RMSNorm weights are stored as offsets (the norm multiplies by 1 + w), drawn near 0 so that
a loader reading them as plain w gets norms near 0, a large and visible error.
"""

import numpy as np
import torch

from decoder_parts import GEMMA3_TEXT_DEFAULTS, layer_kinds
from hf_layouts import QK_GAIN, WeightMaker, hf_config
from llama_layouts import _linear

GEMMA_CLASS = {"gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM",
               "gemma3_text": "Gemma3ForCausalLM"}


def _head_dim(c):
    return c.get("head_dim", c["hidden"] // c["heads"])


def _text_keys(c, special):
    """Keys GemmaConfig, Gemma2Config and Gemma3TextConfig all define."""
    return dict(hidden_size=c["hidden"], intermediate_size=c["ffn"],
                num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"],
                head_dim=_head_dim(c), num_hidden_layers=c["layers"],
                max_position_embeddings=c["max_pos"], rms_norm_eps=c.get("rms_norm_eps", 1e-06),
                rope_theta=c.get("rope_theta", 10000.0), attention_bias=False,
                attention_dropout=0.0, use_cache=True, pad_token_id=0,
                bos_token_id=special["bos"], eos_token_id=special["eos"])


def _gemma2_keys(c):
    """Keys Gemma2Config adds (Gemma3TextConfig has them too)."""
    return dict(hidden_activation="gelu_pytorch_tanh",
                query_pre_attn_scalar=c["query_pre_attn_scalar"],
                sliding_window=c["sliding_window"],
                final_logit_softcapping=c.get("final_softcap"),
                attn_logit_softcapping=c.get("attn_softcap"), cache_implementation="hybrid")


def gemma_config(c, vocab_size, special):
    """GemmaForCausalLM / Gemma2ForCausalLM / Gemma3ForCausalLM. Gemma 1 writes both hidden_act
    (what 4.52 uses) and hidden_activation = null (what 4.38-4.44 read, falling back to tanh GELU
    when null): both readings give tanh GELU."""
    arch = c["arch"]
    keys = _text_keys(c, special)
    if arch == "gemma":
        keys.update(hidden_act="gelu_pytorch_tanh", hidden_activation=None)
    else:
        keys.update(_gemma2_keys(c))
    if arch == "gemma3_text":
        keys.update(rope_scaling=c.get("rope_scaling"),
                    rope_local_base_freq=c.get("rope_local_base_freq", 10000.0),
                    sliding_window_pattern=c["sliding_window_pattern"])
    if "layer_types" in c:
        keys["layer_types"] = c["layer_types"]
    return hf_config(c, vocab_size, arch, GEMMA_CLASS[arch], **keys)


# A tiny SiglipVisionConfig (only the tensors' shapes depend on it; the text pass never runs it).
VISION = dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
              image_size=28, patch_size=14, vision_use_head=False,
              model_type="siglip_vision_model")


def gemma3_multimodal_config(c, vocab_size, special):
    """Gemma3ForConditionalGeneration: model_type gemma3 with nested text_config (a diff against
    GEMMA3_TEXT_DEFAULTS, layer_types as 4.53+ writes it) and vision_config."""
    full = dict(_text_keys(c, special), **_gemma2_keys(c), vocab_size=vocab_size,
                rope_theta=c.get("rope_theta", 1000000.0),
                rope_local_base_freq=c.get("rope_local_base_freq", 10000.0),
                rope_scaling=c.get("rope_scaling"), initializer_range=0.02,
                tie_word_embeddings=True, layer_types=c["layer_types"])
    text = {k: v for k, v in sorted(full.items())
            if k not in GEMMA3_TEXT_DEFAULTS or GEMMA3_TEXT_DEFAULTS[k] != v}
    text["model_type"] = "gemma3_text"
    cfg = hf_config(c, vocab_size, "gemma3", c["arch_class"], text_config=dict(sorted(
        text.items())), vision_config=VISION, mm_tokens_per_image=4,
        boi_token_index=vocab_size, eoi_token_index=vocab_size + 1,
        image_token_index=vocab_size + 2)  # outside the text vocabulary: no image in the inputs
    del cfg["vocab_size"]  # Gemma3Config has none; it lives in text_config
    return cfg


def _offset_norm(m, name, dim, mean=0.0, std=0.1):
    """A Gemma RMSNorm weight: stored w, applied as 1 + w."""
    m.tensors[name + ".weight"] = torch.from_numpy(
        (mean + std * m.rng.standard_normal(dim)).astype(np.float32))


def _gemma_text_weights(m, c, vocab_size, p):
    """The language model's tensors under prefix p, in module registration order."""
    arch, h, f, d = c.get("text_arch", c["arch"]), c["hidden"], c["ffn"], _head_dim(c)
    m.normal(p + "embed_tokens.weight", (vocab_size, h), c.get("embed_std", 0.5))
    for i in range(c["layers"]):
        lp = f"{p}layers.{i}."
        _linear(m, lp + "self_attn.q_proj", c["heads"] * d, h, False, QK_GAIN)
        _linear(m, lp + "self_attn.k_proj", c["kv_heads"] * d, h, False, QK_GAIN)
        _linear(m, lp + "self_attn.v_proj", c["kv_heads"] * d, h, False)
        _linear(m, lp + "self_attn.o_proj", h, c["heads"] * d, False)
        if arch == "gemma3_text":
            # Mean 1 so that 1 + w is about 2: unit-RMS q and k would give flat maps otherwise.
            _offset_norm(m, lp + "self_attn.q_norm", d, c.get("qk_norm_mean", 1.0), 0.2)
            _offset_norm(m, lp + "self_attn.k_norm", d, c.get("qk_norm_mean", 1.0), 0.2)
        _linear(m, lp + "mlp.gate_proj", f, h, False)
        _linear(m, lp + "mlp.up_proj", f, h, False)
        _linear(m, lp + "mlp.down_proj", h, f, False)
        _offset_norm(m, lp + "input_layernorm", h)
        _offset_norm(m, lp + "post_attention_layernorm", h)
        if arch != "gemma":
            _offset_norm(m, lp + "pre_feedforward_layernorm", h)
            _offset_norm(m, lp + "post_feedforward_layernorm", h)
    _offset_norm(m, p + "norm", h)


def gemma_weights(c, vocab_size, config):
    """GemmaForCausalLM & co.: "model." prefix, tied head (no lm_head.weight)."""
    m = WeightMaker(c["seed"])
    _gemma_text_weights(m, c, vocab_size, "model.")
    return m.tensors


def gemma3_multimodal_weights(c, vocab_size, config):
    """Gemma3ForConditionalGeneration as 4.52+ saves it (its _checkpoint_conversion_mapping):
    model.language_model.*, lm_head.weight (written here as a copy of the tied embeddings), and
    some vision tower / projector tensors the text-only loader has to skip."""
    m = WeightMaker(c["seed"])
    v = VISION["hidden_size"]
    vp = "model.vision_tower.vision_model."
    m.normal(vp + "embeddings.patch_embedding.weight", (v, 3, 14, 14), 0.05)
    m.normal(vp + "embeddings.patch_embedding.bias", (v,), 0.05)
    m.normal(vp + "embeddings.position_embedding.weight", (4, v), 0.05)
    _linear(m, vp + "encoder.layers.0.self_attn.q_proj", v, v, True)
    m.normal(vp + "post_layernorm.weight", (v,), 0.05)
    m.normal(vp + "post_layernorm.bias", (v,), 0.05)
    _gemma_text_weights(m, dict(c, text_arch="gemma3_text"), vocab_size, "model.language_model.")
    m.normal("model.multi_modal_projector.mm_input_projection_weight", (v, c["hidden"]), 0.05)
    m.normal("model.multi_modal_projector.mm_soft_emb_norm.weight", (v,), 0.05)
    m.tensors["lm_head.weight"] = m.tensors["model.language_model.embed_tokens.weight"].clone()
    return m.tensors


def gemma_features(c, config):
    """The manifest's "features" entry: what the case exercises, for the C++ tests to print."""
    cfg = dict(GEMMA3_TEXT_DEFAULTS, **config["text_config"]) if "text_config" in config \
        else config
    kinds = layer_kinds(cfg)
    mt = cfg["model_type"]
    qpas = cfg.get("query_pre_attn_scalar")
    scaling = cfg.get("rope_scaling") or {}
    return {
        "norm": "rms_one_plus_w",
        "norm_placement": "pre" if mt == "gemma" else "pre_and_post",
        "qk_norm": "per_head_one_plus_w" if mt == "gemma3_text" else "none",
        "scale": (qpas if qpas else cfg["head_dim"]) ** -0.5,
        "scale_from": "query_pre_attn_scalar" if qpas else "head_dim",
        "softcap": cfg.get("attn_logit_softcapping") if mt == "gemma2" else None,
        "final_softcap": cfg.get("final_logit_softcapping"),
        "window": cfg.get("sliding_window") if "local" in kinds else None,
        "local_layers": [i for i, k in enumerate(kinds) if k == "local"],
        "layer_pattern_from": "layer_types" if cfg.get("layer_types") else (
            "sliding_window_pattern" if mt == "gemma3_text" else "fixed"),
        "rope": scaling.get("rope_type", scaling.get("type", "default")),
        "rope_local_theta": cfg.get("rope_local_base_freq") if mt == "gemma3_text" else None,
        "embed_scale": cfg["hidden_size"] ** 0.5,
        "activation": "gelu_tanh",
        "tied": True,
        "gqa_group": cfg["num_attention_heads"] // cfg["num_key_value_heads"],
        "config_omits_defaults": "text_config" in config,
        "extra_tensors_ignored": "text_config" in config,
    }
