#!/usr/bin/python3
"""Write tiny random-weight Hugging Face checkpoints and their PyTorch reference outputs.

Usage: make_checkpoints.py --out DIR [--no-reference]

Creates DIR/checkpoints/<case>/ (config.json, *.safetensors, tokenizer files) for every case in
CASES, DIR/checkpoints/manifest.json, and then runs torch_reference.py on all of them so each
case also gets reference_<k>.safetensors. Runs as a CTest FIXTURES_SETUP step; the C++ parity
tests read the manifest and compare against the reference files.

Sizes are odd on purpose (head dims 5 and 6, FFN widths that are not multiples of the hidden
size) so that a C++ loop that assumes powers of two or square shapes fails, and tiny so the whole
run stays well under a minute on Debian's reference BLAS.
"""

import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_layouts  # noqa: E402
import llama_layouts  # noqa: E402
import reference_main  # noqa: E402
import st_io  # noqa: E402
import tokenizer_files  # noqa: E402

# One dict per checkpoint. max_pos is the usable length (RoBERTa's config adds pad_token_id + 1).
# lengths: input sequences for the reference; "full" = max_pos. pad_in: insert a pad token in
# the middle of that input (RoBERTa position ids skip pads, HF create_position_ids_from_input_ids).
# whatifs (issue-33 cases only): passes with decoder_parts.py's knobs changed, each
# dict(tag=..., qk_norm=..., softcap=..., scale=...) with WHATIF_DEFAULTS for the keys left out;
# torch_reference.py writes whatif_<tag>.safetensors on input WHATIF_INPUT for each (see
# whatif_entries for the manifest's "whatifs").
CASES = [
    dict(case="bert_f32", arch="bert", arch_class="BertForMaskedLM", dtype="F32", layers=2,
         heads=3, hidden=15, ffn=37, act="gelu", max_pos=40, vocab="bert", lengths=[1, 7, 13]),
    dict(case="bert_noprefix_f16", arch="bert", arch_class="BertModel", dtype="F16", layers=3,
         heads=4, hidden=24, ffn=50, act="relu", max_pos=33, vocab="compact",
         lengths=[3, 11, "full"]),
    dict(case="bert_bf16", arch="bert", arch_class="BertForPreTraining", dtype="BF16", layers=2,
         heads=2, hidden=16, ffn=40, act="gelu", max_pos=24, vocab="bert", lengths=[2, 9, 17]),
    dict(case="roberta_f32", arch="roberta", arch_class="RobertaForMaskedLM", dtype="F32",
         layers=2, heads=4, hidden=20, ffn=44, act="gelu", max_pos=25, lengths=[7, 13, "full"],
         pad_in=1),
    dict(case="distilbert_f16", arch="distilbert", arch_class="DistilBertForMaskedLM",
         dtype="F16", layers=2, heads=2, hidden=12, ffn=30, act="gelu", max_pos=32,
         vocab="compact", lengths=[1, 7, 15]),
    dict(case="gpt2_f32", arch="gpt2", arch_class="GPT2LMHeadModel", dtype="F32", layers=2,
         heads=3, hidden=18, ffn=None, act="gelu_new", max_pos=21, lengths=[1, 9, "full"],
         old_buffers=True, lm_head=True),
    dict(case="gpt2_noprefix_f16", arch="gpt2", arch_class="GPT2Model", dtype="F16", layers=3,
         heads=2, hidden=10, ffn=26, act="gelu", max_pos=24, lengths=[2, 7, 13]),
    dict(case="gpt2_sharded_bf16", arch="gpt2", arch_class="GPT2LMHeadModel", dtype="BF16",
         layers=4, heads=4, hidden=32, ffn=None, act="gelu_new", max_pos=32, lengths=[5, 11, 19],
         shards=3),
    # The Llama family: GQA ratios 1, 2, 4 and MQA, explicit head_dim, partial rotary, rope
    # scaling (linear, llama3), biases, Mistral's sliding window, tied and untied LM heads.
    dict(case="llama_f32", arch="llama", arch_class="LlamaForCausalLM", dtype="F32", layers=2,
         heads=4, kv_heads=4, hidden=24, ffn=37, max_pos=32, lengths=[1, 7, 13],
         attention_bias=True, mlp_bias=True, rope_scaling={"type": "linear", "factor": 2.0}),
    dict(case="llama_gqa2_headdim_bf16", arch="llama", arch_class="LlamaForCausalLM",
         dtype="BF16", layers=2, heads=6, kv_heads=3, hidden=20, head_dim=8, ffn=30, max_pos=32,
         lengths=[2, 9, 16], partial_rotary_factor=0.5, tied=True),
    dict(case="llama3_gqa4_f32", arch="llama", arch_class="LlamaForCausalLM", dtype="F32",
         layers=2, heads=8, kv_heads=2, hidden=40, head_dim=8, ffn=52, max_pos=64,
         lengths=[5, 17, 33], rope_theta=500000.0,
         rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                       "high_freq_factor": 4.0, "original_max_position_embeddings": 256}),
    dict(case="mistral_mqa_window_f32", arch="mistral", arch_class="MistralForCausalLM",
         dtype="F32", layers=2, heads=4, kv_heads=1, hidden=24, ffn=40, max_pos=32,
         lengths=[3, 9, 14], sliding_window=5),
    dict(case="qwen2_gqa2_bf16", arch="qwen2", arch_class="Qwen2ForCausalLM", dtype="BF16",
         layers=3, heads=4, kv_heads=2, hidden=24, ffn=44, max_pos=32, lengths=[4, 11, 19],
         rope_theta=1000000.0, tied=True),
    # Issue 33 (gemma_layouts.py, modern_layouts.py): every case exercises its architecture's
    # easy-to-miss detail (methods.md §13); the manifest's "features" entry says which.
    dict(case="gemma_mqa_f32", arch="gemma", arch_class="GemmaForCausalLM", dtype="F32",
         layers=2, heads=4, kv_heads=1, hidden=24, head_dim=10, ffn=40, max_pos=32,
         lengths=[1, 7, 13]),
    dict(case="gemma2_window_softcap_f32", arch="gemma2", arch_class="Gemma2ForCausalLM",
         dtype="F32", layers=4, heads=4, kv_heads=2, hidden=32, head_dim=12, ffn=48, max_pos=32,
         lengths=[3, 9, 13], query_pre_attn_scalar=16, sliding_window=4, attn_softcap=4.0,
         final_softcap=5.0,
         whatifs=[dict(tag="softcap_off", softcap=None), dict(tag="softcap_2", softcap=2.0),
                  dict(tag="qk_unit_scale_0.2", qk_norm="unit", scale=0.2)]),
    dict(case="gemma3_text_qknorm_bf16", arch="gemma3_text", arch_class="Gemma3ForCausalLM",
         dtype="BF16", layers=4, heads=4, kv_heads=2, hidden=24, head_dim=8, ffn=40, max_pos=32,
         lengths=[2, 9, 14], query_pre_attn_scalar=12, sliding_window=4, sliding_window_pattern=3,
         rope_theta=1000000.0, rope_scaling={"factor": 4.0, "rope_type": "linear"},
         qk_norm_mean=0.4, whatifs=[dict(tag="qk_off", qk_norm="off")]),
    dict(case="gemma3_multimodal_f32", arch="gemma3", arch_class="Gemma3ForConditionalGeneration",
         dtype="F32", layers=2, heads=2, kv_heads=1, hidden=16, head_dim=6, ffn=24, max_pos=32,
         lengths=[4, 11], query_pre_attn_scalar=12, sliding_window=4,
         layer_types=["sliding_attention", "full_attention"]),
    dict(case="qwen3_gqa_qknorm_f32", arch="qwen3", arch_class="Qwen3ForCausalLM", dtype="F32",
         layers=2, heads=4, kv_heads=2, hidden=24, head_dim=8, ffn=40, max_pos=32,
         lengths=[1, 7, 13], layer_types_key=True,
         whatifs=[dict(tag="qk_off", qk_norm="off"), dict(tag="qk_unit", qk_norm="unit")]),
    dict(case="qwen3_sliding_mqa_bf16", arch="qwen3", arch_class="Qwen3ForCausalLM",
         dtype="BF16", layers=3, heads=4, kv_heads=1, hidden=20, head_dim=6, ffn=36, max_pos=32,
         lengths=[3, 9, 12], sliding_window=4, max_window_layers=1, tied=True, qk_norm_mean=1.3),
    dict(case="olmo2_f32", arch="olmo2", arch_class="Olmo2ForCausalLM", dtype="F32", layers=2,
         heads=4, kv_heads=2, hidden=24, ffn=40, max_pos=32, lengths=[2, 8, 15],
         whatifs=[dict(tag="qk_off_scale_0.1", qk_norm="off", scale=0.1),
                  dict(tag="qk_unit", qk_norm="unit")]),
    dict(case="phi3_longrope_window_f32", arch="phi3", arch_class="Phi3ForCausalLM",
         dtype="F32", layers=2, heads=4, kv_heads=2, hidden=32, ffn=40, max_pos=32,
         original_max_pos=8, lengths=[5, 8, 13], sliding_window=4, partial_rotary_factor=0.75,
         rope_scaling={"long_factor": [1.5, 4.0, 9.0], "short_factor": [1.0, 1.25, 2.0],
                       "type": "longrope"},
         whatifs=[dict(tag="qk_unit_softcap_3", qk_norm="unit", softcap=3.0)]),
    dict(case="gptneox_parallel_f16", arch="gpt_neox", arch_class="GPTNeoXForCausalLM",
         dtype="F16", layers=2, heads=3, hidden=48, ffn=80, max_pos=32, lengths=[1, 9, 17],
         rotary_pct=0.25, parallel=True,
         whatifs=[dict(tag="qk_unit", qk_norm="unit"),
                  dict(tag="softcap_1.5_scale_0.5", softcap=1.5, scale=0.5)]),
    dict(case="gptneox_sequential_f32", arch="gpt_neox", arch_class="GPTNeoXForCausalLM",
         dtype="F32", layers=3, heads=4, hidden=32, ffn=56, max_pos=32, lengths=[2, 7, 12],
         rotary_pct=0.5, parallel=False, rope_theta=500.0),
    # A training series (issue 33): three "checkpoints" of one Pythia shape on the same inputs
    # (input_seed), which the series tests link as step0/step512/step4096 folders.
] + [dict(case=f"pythia_series_step{step}_f32", arch="gpt_neox",
          arch_class="GPTNeoXForCausalLM", dtype="F32", layers=2, heads=4, hidden=32, ffn=48,
          max_pos=32, lengths=[6, 11], rotary_pct=0.25, parallel=True, input_seed=777)
     for step in (0, 512, 4096)] + [
]
LLAMA_FAMILY = ("llama", "mistral", "qwen2")
# Issue 33's decoders: causal, first token BOS like the Llama family.
ISSUE33 = ("gemma", "gemma2", "gemma3_text", "gemma3", "qwen3", "olmo2", "phi3", "gpt_neox")
BASE_SEED = 20240601
WHATIF_DEFAULTS = dict(qk_norm="model", softcap="model", scale=None)
WHATIF_INPUT = 1  # index into the entry's "inputs"


