#!/usr/bin/python3
"""Writes the fuzzers' seed corpora (corpus/<fuzzer>/) and the harnesses' fixed files (fixtures/).

Everything comes from the repository itself: tests/data/tokenize/ (tiny tokenizer files),
resources/default_model/config.json, and small files written here by hand (configs in the shapes
tests/reference/make_checkpoints.py writes, tiny safetensors checkpoints, a Llama-2-style
tokenizer.json and a SentencePiece tokenizer.model encoded field by field, CoNLL-U sentences).
Nothing is copied from ../shared. Deterministic; run from anywhere:
    python3 tests/fuzz/make_seeds.py
"""

import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, "tests", "data", "tokenize")
CORPUS = os.path.join(HERE, "corpus")
FIXTURES = os.path.join(HERE, "fixtures")

SPACE = "\u2581"  # SentencePiece's '▁'


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def seed(fuzzer, name, data):
    write(os.path.join(CORPUS, fuzzer, name), data)


def compact(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --- safetensors ---------------------------------------------------------------------------

DTYPE_SIZE = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
              "U8": 1, "BOOL": 1}


def safetensors(tensors, metadata=None, align=8, order=None):
    """tensors: [(name, dtype, shape)]; data bytes are a simple ramp."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape in tensors:
        n = DTYPE_SIZE[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + n]}
        data += bytes((i * 7 + 1) % 256 for i in range(n))
    text = compact(header).encode()
    if align:
        text += b" " * (-len(text) % align)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds():
    f = "fuzz_safetensors"
    seed(f, "f32_f16.safetensors", safetensors(
        [("embeddings.word_embeddings.weight", "F32", [4, 3]),
         ("encoder.layer.0.attention.self.query.bias", "F16", [3])], {"format": "pt"}))
    seed(f, "all_dtypes.safetensors", safetensors(
        [(d.lower(), d, [2]) for d in DTYPE_SIZE]))
    seed(f, "bf16_matrix.safetensors", safetensors(
        [("lm_head.weight", "BF16", [3, 2, 2]), ("scalar", "F32", [])]))
    seed(f, "zero_size_last.safetensors", safetensors(
        [("w", "F32", [2]), ("empty", "F32", [0])]))
    seed(f, "empty_header.safetensors", struct.pack("<Q", 2) + b"{}")
    seed(f, "metadata_only.safetensors", safetensors([], {"format": "pt", "total": "0"}))
    # Unpadded header with a tensor whose offsets leave a gap (allowed by the format).
    text = compact({"a": {"dtype": "I8", "shape": [2], "data_offsets": [2, 4]}}).encode()
    seed(f, "gap.safetensors", struct.pack("<Q", len(text)) + text + b"\x01\x02\x03\x04")


# The two shards fuzz_shard_index.cpp writes next to the fuzzed index.
SHARD_TENSORS = {
    "embeddings.weight": "model-00001-of-00002.safetensors",
    "layer.0.weight": "model-00001-of-00002.safetensors",
    "layer.1.weight": "model-00002-of-00002.safetensors",
    "head.bias": "model-00002-of-00002.safetensors",
}


def shard_index_seeds():
    f = "fuzz_shard_index"
    seed(f, "full.json", json.dumps({"metadata": {"total_size": 36},
                                     "weight_map": SHARD_TENSORS}, indent=2))
    first = {k: v for k, v in SHARD_TENSORS.items() if "00001" in v}
    seed(f, "one_shard.json", compact({"weight_map": first}))
    seed(f, "wrong_shard.json", compact({"weight_map": {"head.bias":
                                                        "model-00001-of-00002.safetensors"}}))
    seed(f, "not_plain_name.json", compact({"weight_map": {"a": "../model.safetensors"}}))
    seed(f, "missing_shard.json",
         compact({"weight_map": {"a": "model-00009-of-00009.safetensors"}}))
    seed(f, "empty_map.json", compact({"metadata": {}, "weight_map": {}}))


# --- config.json -------------------------------------------------------------------------------

CONFIGS = {
    "bert": {"architectures": ["BertForMaskedLM"], "hidden_act": "gelu", "hidden_size": 15,
             "intermediate_size": 37, "layer_norm_eps": 1e-12, "max_position_embeddings": 40,
             "model_type": "bert", "num_attention_heads": 3, "num_hidden_layers": 2,
             "pad_token_id": 0, "position_embedding_type": "absolute", "type_vocab_size": 2,
             "vocab_size": 409},
    "roberta": {"architectures": ["RobertaForMaskedLM"], "bos_token_id": 0, "eos_token_id": 2,
                "hidden_act": "gelu", "hidden_size": 20, "intermediate_size": 44,
                "layer_norm_eps": 1e-05, "max_position_embeddings": 27, "model_type": "roberta",
                "num_attention_heads": 4, "num_hidden_layers": 2, "pad_token_id": 1,
                "position_embedding_type": "absolute", "type_vocab_size": 1, "vocab_size": 561},
    "distilbert": {"activation": "gelu", "architectures": ["DistilBertForMaskedLM"], "dim": 12,
                   "hidden_dim": 30, "max_position_embeddings": 32, "model_type": "distilbert",
                   "n_heads": 2, "n_layers": 2, "pad_token_id": 0,
                   "sinusoidal_pos_embds": False, "vocab_size": 310},
    "electra": {"architectures": ["ElectraForMaskedLM"], "embedding_size": 16,
                "hidden_act": "gelu", "hidden_size": 16, "intermediate_size": 40,
                "layer_norm_eps": 1e-12, "max_position_embeddings": 24, "model_type": "electra",
                "num_attention_heads": 2, "num_hidden_layers": 2, "pad_token_id": 0,
                "type_vocab_size": 2, "vocab_size": 409},
    "gpt2": {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
             "bos_token_id": 556, "eos_token_id": 556, "layer_norm_epsilon": 1e-05,
             "model_type": "gpt2", "n_ctx": 21, "n_embd": 18, "n_head": 3, "n_inner": None,
             "n_layer": 2, "n_positions": 21, "scale_attn_by_inverse_layer_idx": False,
             "scale_attn_weights": True, "vocab_size": 557},
    "llama": {"architectures": ["LlamaForCausalLM"], "attention_bias": True, "hidden_act": "silu",
              "hidden_size": 24, "intermediate_size": 37, "max_position_embeddings": 32,
              "mlp_bias": True, "model_type": "llama", "num_attention_heads": 4,
              "num_hidden_layers": 2, "num_key_value_heads": 4, "rms_norm_eps": 1e-05,
              "rope_scaling": {"factor": 2.0, "type": "linear"}, "rope_theta": 10000.0,
              "tie_word_embeddings": False, "vocab_size": 557},
    "llama3": {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "head_dim": 8,
               "hidden_act": "silu", "hidden_size": 40, "intermediate_size": 52,
               "max_position_embeddings": 64, "mlp_bias": False, "model_type": "llama",
               "num_attention_heads": 8, "num_hidden_layers": 2, "num_key_value_heads": 2,
               "rms_norm_eps": 1e-05,
               "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                "original_max_position_embeddings": 256, "rope_type": "llama3"},
               "rope_theta": 500000.0, "tie_word_embeddings": False, "vocab_size": 557},
    "mistral": {"architectures": ["MistralForCausalLM"], "hidden_act": "silu", "hidden_size": 24,
                "intermediate_size": 40, "max_position_embeddings": 32, "model_type": "mistral",
                "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 1,
                "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 10000.0,
                "sliding_window": 5, "tie_word_embeddings": False, "vocab_size": 557},
    "qwen2": {"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 24,
              "intermediate_size": 44, "max_position_embeddings": 32, "max_window_layers": 3,
              "model_type": "qwen2", "num_attention_heads": 4, "num_hidden_layers": 3,
              "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_scaling": None,
              "rope_theta": 1000000.0, "sliding_window": 32, "tie_word_embeddings": True,
              "use_sliding_window": False, "vocab_size": 557},
    "qwen2_partial_rope": {"model_type": "qwen2", "hidden_size": 32, "intermediate_size": 48,
                           "max_position_embeddings": 16, "num_attention_heads": 4,
                           "num_hidden_layers": 1, "num_key_value_heads": 4,
                           "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-06,
                           "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
                           "vocab_size": 300},
}


# Encoder-decoder configs (issue 26), written compact as the fuzzer first saw them.
SEQ2SEQ_CONFIGS = {'bart': {'activation_dropout': 0.0,
          'activation_function': 'gelu',
          'architectures': ['BartForConditionalGeneration'],
          'attention_dropout': 0.0,
          'bos_token_id': 0,
          'classifier_dropout': 0.0,
          'd_model': 12,
          'decoder_attention_heads': 2,
          'decoder_ffn_dim': 21,
          'decoder_layerdrop': 0.0,
          'decoder_layers': 3,
          'decoder_start_token_id': 2,
          'dropout': 0.1,
          'encoder_attention_heads': 3,
          'encoder_ffn_dim': 19,
          'encoder_layerdrop': 0.0,
          'encoder_layers': 2,
          'eos_token_id': 2,
          'forced_eos_token_id': 2,
          'id2label': {'0': 'LABEL_0', '1': 'LABEL_1', '2': 'LABEL_2'},
          'init_std': 0.02,
          'is_encoder_decoder': True,
          'label2id': {'LABEL_0': 0, 'LABEL_1': 1, 'LABEL_2': 2},
          'max_position_embeddings': 24,
          'model_type': 'bart',
          'num_hidden_layers': 2,
          'pad_token_id': 1,
          'scale_embedding': False,
          'tie_word_embeddings': True,
          'torch_dtype': 'float32',
          'transformers_version': '4.52.4',
          'use_cache': True,
          'vocab_size': 59},
 'marian': {'activation_dropout': 0.0,
            'activation_function': 'swish',
            'architectures': ['MarianMTModel'],
            'attention_dropout': 0.0,
            'classifier_dropout': 0.0,
            'd_model': 12,
            'decoder_attention_heads': 3,
            'decoder_ffn_dim': 22,
            'decoder_layerdrop': 0.0,
            'decoder_layers': 2,
            'decoder_start_token_id': 62,
            'decoder_vocab_size': 63,
            'dropout': 0.1,
            'encoder_attention_heads': 3,
            'encoder_ffn_dim': 20,
            'encoder_layerdrop': 0.0,
            'encoder_layers': 2,
            'eos_token_id': 0,
            'forced_eos_token_id': 0,
            'init_std': 0.02,
            'is_encoder_decoder': True,
            'max_position_embeddings': 30,
            'model_type': 'marian',
            'num_hidden_layers': 2,
            'pad_token_id': 62,
            'scale_embedding': True,
            'share_encoder_decoder_embeddings': True,
            'tie_word_embeddings': True,
            'torch_dtype': 'float32',
            'transformers_version': '4.52.4',
            'use_cache': True,
            'vocab_size': 63},
 'mbart': {'activation_dropout': 0.0,
           'activation_function': 'relu',
           'architectures': ['MBartForConditionalGeneration'],
           'attention_dropout': 0.0,
           'bos_token_id': 0,
           'classifier_dropout': 0.0,
           'd_model': 16,
           'decoder_attention_heads': 4,
           'decoder_ffn_dim': 25,
           'decoder_layerdrop': 0.0,
           'decoder_layers': 2,
           'decoder_start_token_id': 2,
           'dropout': 0.1,
           'encoder_attention_heads': 4,
           'encoder_ffn_dim': 27,
           'encoder_layerdrop': 0.0,
           'encoder_layers': 2,
           'eos_token_id': 2,
           'forced_eos_token_id': 2,
           'init_std': 0.02,
           'is_encoder_decoder': True,
           'max_position_embeddings': 32,
           'model_type': 'mbart',
           'num_hidden_layers': 2,
           'pad_token_id': 1,
           'scale_embedding': True,
           'tie_word_embeddings': True,
           'torch_dtype': 'float16',
           'transformers_version': '4.52.4',
           'use_cache': True,
           'vocab_size': 67},
 't5': {'architectures': ['T5ForConditionalGeneration'],
        'classifier_dropout': 0.0,
        'd_ff': 17,
        'd_kv': 6,
        'd_model': 10,
        'decoder_start_token_id': 0,
        'dense_act_fn': 'gelu_new',
        'dropout_rate': 0.1,
        'eos_token_id': 1,
        'feed_forward_proj': 'gated-gelu',
        'initializer_factor': 1.0,
        'is_encoder_decoder': True,
        'is_gated_act': True,
        'layer_norm_epsilon': 1e-06,
        'model_type': 't5',
        'num_decoder_layers': 2,
        'num_heads': 2,
        'num_layers': 3,
        'pad_token_id': 0,
        'relative_attention_max_distance': 12,
        'relative_attention_num_buckets': 6,
        'tie_word_embeddings': False,
        'torch_dtype': 'bfloat16',
        'transformers_version': '4.52.4',
        'use_cache': True,
        'vocab_size': 61}}

# Ablation lists (fuzz_ablation_list): four shape bytes (layers, heads, key/value heads, value
# head size, each taken modulo its range), the ablation kind (modulo 3), then the list as typed.
ABLATION_LISTS = {'empty.bin': b'\x02\x02\x00\x00\x00',
 'groups.bin': b'\x03\x07\x02\x01\x020-g1,2-3',
 'heads.bin': b'\x03\x0b\x00\x01\x003-7,1-0, 0-11',
 'malformed.bin': b'\x02\x02\x00\x00\x001--2,,x-1, 99999999999-1',
 'mean.bin': b'\x01\x03\x00\x02\x011-2',
 'overlap.bin': b'\x03\x07\x02\x01\x001-g0,1-1'}


# The later decoders (issue 33): the configs of the fixture checkpoints make_checkpoints.py
# writes, compact.
LATER_DECODER_CONFIGS = {'gemma2_window_softcap': {'architectures': ['Gemma2ForCausalLM'],
                           'attention_bias': False,
                           'attention_dropout': 0.0,
                           'attn_logit_softcapping': 4.0,
                           'bos_token_id': 556,
                           'cache_implementation': 'hybrid',
                           'eos_token_id': 556,
                           'final_logit_softcapping': 5.0,
                           'head_dim': 12,
                           'hidden_activation': 'gelu_pytorch_tanh',
                           'hidden_size': 32,
                           'initializer_range': 0.02,
                           'intermediate_size': 48,
                           'max_position_embeddings': 32,
                           'model_type': 'gemma2',
                           'num_attention_heads': 4,
                           'num_hidden_layers': 4,
                           'num_key_value_heads': 2,
                           'pad_token_id': 0,
                           'query_pre_attn_scalar': 16,
                           'rms_norm_eps': 1e-06,
                           'rope_theta': 10000.0,
                           'sliding_window': 4,
                           'torch_dtype': 'float32',
                           'transformers_version': '4.52.4',
                           'use_cache': True,
                           'vocab_size': 557},
 'gemma3_multimodal': {'architectures': ['Gemma3ForConditionalGeneration'],
                       'boi_token_index': 557,
                       'eoi_token_index': 558,
                       'image_token_index': 559,
                       'initializer_range': 0.02,
                       'mm_tokens_per_image': 4,
                       'model_type': 'gemma3',
                       'text_config': {'bos_token_id': 556,
                                       'eos_token_id': 556,
                                       'head_dim': 6,
                                       'hidden_size': 16,
                                       'intermediate_size': 24,
                                       'layer_types': ['sliding_attention', 'full_attention'],
                                       'max_position_embeddings': 32,
                                       'model_type': 'gemma3_text',
                                       'num_attention_heads': 2,
                                       'num_hidden_layers': 2,
                                       'num_key_value_heads': 1,
                                       'query_pre_attn_scalar': 12,
                                       'sliding_window': 4,
                                       'vocab_size': 557},
                       'torch_dtype': 'float32',
                       'transformers_version': '4.52.4',
                       'vision_config': {'hidden_size': 16,
                                         'image_size': 28,
                                         'intermediate_size': 32,
                                         'model_type': 'siglip_vision_model',
                                         'num_attention_heads': 2,
                                         'num_hidden_layers': 1,
                                         'patch_size': 14,
                                         'vision_use_head': False}},
 'gemma3_text_qknorm': {'architectures': ['Gemma3ForCausalLM'],
                        'attention_bias': False,
                        'attention_dropout': 0.0,
                        'attn_logit_softcapping': None,
                        'bos_token_id': 556,
                        'cache_implementation': 'hybrid',
                        'eos_token_id': 556,
                        'final_logit_softcapping': None,
                        'head_dim': 8,
                        'hidden_activation': 'gelu_pytorch_tanh',
                        'hidden_size': 24,
                        'initializer_range': 0.02,
                        'intermediate_size': 40,
                        'max_position_embeddings': 32,
                        'model_type': 'gemma3_text',
                        'num_attention_heads': 4,
                        'num_hidden_layers': 4,
                        'num_key_value_heads': 2,
                        'pad_token_id': 0,
                        'query_pre_attn_scalar': 12,
                        'rms_norm_eps': 1e-06,
                        'rope_local_base_freq': 10000.0,
                        'rope_scaling': {'factor': 4.0, 'rope_type': 'linear'},
                        'rope_theta': 1000000.0,
                        'sliding_window': 4,
                        'sliding_window_pattern': 3,
                        'torch_dtype': 'bfloat16',
                        'transformers_version': '4.52.4',
                        'use_cache': True,
                        'vocab_size': 557},
 'gemma_mqa': {'architectures': ['GemmaForCausalLM'],
               'attention_bias': False,
               'attention_dropout': 0.0,
               'bos_token_id': 556,
               'eos_token_id': 556,
               'head_dim': 10,
               'hidden_act': 'gelu_pytorch_tanh',
               'hidden_activation': None,
               'hidden_size': 24,
               'initializer_range': 0.02,
               'intermediate_size': 40,
               'max_position_embeddings': 32,
               'model_type': 'gemma',
               'num_attention_heads': 4,
               'num_hidden_layers': 2,
               'num_key_value_heads': 1,
               'pad_token_id': 0,
               'rms_norm_eps': 1e-06,
               'rope_theta': 10000.0,
               'torch_dtype': 'float32',
               'transformers_version': '4.52.4',
               'use_cache': True,
               'vocab_size': 557},
 'gptneox_parallel': {'architectures': ['GPTNeoXForCausalLM'],
                      'attention_bias': True,
                      'attention_dropout': 0.0,
                      'bos_token_id': 556,
                      'classifier_dropout': 0.1,
                      'eos_token_id': 556,
                      'hidden_act': 'gelu',
                      'hidden_dropout': 0.0,
                      'hidden_size': 48,
                      'initializer_range': 0.02,
                      'intermediate_size': 80,
                      'layer_norm_eps': 1e-05,
                      'max_position_embeddings': 32,
                      'model_type': 'gpt_neox',
                      'num_attention_heads': 3,
                      'num_hidden_layers': 2,
                      'partial_rotary_factor': 0.25,
                      'rope_scaling': None,
                      'rope_theta': 10000.0,
                      'rotary_emb_base': 10000.0,
                      'rotary_pct': 0.25,
                      'tie_word_embeddings': False,
                      'torch_dtype': 'float16',
                      'transformers_version': '4.52.4',
                      'use_cache': True,
                      'use_parallel_residual': True,
                      'vocab_size': 557},
 'gptneox_sequential': {'architectures': ['GPTNeoXForCausalLM'],
                        'attention_bias': True,
                        'attention_dropout': 0.0,
                        'bos_token_id': 556,
                        'classifier_dropout': 0.1,
                        'eos_token_id': 556,
                        'hidden_act': 'gelu',
                        'hidden_dropout': 0.0,
                        'hidden_size': 32,
                        'initializer_range': 0.02,
                        'intermediate_size': 56,
                        'layer_norm_eps': 1e-05,
                        'max_position_embeddings': 32,
                        'model_type': 'gpt_neox',
                        'num_attention_heads': 4,
                        'num_hidden_layers': 3,
                        'partial_rotary_factor': 0.5,
                        'rope_scaling': None,
                        'rope_theta': 500.0,
                        'rotary_emb_base': 500.0,
                        'rotary_pct': 0.5,
                        'tie_word_embeddings': False,
                        'torch_dtype': 'float32',
                        'transformers_version': '4.52.4',
                        'use_cache': True,
                        'use_parallel_residual': False,
                        'vocab_size': 557},
 'olmo2': {'architectures': ['Olmo2ForCausalLM'],
           'attention_bias': False,
           'attention_dropout': 0.0,
           'bos_token_id': 556,
           'eos_token_id': 556,
           'hidden_act': 'silu',
           'hidden_size': 24,
           'initializer_range': 0.02,
           'intermediate_size': 40,
           'max_position_embeddings': 32,
           'model_type': 'olmo2',
           'num_attention_heads': 4,
           'num_hidden_layers': 2,
           'num_key_value_heads': 2,
           'pad_token_id': 556,
           'rms_norm_eps': 1e-06,
           'rope_scaling': None,
           'rope_theta': 500000.0,
           'tie_word_embeddings': False,
           'torch_dtype': 'float32',
           'transformers_version': '4.52.4',
           'use_cache': True,
           'vocab_size': 557},
 'phi3_longrope_window': {'architectures': ['Phi3ForCausalLM'],
                          'attention_dropout': 0.0,
                          'bos_token_id': 556,
                          'embd_pdrop': 0.0,
                          'eos_token_id': 556,
                          'hidden_act': 'silu',
                          'hidden_size': 32,
                          'initializer_range': 0.02,
                          'intermediate_size': 40,
                          'max_position_embeddings': 32,
                          'model_type': 'phi3',
                          'num_attention_heads': 4,
                          'num_hidden_layers': 2,
                          'num_key_value_heads': 2,
                          'original_max_position_embeddings': 8,
                          'pad_token_id': 556,
                          'partial_rotary_factor': 0.75,
                          'resid_pdrop': 0.0,
                          'rms_norm_eps': 1e-05,
                          'rope_scaling': {'long_factor': [1.5, 4.0, 9.0],
                                           'short_factor': [1.0, 1.25, 2.0],
                                           'type': 'longrope'},
                          'rope_theta': 10000.0,
                          'sliding_window': 4,
                          'tie_word_embeddings': False,
                          'torch_dtype': 'float32',
                          'transformers_version': '4.52.4',
                          'use_cache': True,
                          'vocab_size': 557},
 'qwen3_gqa_qknorm': {'architectures': ['Qwen3ForCausalLM'],
                      'attention_bias': False,
                      'attention_dropout': 0.0,
                      'bos_token_id': 556,
                      'eos_token_id': 556,
                      'head_dim': 8,
                      'hidden_act': 'silu',
                      'hidden_size': 24,
                      'initializer_range': 0.02,
                      'intermediate_size': 40,
                      'layer_types': ['full_attention', 'full_attention'],
                      'max_position_embeddings': 32,
                      'max_window_layers': 2,
                      'model_type': 'qwen3',
                      'num_attention_heads': 4,
                      'num_hidden_layers': 2,
                      'num_key_value_heads': 2,
                      'rms_norm_eps': 1e-06,
                      'rope_scaling': None,
                      'rope_theta': 1000000.0,
                      'sliding_window': None,
                      'tie_word_embeddings': False,
                      'torch_dtype': 'float32',
                      'transformers_version': '4.52.4',
                      'use_cache': True,
                      'use_sliding_window': False,
                      'vocab_size': 557},
 'qwen3_sliding_mqa': {'architectures': ['Qwen3ForCausalLM'],
                       'attention_bias': False,
                       'attention_dropout': 0.0,
                       'bos_token_id': 556,
                       'eos_token_id': 556,
                       'head_dim': 6,
                       'hidden_act': 'silu',
                       'hidden_size': 20,
                       'initializer_range': 0.02,
                       'intermediate_size': 36,
                       'max_position_embeddings': 32,
                       'max_window_layers': 1,
                       'model_type': 'qwen3',
                       'num_attention_heads': 4,
                       'num_hidden_layers': 3,
                       'num_key_value_heads': 1,
                       'rms_norm_eps': 1e-06,
                       'rope_scaling': None,
                       'rope_theta': 1000000.0,
                       'sliding_window': 4,
                       'tie_word_embeddings': True,
                       'torch_dtype': 'bfloat16',
                       'transformers_version': '4.52.4',
                       'use_cache': True,
                       'use_sliding_window': True,
                       'vocab_size': 557}}


def config_seeds():
    for name, cfg in CONFIGS.items():
        seed("fuzz_config", name + ".json", json.dumps(cfg, indent=1))
    for name, cfg in SEQ2SEQ_CONFIGS.items():
        seed("fuzz_config", name + ".json", json.dumps(cfg))
    for name, cfg in LATER_DECODER_CONFIGS.items():
        seed("fuzz_config", name + ".json", json.dumps(cfg))
    seed("fuzz_config", "default_model.json",
         read(os.path.join(REPO, "resources", "default_model", "config.json")))


# --- tokenizers --------------------------------------------------------------------------------

PARAGRAPH = ("the head looks at every token and decides how much each other token matters "
             "to it; some heads attend to the previous word, others to the separator")


def train_merges(words, count):
    """A tiny character BPE: the most frequent adjacent pair first, ties by the pair."""
    words = [list(w) for w in words]
    merges = []
    for _ in range(count):
        pairs = {}
        for w in words:
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + 1
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        for w in words:
            i = 0
            while i + 1 < len(w):
                if (w[i], w[i + 1]) == best:
                    w[i:i + 2] = [w[i] + w[i + 1]]
                i += 1
    return merges


def llama_pieces():
    """Llama 2 layout: <unk> <s> </s>, the 256 <0xNN> byte pieces, characters, then merges."""
    words = [SPACE + w for w in PARAGRAPH.split()]
    merges = train_merges(words, 40)
    pieces = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    for c in sorted(set("".join(words)) | set(".,'")):
        pieces.append(c)
    for a, b in merges:
        if a + b not in pieces:
            pieces.append(a + b)
    return pieces, merges


def added(id_, content):
    return {"id": id_, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}


def llama2_tokenizer_json(metaspace):
    pieces, merges = llama_pieces()
    if metaspace:  # as transformers converts tokenizer.model with legacy=false
        normalizer = None
        pre = {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "first",
               "split": False}
    else:  # legacy: Prepend + Replace normalizers, no pre-tokenizer
        normalizer = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": SPACE},
            {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}]}
        pre = None
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added(0, "<unk>"), added(1, "<s>"), added(2, "</s>")],
        "normalizer": normalizer, "pre_tokenizer": pre,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "<s>", "type_id": 1}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": {p: i for i, p in enumerate(pieces)},
                  "merges": [a + " " + b for a, b in merges]},
    }, ensure_ascii=False, separators=(",", ":"))


# A minimal protobuf writer for sentencepiece_model.proto (ModelProto).
def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field_varint(number, value):
    return varint(number << 3 | 0) + varint(value & 0xFFFFFFFFFFFFFFFF)


def field_bytes(number, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return varint(number << 3 | 2) + varint(len(data)) + data


def field_float(number, value):
    return varint(number << 3 | 5) + struct.pack("<f", value)


NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6


def sentencepiece_model(unigram):
    pieces, _ = llama_pieces()
    proto = b""
    for i, p in enumerate(pieces):
        if p == "<unk>":
            kind, score = UNKNOWN, 0.0
        elif p in ("<s>", "</s>"):
            kind, score = CONTROL, 0.0
        elif p.startswith("<0x"):
            kind, score = BYTE, 0.0
        else:
            kind, score = NORMAL, -float(i)
        proto += field_bytes(1, field_bytes(1, p) + field_float(2, score) + field_varint(3, kind))
    trainer = (field_varint(3, 1 if unigram else 2)  # model_type: UNIGRAM = 1, BPE = 2
               + field_varint(4, len(pieces))          # vocab_size
               + field_varint(35, 1)                   # byte_fallback
               + field_varint(40, 0) + field_varint(41, 1) + field_varint(42, 2)  # unk bos eos
               + field_varint(43, -1))                 # pad_id
    normalizer = (field_bytes(1, "identity") + field_varint(3, 1)  # add_dummy_prefix
                  + field_varint(4, 0) + field_varint(5, 1))  # remove_extra_ws, escape_ws
    return proto + field_bytes(2, trainer) + field_bytes(3, normalizer)


LLAMA_CONFIG = {"add_bos_token": True, "add_eos_token": False, "legacy": False,
                "tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>",
                "unk_token": "<unk>", "pad_token": None,
                "added_tokens_decoder": {str(i): dict(added(i, t), id=None) for i, t in
                                         enumerate(["<unk>", "<s>", "</s>"])}}
for entry in LLAMA_CONFIG["added_tokens_decoder"].values():
    del entry["id"]

BERT_CONFIG = {"cls_token": "[CLS]", "do_lower_case": True, "mask_token": "[MASK]",
               "model_max_length": 40, "pad_token": "[PAD]", "sep_token": "[SEP]",
               "strip_accents": None, "tokenize_chinese_chars": True,
               "tokenizer_class": "BertTokenizer", "unk_token": "[UNK]"}
ROBERTA_CONFIG = {"add_prefix_space": False, "bos_token": "<s>", "cls_token": "<s>",
                  "eos_token": "</s>", "errors": "replace",
                  "mask_token": {"content": "<mask>", "lstrip": True, "normalized": False,
                                 "rstrip": False, "single_word": False, "special": True},
                  "pad_token": "<pad>", "sep_token": "</s>",
                  "tokenizer_class": "RobertaTokenizer", "trim_offsets": True,
                  "unk_token": "<unk>"}
GPT2_CONFIG = {"add_prefix_space": True, "bos_token": "<|endoftext|>",
               "eos_token": "<|endoftext|>", "tokenizer_class": "GPT2Tokenizer",
               "unk_token": "<|endoftext|>"}


def tokenizer_seeds():
    llama_legacy = llama2_tokenizer_json(metaspace=False)
    write(os.path.join(FIXTURES, "llama2_tokenizer.json"), llama_legacy)
    spm_bpe = sentencepiece_model(unigram=False)
    write(os.path.join(FIXTURES, "tiny_bpe.model"), spm_bpe)

    f = "fuzz_tokenizer_json"
    for root, _, files in sorted(os.walk(DATA)):
        for name in sorted(files):
            if "tokenizer" in name and name.endswith(".json"):
                data = read(os.path.join(root, name))
                if len(data) <= 8192:
                    case = os.path.basename(root)
                    seed(f, case + "_" + name, data)
    seed(f, "llama2_legacy_tokenizer.json", llama_legacy)
    seed(f, "llama2_metaspace_tokenizer.json", llama2_tokenizer_json(metaspace=True))

    f = "fuzz_sentencepiece"
    seed(f, "bpe_byte_fallback.model", spm_bpe)
    seed(f, "unigram_byte_fallback.model", sentencepiece_model(unigram=True))

    f = "fuzz_marian_vocab"  # vocab.json beside tiny_bpe.model as source.spm and target.spm
    pieces, _ = llama_pieces()
    marian = {p: i for i, p in enumerate(pieces + ["<pad>"])}
    seed(f, "tiny_marian_vocab.json", json.dumps(marian, ensure_ascii=False))
    for name, change in (("string_id", {"<unk>": "0"}), ("negative_id", {"<unk>": -1}),
                         ("id_2_to_31", {"<unk>": 2 ** 31}), ("repeated_id", {"<pad>": 1}),
                         ("id_past_end", {"<pad>": len(marian) + 5}), ("float_id", {"<s>": 1.5}),
                         ("no_unk", {"<unk>": None, "<UNK>": 0})):
        broken = {p: i for p, i in dict(marian, **change).items() if i is not None}
        seed(f, name + ".json", json.dumps(broken, ensure_ascii=False))
    seed(f, "not_an_object.json", json.dumps(sorted(marian)))

    f = "fuzz_vocab_txt"
    seed(f, "tiny_bert_vocab.txt", read(os.path.join(DATA, "tiny_bert", "vocab.txt")))
    for case in ("malformed_vocab_txt_empty", "malformed_vocab_txt_no_unk",
                 "malformed_vocab_txt_utf8"):
        seed(f, case + ".txt", read(os.path.join(DATA, case, "vocab.txt")))
    seed(f, "accents_cjk_crlf.txt",
         "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nthe\r\nhe\r\n##ad\r\n##s\r\ncaf\r\n"
         "##\u00e9\r\n\u00e9\r\n\u4e2d\r\n\u6587\r\n##\u6587\r\n12\r\n##345\r\n,\r\n.\r\n'\r\n"
         "t\r\n##t\r\n\r\n  \r\n")

    f = "fuzz_bpe_files"
    sep = b"\n#merges.txt\n"
    vocab = read(os.path.join(DATA, "tiny_bytelevel", "vocab.json"))
    merges = read(os.path.join(DATA, "tiny_bytelevel", "merges.txt"))
    seed(f, "tiny_bytelevel.bin", vocab + sep + merges)
    seed(f, "vocab_only.bin", vocab)
    for case, file in (("malformed_vocab_json_syntax", "vocab.json"),
                       ("malformed_vocab_json_type", "vocab.json"),
                       ("malformed_merges_txt_line", "merges.txt"),
                       ("malformed_merges_txt_piece", "merges.txt")):
        data = read(os.path.join(DATA, case, file))
        seed(f, case + ".bin", data + sep + merges if file == "vocab.json" else vocab + sep + data)

    # First byte: base (0 vocab.txt, 1 vocab.json+merges, 2 WordPiece tokenizer.json, 3 Llama 2
    # tokenizer.json, 4 tokenizer.model, 5 RoBERTa tokenizer.json) + 6 * model type ("", bert,
    # roberta, gpt2, llama).
    f = "fuzz_tokenizer_config"
    cases = [
        ("wordpiece_bert", 0 + 6 * 1, BERT_CONFIG),
        ("wordpiece_cased", 0 + 6 * 0, {"do_lower_case": False, "strip_accents": True,
                                        "tokenize_chinese_chars": False}),
        ("bytelevel_roberta_from_config_json", 1 + 6 * 0, ROBERTA_CONFIG),
        ("bytelevel_gpt2", 1 + 6 * 3, GPT2_CONFIG),
        ("json_wordpiece_bert", 2 + 6 * 1, BERT_CONFIG),
        ("json_llama", 3 + 6 * 4, LLAMA_CONFIG),
        ("json_llama_eos_legacy", 3 + 6 * 4, dict(LLAMA_CONFIG, add_eos_token=True,
                                                  legacy=True)),
        ("spm_llama", 4 + 6 * 4, LLAMA_CONFIG),
        ("spm_no_bos_prefix_space", 4 + 6 * 0, dict(LLAMA_CONFIG, add_bos_token=False,
                                                    add_prefix_space=False)),
        ("json_roberta", 5 + 6 * 2, ROBERTA_CONFIG),
    ]
    for name, selector, cfg in cases:
        seed(f, name + ".bin", bytes([selector]) + json.dumps(cfg, indent=2).encode())
    seed(f, "no_config.bin", bytes([0]))


# --- text ----------------------------------------------------------------------------------------

def conllu(text):
    """A CoNLL-U file written with its word lines' columns lined up by spaces (no field here holds
    one): those get tabs; comment and blank lines stay as they are."""
    return "\n".join(line if line.startswith("#") else "\t".join(line.split())
                     for line in text.split("\n"))


CONLLU_BASIC = conllu("""\
# newdoc id = d1
# sent_id = s-1
# text = They can't go.
1    They   they  PRON   PRP  Case=Nom|Number=Plur  3  nsubj   3:nsubj  _
2-3  can't  _     _      _    _                     _  _       _        _
2    ca     can   AUX    MD   VerbForm=Fin          4  aux     _        _
3    n't    not   PART   RB   _                     4  advmod  _        _
4    go     go    VERB   VB   VerbForm=Inf          0  root    0:root   SpaceAfter=No
5    .      .     PUNCT  .    _                     4  punct   4:punct  _