def write_tokenizer(case, folder):
    """Tokenizer files for the case; returns (vocab size, special-token ids)."""
    if case["arch"] in ("bert", "distilbert"):
        cls = "DistilBertTokenizer" if case["arch"] == "distilbert" else "BertTokenizer"
        return tokenizer_files.write_wordpiece_files(folder, case["vocab"], cls, case["max_pos"])
    # Llama-family cases reuse the byte-level BPE files (Llama-3 and Qwen2 are byte-level too).
    flavor = "roberta" if case["arch"] == "roberta" else "gpt2"
    return tokenizer_files.write_bpe_files(folder, flavor, case["max_pos"])


def make_inputs(case, vocab_size, special, rng):
    """Random token ids per requested length, framed by the model's special tokens.

    BERT-family: [CLS] ... [SEP] (a length-1 input is just [CLS]); RoBERTa: <s> ... </s>;
    GPT-2 adds no specials, except that the full-length input starts with <|endoftext|>;
    the Llama family and issue 33's decoders start with BOS.
    """
    specials = set(special.values())
    if case.get("vocab") == "bert":
        specials |= set(range(special["unk"]))  # [PAD] and [unused*]
    ordinary = np.array([i for i in range(vocab_size) if i not in specials])
    inputs = []
    for k, length in enumerate(case["lengths"]):
        n = case["max_pos"] if length == "full" else length
        ids = [int(i) for i in rng.choice(ordinary, size=n)]
        if case["arch"] in LLAMA_FAMILY + ISSUE33:
            ids[0] = special["bos"]
        elif case["arch"] == "gpt2":
            if length == "full":
                ids[0] = special["bos"]
        else:
            first, last = ("bos", "eos") if case["arch"] == "roberta" else ("cls", "sep")
            ids[0] = special[first]
            if n > 1:
                ids[-1] = special[last]
        if case.get("pad_in") == k:
            ids[n // 2] = special["pad"]
        inputs.append(ids)
    return inputs


def write_weights(case, folder, tensors):
    """model.safetensors, or HF-style shards plus index; returns the weight file names."""
    metadata = {"format": "pt"}
    if case.get("shards"):
        return st_io.save_sharded(tensors, folder, case["shards"], metadata)
    st_io.save_file(tensors, os.path.join(folder, "model.safetensors"), metadata)
    return ["model.safetensors"]


def write_case(case, root, seed):
    """Write one checkpoint folder and return its manifest entry."""
    folder = os.path.join(root, case["case"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    vocab_size, special = write_tokenizer(case, folder)
    config = hf_layouts.CONFIG_WRITERS[case["arch"]](case, vocab_size, special)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True) + "\n")
    weights = hf_layouts.WEIGHT_MAKERS[case["arch"]](dict(case, seed=seed), vocab_size, config)
    files = write_weights(case, folder, hf_layouts.cast_for_storage(weights, case["dtype"]))
    inputs = make_inputs(case, vocab_size, special,
                         np.random.RandomState(case.get("input_seed", seed + 1)))
    entry = {
        "case": case["case"],
        "model_type": config["model_type"],
        "architecture": case["arch_class"],
        "dtype": case["dtype"],
        "sharded": bool(case.get("shards")),
        "weight_files": files,
        "num_layers": case["layers"],
        "num_heads": case["heads"],
        "hidden": case["hidden"],
        "head_dim": case.get("head_dim", case["hidden"] // case["heads"]),
        "num_kv_heads": case.get("kv_heads", case["heads"]),
        "vocab_size": vocab_size,
        "max_positions": case["max_pos"],
        "default_mask": "causal" if case["arch"] in ("gpt2",) + LLAMA_FAMILY + ISSUE33
        else "none",
        "inputs": inputs,
        "references": [f"reference_{k}.safetensors" for k in range(len(inputs))],
    }
    if case["arch"] in hf_layouts.FEATURE_WRITERS:
        entry["features"] = hf_layouts.FEATURE_WRITERS[case["arch"]](case, config)
    if case.get("whatifs"):
        entry["whatifs"] = whatif_entries(case)
    return entry


def whatif_entries(case):
    """The manifest's "whatifs" of a case: [{"tag", "file": "whatif_<tag>.safetensors", "input",
    "qk_norm": "model" | "off" | "unit", "softcap": "model" | null | number,
    "scale": null | number}] in the case's order."""
    if case["arch"] not in ISSUE33:
        raise ValueError(f"{case['case']}: what-ifs need an issue-33 architecture")
    out, tags = [], set()
    for item in case["whatifs"]:
        unknown = set(item) - set(WHATIF_DEFAULTS) - {"tag"}
        if unknown or item["tag"] in tags:
            raise ValueError(f"{case['case']}: bad what-if {item}")
        tags.add(item["tag"])
        knobs = dict(WHATIF_DEFAULTS, **{k: v for k, v in item.items() if k != "tag"})
        out.append(dict(tag=item["tag"], file=f"whatif_{item['tag']}.safetensors",
                        input=WHATIF_INPUT, **knobs))
    return out


def write_all(out_dir, selected=None):
    """Write every (or each selected) case and the manifest; returns the manifest list."""
    root = os.path.join(out_dir, "checkpoints")
    os.makedirs(root, exist_ok=True)
    manifest = []
    for i, case in enumerate(CASES):
        if selected and case["case"] not in selected:
            continue
        manifest.append(write_case(case, root, BASE_SEED + 100 * i))
    return reference_main.write_manifest(root, manifest)


def main():
    reference_main.checkpoints_main(__doc__, "checkpoints", "checkpoints",
                                    lambda args: write_all(args.out, args.case),
                                    "torch_reference")


if __name__ == "__main__":
    main()