# sent_id = s-2
# text = Fine.
1    Fine   fine  ADJ    JJ   _                     0  root    _        SpaceAfter=No
1.1  is     be    AUX    _    _                     _  _       0:root   _
2    .      .     PUNCT  .    _                     1  punct   _        _

""")

CONLLU_UNANNOTATED = conllu("""\
# sent_id = raw
1  No            _            _      _  _  _  _     _  _
2  heads         _            _      _  _  _  _     _  SpacesAfter=\\n
3  _             _            SYM    _  _  _  _     _  _

# text = Caf\u00e9 \u4e2d\u6587
1  Caf\u00e9     caf\u00e9    NOUN   _  _  0  root  _  _
2  \u4e2d\u6587  _            PROPN  _  _  1  nmod  _  SpaceAfter=No
""")

CONLLU_BAD = conllu("""\
1    cycle         _  _  _  _  2  dep   _  _
2    here          _  _  _  _  1  dep   _  _

1    self          _  _  _  _  1  dep   _  _

1    short         line

2    out-of-order  _  _  _  _  0  root  _  _

# comment after tokens?
1    ok            _  _  _  _  0  root  _  _
# late comment

1-3  range         _  _  _  _  _  _     _  _
1    a             _  _  _  _  0  root  _  _

""")

# CorefUD Entity= values (issue 16): GUM-style nested openers and concatenated closers, a document
# before the first newdoc, discontinuous parts, an unclosed opener and an unmatched closer.
CONLLU_COREF = conllu("""\
# sent_id = before-any-newdoc
1  Kim     _  NOUN  _  _  2  dep  _  Entity=(1-person-new-sgl)
2  saw     _  NOUN  _  _  0  dep  _  _
3  her     _  NOUN  _  _  4  dep  _  SpaceAfter=No|Entity=(2-person-new-coref(1-person-giv:act-coref)
4  sister  _  NOUN  _  _  2  dep  _  Entity=2)

# newdoc id = d2
1  a       _  NOUN  _  _  0  dep  _  Entity=(7-abstract-new(3-abstract-giv)(4
2  b       _  NOUN  _  _  1  dep  _  Entity=(e5[1/2]-x)
3  c       _  NOUN  _  _  1  dep  _  Entity=4)7)9)(8

# newdoc
1  flat    _  X     _  _  _  _    _  Entity=(3-x
2  tree    _  X     _  _  _  _    _  Entity=3)

""")

CONLLU_COREF_BAD = conllu("""\
1  a  _  NOUN  _  _  0  dep  _  Entity=(-x)

1  b  _  NOUN  _  _  0  dep  _  Entity=(3(4)|Entity=(5)

1  c  _  NOUN  _  _  0  dep  _  Entity=

1  d  _  NOUN  _  _  0  dep  _  Entity=abc

""")


def text_seeds():
    seed("fuzz_coref", "gum_style.conllu", CONLLU_COREF)
    seed("fuzz_coref", "malformed.conllu", CONLLU_COREF_BAD)
    seed("fuzz_coref", "basic.conllu", CONLLU_BASIC)
    for f in ("fuzz_conllu", "fuzz_sentences"):
        seed(f, "basic.conllu", CONLLU_BASIC)
        seed(f, "unannotated_unicode.conllu", CONLLU_UNANNOTATED)
        seed(f, "invalid_sentences.conllu", CONLLU_BAD)
    seed("fuzz_conllu", "crlf.conllu", CONLLU_BASIC.replace("\n", "\r\n"))
    seed("fuzz_sentences", "plain.txt",
         "The cat sat on the mat.\n\n   \nCaf\u00e9 \u4e2d\u6587 x\U0001f972y\r\n"
         "\tTabbed line\nlast line without newline")
    seed("fuzz_sentences", "invalid_utf8.txt", b"fine\n\xff\xfe broken\n")


# --- GGUF ----------------------------------------------------------------------------------
# Written field by field from ggml's docs/gguf.md: value type ids, then ggml type ids with their
# block sizes (elements, bytes).

GGUF_TYPES = {"u8": (0, "<B"), "i8": (1, "<b"), "u16": (2, "<H"), "i16": (3, "<h"),
              "u32": (4, "<I"), "i32": (5, "<i"), "f32": (6, "<f"), "bool": (7, "<?"),
              "u64": (10, "<Q"), "i64": (11, "<q"), "f64": (12, "<d")}
GGML_TYPES = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
              "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34),
              "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144),
              "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "Q8_K": (15, 256, 292),
              "BF16": (30, 1, 2), "IQ4_NL": (20, 32, 18)}


def gguf_str(text):
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def gguf_value(kind, value):
    """kind: a scalar name, "string", or ("array", element kind)."""
    if kind == "string":
        return struct.pack("<I", 8) + gguf_str(value)
    if isinstance(kind, tuple):
        # Each element without its own type id; an inner array keeps its element type and length.
        inner = b"".join(gguf_value(kind[1], v)[4:] for v in value)
        elem = 8 if kind[1] == "string" else 9 if isinstance(kind[1], tuple) else GGUF_TYPES[kind[1]][0]
        head = struct.pack("<I", elem)
        return struct.pack("<I", 9) + head + struct.pack("<Q", len(value)) + inner
    type_id, fmt = GGUF_TYPES[kind]
    return struct.pack("<I", type_id) + struct.pack(fmt, value)


def gguf(metadata, tensors, version=3, alignment=32):
    """metadata: [(key, kind, value)]; tensors: [(name, ne, ggml type)], data a byte ramp."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata))
    for key, kind, value in metadata:
        out += gguf_str(key) + gguf_value(kind, value)
    data = b""
    for name, ne, type_name in tensors:
        type_id, block, size = GGML_TYPES[type_name]
        n = size
        for d in ne:
            n *= d
        n //= block
        data += b"\0" * (-len(data) % alignment)
        out += gguf_str(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne)
        out += struct.pack("<IQ", type_id, len(data))
        # Scales stay finite: ramp bytes of 0x3c/0x38 and small values.
        data += bytes(((i * 37) % 61) for i in range(n))
    if tensors:
        out += b"\0" * (-len(out) % alignment)
    return out + data


def gguf_seeds():
    f = "fuzz_gguf"
    vocab = ["<unk>", "<s>", "</s>", "<0x0A>", "▁the", "▁cat", "s", "at"]
    meta = [("general.architecture", "string", "llama"), ("general.name", "string", "tiny"),
            ("llama.block_count", "u32", 1), ("llama.context_length", "u32", 64),
            ("llama.embedding_length", "u32", 32), ("llama.attention.head_count", "u32", 4),
            ("llama.attention.head_count_kv", "u32", 2), ("llama.rope.freq_base", "f32", 10000.0),
            ("llama.attention.layer_norm_rms_epsilon", "f32", 1e-5),
            ("tokenizer.ggml.model", "string", "llama"),
            ("tokenizer.ggml.tokens", ("array", "string"), vocab),
            ("tokenizer.ggml.scores", ("array", "f32"), [0.0, 0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -4.0]),
            ("tokenizer.ggml.token_type", ("array", "i32"), [2, 3, 3, 6, 1, 1, 1, 1]),
            ("tokenizer.ggml.bos_token_id", "u32", 1), ("tokenizer.ggml.add_bos_token", "bool", True)]
    seed(f, "llama_f32.gguf", gguf(meta, [("token_embd.weight", [32, 8], "F32"),
                                          ("blk.0.attn_norm.weight", [32], "F32"),
                                          ("blk.0.attn_q.weight", [32, 32], "F16")]))
    quant = [("q.%s" % t, [GGML_TYPES[t][1] * (1 if GGML_TYPES[t][1] > 1 else 32), 1], t)
             for t in GGML_TYPES]
    seed(f, "every_type.gguf",
         gguf(meta[:1] + [("general.alignment", "u32", 64)], quant, alignment=64))
    seed(f, "gpt2_vocab_v2.gguf", gguf(
        [("general.architecture", "string", "gpt2"), ("tokenizer.ggml.model", "string", "gpt2"),
         ("tokenizer.ggml.pre", "string", "gpt-2"),
         ("tokenizer.ggml.tokens", ("array", "string"), ["a", "b", "ab", "Ġ", "Ġab"]),
         ("tokenizer.ggml.merges", ("array", "string"), ["a b", "Ġ ab"])], [], version=2))
    seed(f, "every_value_type.gguf", gguf(
        [("k.%s" % k, k, v) for k, v in (("u8", 7), ("i8", -7), ("u16", 700), ("i16", -700),
                                        ("u32", 70000), ("i32", -70000), ("f32", 0.5),
                                        ("bool", False), ("u64", 2 ** 40), ("i64", -2 ** 40),
                                        ("f64", 0.25))] +
        [("k.nested", ("array", ("array", "u8")), [[1, 2], [], [3]]),
         ("k.empty", ("array", "string"), [])], [("t", [4, 2, 2, 1], "F32")]))
    seed(f, "no_tensors.gguf", gguf([("general.architecture", "string", "qwen2")], []))
    tiny_model_seeds(f)


def block_keys(arch, width=8, ffn=16, heads=2, kv_heads=2, context=16):
    return [("general.architecture", "string", arch), (arch + ".block_count", "u32", 1),
            (arch + ".embedding_length", "u32", width), (arch + ".feed_forward_length", "u32", ffn),
            (arch + ".attention.head_count", "u32", heads),
            (arch + ".attention.head_count_kv", "u32", kv_heads),
            (arch + ".context_length", "u32", context)]


def tiny_model_seeds(f):
    """Whole one-layer models (width 8, feed-forward 16) that load and run, so mutations reach
    the spec readers, the weight slots, the tokenizers and the forward pass: llama with a
    SentencePiece-style vocabulary (ne lists the row length first, as GGUF does), GPT-2 with byte-
    level BPE merges, BERT with llama.cpp's WPM vocabulary."""
    w, ff = 8, 16
    # Pieces that merge up to "▁the" and "▁cat" (SentencePiece merges need every step).
    pieces = ["\u2581the", "\u2581cat", "s", "at", "\u2581", "t", "h", "e", "c", "a",
              "\u2581t", "\u2581th", "\u2581c", "\u2581ca"]
    vocab = ["<unk>", "<s>", "</s>", "<0x0A>"] + pieces
    llama_keys = [
        ("llama.rope.freq_base", "f32", 10000.0),
        ("llama.attention.layer_norm_rms_epsilon", "f32", 1e-5),
        ("tokenizer.ggml.model", "string", "llama"),
        ("tokenizer.ggml.tokens", ("array", "string"), vocab),
        ("tokenizer.ggml.scores", ("array", "f32"), [0.0] * 4 + [-1.0 - i for i in range(14)]),
        ("tokenizer.ggml.token_type", ("array", "i32"), [2, 3, 3, 6] + [1] * 14),
        ("tokenizer.ggml.bos_token_id", "u32", 1), ("tokenizer.ggml.add_bos_token", "bool", True)]

    def llama_tensors(width, kv_rows, ffn, types):
        """One llama layer's tensors, each matrix of the type `types` names (norms F32)."""
        shapes = {"token_embd": [width, len(vocab)], "blk.0.attn_q": [width, width],
                  "blk.0.attn_k": [width, kv_rows], "blk.0.attn_v": [width, kv_rows],
                  "blk.0.attn_output": [width, width], "blk.0.ffn_gate": [width, ffn],
                  "blk.0.ffn_up": [width, ffn], "blk.0.ffn_down": [ffn, width],
                  "output": [width, len(vocab)]}
        out = []
        for name in ("token_embd", "blk.0.attn_norm", "blk.0.attn_q", "blk.0.attn_k",
                     "blk.0.attn_v", "blk.0.attn_output", "blk.0.ffn_norm", "blk.0.ffn_gate",
                     "blk.0.ffn_up", "blk.0.ffn_down", "output_norm", "output"):
            if name.endswith("norm"):
                out.append((name + ".weight", [width], "F32"))
            elif name in types:
                out.append((name + ".weight", shapes[name], types[name]))
        return out

    seed(f, "model_llama.gguf", gguf(block_keys("llama", kv_heads=1) + llama_keys, llama_tensors(
        w, 4, ff, {"token_embd": "F32", "blk.0.attn_q": "F16", "blk.0.attn_k": "F32",
                   "blk.0.attn_v": "BF16", "blk.0.attn_output": "F32", "blk.0.ffn_gate": "F32",
                   "blk.0.ffn_up": "F32", "blk.0.ffn_down": "F32"})))
    # Quantized rows need 32 or 256 weights: a width of 32 with Q8_0 and Q4_K products.
    q = block_keys("llama", width=32, ffn=256, heads=4, kv_heads=2) + llama_keys
    seed(f, "model_llama_quant.gguf", gguf(q, llama_tensors(
        32, 16, 256, {"token_embd": "Q8_0", "blk.0.attn_q": "Q4_0", "blk.0.attn_k": "Q8_0",
                      "blk.0.attn_v": "Q5_1", "blk.0.attn_output": "Q8_0",
                      "blk.0.ffn_gate": "Q4_0", "blk.0.ffn_up": "Q8_0", "blk.0.ffn_down": "Q4_K",
                      "output": "Q8_0"})))
    bpe = ["a", "b", "c", "\u0120", "ab", "\u0120ab", "<|endoftext|>"]
    gpt2 = block_keys("gpt2") + [
        ("gpt2.attention.layer_norm_epsilon", "f32", 1e-5),
        ("tokenizer.ggml.model", "string", "gpt2"), ("tokenizer.ggml.pre", "string", "gpt-2"),
        ("tokenizer.ggml.tokens", ("array", "string"), bpe),
        ("tokenizer.ggml.token_type", ("array", "i32"), [1] * 6 + [3]),
        ("tokenizer.ggml.merges", ("array", "string"), ["a b", "\u0120 ab"]),
        ("tokenizer.ggml.eos_token_id", "u32", 6)]
    seed(f, "model_gpt2.gguf", gguf(gpt2, [
        ("token_embd.weight", [w, 7], "F32"), ("position_embd.weight", [w, 16], "F32"),
        ("blk.0.attn_norm.weight", [w], "F32"), ("blk.0.attn_norm.bias", [w], "F32"),
        ("blk.0.attn_qkv.weight", [w, 3 * w], "F16"), ("blk.0.attn_qkv.bias", [3 * w], "F32"),
        ("blk.0.attn_output.weight", [w, w], "F32"), ("blk.0.attn_output.bias", [w], "F32"),
        ("blk.0.ffn_norm.weight", [w], "F32"), ("blk.0.ffn_norm.bias", [w], "F32"),
        ("blk.0.ffn_up.weight", [w, ff], "F32"), ("blk.0.ffn_up.bias", [ff], "F32"),
        ("blk.0.ffn_down.weight", [ff, w], "F32"), ("blk.0.ffn_down.bias", [w], "F32"),
        ("output_norm.weight", [w], "F32"), ("output_norm.bias", [w], "F32")]))
    wpm = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "\u2581the", "\u2581cat", "s", "\u2581caf"]
    bert = block_keys("bert") + [
        ("bert.attention.layer_norm_epsilon", "f32", 1e-12), ("bert.attention.causal", "bool", False),
        ("tokenizer.ggml.model", "string", "bert"), ("tokenizer.ggml.token_type_count", "u32", 2),
        ("tokenizer.ggml.tokens", ("array", "string"), wpm),
        ("tokenizer.ggml.token_type", ("array", "i32"), [3, 3, 3, 3, 3, 1, 1, 1, 1]),
        ("tokenizer.ggml.unknown_token_id", "u32", 1), ("tokenizer.ggml.padding_token_id", "u32", 0),
        ("tokenizer.ggml.bos_token_id", "u32", 2), ("tokenizer.ggml.seperator_token_id", "u32", 3),
        ("tokenizer.ggml.mask_token_id", "u32", 4)]
    tensors = [("token_embd.weight", [w, 9], "F32"), ("token_types.weight", [w, 2], "F32"),
               ("position_embd.weight", [w, 16], "F32"), ("token_embd_norm.weight", [w], "F32"),
               ("token_embd_norm.bias", [w], "F32")]
    for name, ne in (("attn_q", [w, w]), ("attn_k", [w, w]), ("attn_v", [w, w]),
                     ("attn_output", [w, w]), ("attn_output_norm", None), ("ffn_up", [w, ff]),
                     ("ffn_down", [ff, w]), ("layer_output_norm", None)):
        rows = ne[1] if ne else w
        if ne:
            tensors.append(("blk.0.%s.weight" % name, ne, "F32"))
        else:
            tensors.append(("blk.0.%s.weight" % name, [w], "F32"))
        tensors.append(("blk.0.%s.bias" % name, [rows], "F32"))
    seed(f, "model_bert.gguf", gguf(bert, tensors))


def ablation_list_seeds():
    for name, data in ABLATION_LISTS.items():
        seed("fuzz_ablation_list", name, data)


# What-ifs (fuzz_what_if): the head width (1 + the first byte), then the setting as typed.
WHAT_IFS = {"all.bin": b"\x3fqk-norm=unit, softcap=2.5,scale=inv-sqrt-dk",
            "off.bin": b"\x07softcap=off,qk-norm=off",
            "model.bin": b"\x00qk-norm=model,softcap=model,scale=model",
            "scale.bin": b"\xffscale=1e-3",
            "twice.bin": b"\x10softcap=1,softcap=2",
            "bad.bin": b"\x10qk=off,scale=-1,,=",
            "exponent.bin": b"\x10softcap=3.4028235e38"}


def what_if_seeds():
    for name, data in WHAT_IFS.items():
        seed("fuzz_what_if", name, data)


# Paths (fuzz_path_spec): the --path text of attnscope-cli patch as typed.
PATH_SPECS = {"one.bin": b"0-1->1-0:q",
              "many.bin": b" 0-1, 0-2 -> 1-0,1-3 : k ",
              "logits.bin": b"2-3->logits",
              "no_site.bin": b"0-1->1-0",
              "bad_site.bin": b"0-1->1-0:z",
              "arrows.bin": b"0-1->1-2->2-3:v",
              "huge.bin": b"99999999999-0->1-0:v"}


def path_spec_seeds():
    for name, data in PATH_SPECS.items():
        seed("fuzz_path_spec", name, data)


# Partial results of corpus jobs split into shards (fuzz_partial_result, issue 35): one part per
# command on a 1-layer, 2-head model, as attnscope-cli --shard writes them, and broken variants.
def partial_result(command, state, totals=None, shard=(0, 2)):
    return {"format": "attnscope-partial", "version": 1, "command": command,
            "options": {"from": "mean"},
            "model": {"path": "m", "name": "m", "layers": 1, "heads": 2, "max_tokens": 8},
            "corpus": {"path": "c.txt", "name": "c.txt", "bytes": 10,
                       "fnv1a64": "0123456789abcdef", "units": 3},
            "shard": {"index": shard[0], "count": shard[1]},
            "totals": totals or {}, "state": state}


def partial_result_seeds():
    deps = {"scored": 1, "skip_reasons": {"longer than the model's 8 positions": 1},
            "relations": [{"name": name, "total": 2, "correct": [1, 0, 2, 1],
                           "no_prediction": [0, 1, 0, 0], "offset_correct": [0, 0, 1, 2, 0, 0]}
                          for name in ("all", "det")]}
    coref = {"heads": [[1, 0, 1], [0, 0, 0], [0, 0, 0], [1, 0, 1]] * 2,
             "baselines": [[1, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0, 1]], "scored": [1, 0, 0, 1],
             "windows": 2, "scored_mentions": 1, "mentions_without_token": 0}
    coref_totals = {"documents": 1, "sentences": 3, "sentences_skipped": 0, "mentions": 4,
                    "discontinuous": 0, "unclosed": 0, "unmatched": 0, "malformed_sentences": 0,
                    "window_limit": 8, "warnings": []}
    head = {"max_offset": 1, "bins": [["1ff", 1, 1, 0], ["3fe", 2, 2, 1], ["0", 1, 0, 1]],
            "confidence": "ffffffff", "queries": 2, "skipped": 1, "sentences": 1}
    positions = {"heads": [head, head], "analyzed": 1, "skipped": 0, "first_skip_sentence": 0,
                 "first_skip_reason": ""}
    sums = [3, 1, "3ffc00000000000000000000000000000000000", "7f8", 1065353216, 1065353216,
            1073741824]
    saturation = {"as_is": {"passes": 1, "unnormed_everywhere": True, "heads": [sums, sums]},
                  "changed": None, "skipped": 0, "first_skip_sentence": 0,
                  "first_skip_reason": ""}
    parts = {"deps.json": partial_result("deps", deps, {"malformed": 0, "malformed_example": ""}),
             "coref.json": partial_result("coref", coref, coref_totals),
             "positions.json": partial_result("positions", positions),
             "saturation.json": partial_result("saturation", saturation)}
    wrong_length = partial_result("deps", dict(deps, relations=[dict(deps["relations"][0],
                                                                     correct=[1])]))
    parts["wrong_length.json"] = wrong_length
    parts["newer_version.json"] = dict(parts["deps.json"], version=2)
    for name, doc in parts.items():
        seed("fuzz_partial_result", name, json.dumps(doc, indent=1))


def main():
    for d in (CORPUS, FIXTURES):
        if os.path.isdir(d):
            shutil.rmtree(d)
    safetensors_seeds()
    gguf_seeds()
    shard_index_seeds()
    config_seeds()
    ablation_list_seeds()
    what_if_seeds()
    path_spec_seeds()
    partial_result_seeds()
    tokenizer_seeds()
    text_seeds()
    for fuzzer in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, fuzzer))
        size = sum(os.path.getsize(os.path.join(CORPUS, fuzzer, n)) for n in files)
        print("%-24s %3d seeds, %6d bytes" % (fuzzer, len(files), size))


if __name__ == "__main__":
    main()
