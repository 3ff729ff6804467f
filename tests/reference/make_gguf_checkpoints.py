#!/usr/bin/python3
"""Write the GGUF test models (issue 32) and the reference outputs they are checked against.

Usage: make_gguf_checkpoints.py --out DIR [--case NAME ...] [--no-reference]

Writes DIR/gguf/<case>.gguf for every case, DIR/gguf/manifest.json, and:
  * converted cases (CONVERTED): F32 / BF16 conversions, as llama.cpp's convert_hf_to_gguf.py
    makes them (hf_to_gguf.py; GPT-2 and BERT: hf_to_gguf_classic.py), of Hugging Face
    checkpoints that make_checkpoints.py already wrote to DIR/checkpoints/ (the `checkpoints`
    fixture); same weights, so their references are that folder's reference_<k>.safetensors
    (a BERT file has no masked-LM head: the converter drops it, so its lm_logits do not apply).
  * quantized cases (QUANTIZED): their own random weights, quantized (ggml_blocks.quantize) to
    the types a case names, and beside each file DIR/gguf/<case>_dequantized/, a Hugging Face
    folder (config.json, F32 model.safetensors, tokenizer files) holding the weights exactly as
    ggml dequantizes them, un-permuted back to Hugging Face order, with reference_<k>.safetensors
    from torch_reference.run_case on that folder.
Every file is read back (gguf_checks.verify_gguf) and must give its folder's tensors exactly.

manifest.json: a list, one entry per case:
  {"case", "gguf": "<case>.gguf", "hf_folder": folder with the same weights, relative to
   DIR/gguf, "references": [reference_<k>.safetensors paths relative to DIR/gguf], "inputs":
   [[token ids], ...] (reference k is input k), "architecture": "llama" | "qwen2" | "gpt2" |
   "bert", "tensor_types": {ggml type name: tensor count}, "permuted_qk": bool,
   "lm_head": whether the GGUF predicts tokens (false for BERT)}
"""

import argparse
import json
import os
import shutil
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggml_blocks  # noqa: E402
import gguf_checks  # noqa: E402
import gguf_file  # noqa: E402
import hf_layouts  # noqa: E402
import hf_to_gguf  # noqa: E402
import hf_to_gguf_classic  # noqa: E402
import make_checkpoints  # noqa: E402
import st_io  # noqa: E402
import tokenizer_files  # noqa: E402

# make_checkpoints cases converted as they are (2-D matrices in the checkpoint's dtype): GQA 1,
# 2, 4, biases, linear and llama3 rope scaling, explicit head_dim, partial rotary, tied heads;
# GPT-2 with an explicit lm_head and old mask buffers (F32) and sharded, tied (BF16); BERT from
# BertForMaskedLM (F32) and BertForPreTraining (BF16: pooler, NSP head, position_ids). Not
# converted: gpt2_noprefix_f16 (n_inner, which GPT2Model's converter ignores) and
# bert_noprefix_f16 (relu, which llama.cpp's BERT cannot run).
CONVERTED = ["llama_f32", "llama_gqa2_headdim_bf16", "llama3_gqa4_f32", "qwen2_gqa2_bf16",
             "gpt2_f32", "gpt2_sharded_bf16", "bert_f32", "bert_bf16"]

# Quantized cases: every matrix row a multiple of 256 (the K-quant block), tiny vocabulary,
# two short inputs. `types` picks each 2-D tensor's ggml type (1-D tensors are always F32).
LLAMA3_SCALING = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                  "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
# One matrix of each ggml type across llama_every_type (untied: token_embd and output too).
EVERY_TYPE = {
    "token_embd": "Q3_K", "output": "Q5_0",
    "blk.0.attn_q": "Q4_0", "blk.0.attn_k": "Q4_1", "blk.0.attn_v": "Q5_1",
    "blk.0.attn_output": "Q8_0", "blk.0.ffn_gate": "Q2_K", "blk.0.ffn_up": "Q4_K",
    "blk.0.ffn_down": "Q5_K",
    "blk.1.attn_q": "Q6_K", "blk.1.attn_k": "F16", "blk.1.attn_v": "BF16",
    "blk.1.attn_output": "F32", "blk.1.ffn_gate": "Q8_0", "blk.1.ffn_up": "Q4_0",
    "blk.1.ffn_down": "Q2_K",
}
COMMON = dict(dtype="F32", layers=2, hidden=256, ffn=512, max_pos=64, lengths=[5, 12],
              tied=False)
QUANTIZED = [
    # GQA 4, head size 32 != 256 / 16, llama3 rope scaling (rope_freqs), every matrix Q8_0.
    dict(COMMON, case="llama_q8_0", arch="llama", arch_class="LlamaForCausalLM", heads=16,
         kv_heads=4, head_dim=32, rope_theta=500000.0, rope_scaling=LLAMA3_SCALING,
         add_bos_token=True, types="Q8_0", file_type="MOSTLY_Q8_0"),
    # Qwen2: q/k/v biases, NEOX rotary (no permutation), Q4_K_M's mix plus one F16 matrix (as
    # `llama-quantize --tensor-type "blk\.1\.ffn_gate=f16"` would leave it).
    dict(COMMON, case="qwen2_q4_k_m", arch="qwen2", arch_class="Qwen2ForCausalLM", heads=8,
         kv_heads=4, rope_theta=1000000.0, types="Q4_K_M",
         overrides={"blk.1.ffn_gate": "F16"}, file_type="MOSTLY_Q4_K_M"),
    # llama_q8_0's weights again, every matrix Q4_K: the pair attnscope-cli compare-models is
    # checked on (how far each head moves from Q8_0 to Q4_K).
    dict(COMMON, case="llama_q4_k", same_weights_as="llama_q8_0", arch="llama",
         arch_class="LlamaForCausalLM", heads=16, kv_heads=4, head_dim=32, rope_theta=500000.0,
         rope_scaling=LLAMA3_SCALING, add_bos_token=True, types="Q4_K",
         file_type="MOSTLY_Q4_K_S"),
    # Every readable type at least once; file_type names a base type, as llama-quantize writes
    # it when --tensor-type overrides make the mix.
    dict(COMMON, case="llama_every_type", arch="llama", arch_class="LlamaForCausalLM", heads=8,
         kv_heads=2, add_bos_token=False, types=EVERY_TYPE, file_type="MOSTLY_Q4_0"),
]
BASE_SEED = 20240932
TINY_MERGES = 40  # vocabulary: 256 byte symbols + 40 merges + <|endoftext|>
# Width 256 sums far more terms than make_checkpoints' cases, so the reference's own float32 vs
# float64 gap (which torch_reference requires below 1e-6) nears 1e-6 with hf_layouts' query/key
# gain; scaling the q/k weights by this keeps it near a third of that, maps still peaked.
QK_SCALE = 0.6


def q4_k_m_type(stem, n_layers):
    """llama-quant.cpp's choice for LLAMA_FTYPE_MOSTLY_Q4_K_M (untied, non-Falcon, no MoE):
    output Q6_K; attn_v and ffn_down Q6_K in layers where use_more_bits(i, n) holds
    (i < n/8 or i >= 7n/8 or (i - n/8) % 3 == 2, integer division), else Q4_K; the rest Q4_K."""
    role = stem.split(".")[-1]
    if stem == "output":
        return "Q6_K"
    if role in ("attn_v", "ffn_down"):
        i, n = int(stem.split(".")[1]), n_layers
        more = i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2
        return "Q6_K" if more else "Q4_K"
    return "Q4_K"


def quant_type(case, gguf_name, ndim):
    """ggml type of one tensor of a quantized case."""
    if ndim < 2:
        return "F32"
    stem = gguf_name.rsplit(".", 1)[0]
    if stem in case.get("overrides", {}):
        return case["overrides"][stem]
    if isinstance(case["types"], dict):
        return case["types"][stem]
    if case["types"] == "Q4_K_M":
        return q4_k_m_type(stem, case["layers"])
    return case["types"]


def converter_of(config):
    """The module that converts this architecture (same functions, same meaning)."""
    return hf_to_gguf_classic if hf_to_gguf_classic.handles(config) else hf_to_gguf


def write_gguf(path, config, tok_folder, name, file_type, items):
    """One GGUF file: converter metadata, then items = [(gguf name, ne, type, raw bytes)]."""
    writer = gguf_file.GGUFWriter(path)
    converter_of(config).add_model_keys(writer, config, name, file_type)
    converter_of(config).add_tokenizer_keys(writer, tok_folder, config)
    for gguf_name, ne, type_name, raw in items:
        writer.add_tensor(gguf_name, ne, type_name, raw)
    writer.write()


def rope_freqs_item(config):
    """[("rope_freqs.weight", ...)] for llama3 scaling (written first, as the converter's extra
    tensors are), else []."""
    factors = hf_to_gguf.rope_freq_factors(config)
    if factors is None:
        return []
    return [("rope_freqs.weight", [factors.size], "F32", ggml_blocks.quantize("F32", factors))]


def convert_case(root, name, ckpt_entry):
    """Converted case: DIR/checkpoints/<name> -> DIR/gguf/<name>.gguf; returns manifest entry."""
    folder = os.path.join(os.path.dirname(root), "checkpoints", name)
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    arch = hf_to_gguf.gguf_arch(config)
    tensors = st_io.load_checkpoint(folder)
    classic = hf_to_gguf_classic.handles(config)
    items = [] if classic else rope_freqs_item(config)
    for hf_name, gguf_name in converter_of(config).ordered_hf_names(config, tensors):
        t = tensors[hf_name]
        type_name = st_io.dtype_name(t) if t.dim() == 2 else "F32"
        if classic:
            type_name = hf_to_gguf_classic.stored_type(gguf_name, type_name, t.dim())
            values = hf_to_gguf_classic.to_gguf_layout(config, hf_name, t.float().numpy())
        else:
            values = hf_to_gguf.to_gguf_layout(config, arch, gguf_name, t.float().numpy())
        items.append((gguf_name, list(reversed(values.shape)), type_name,
                      ggml_blocks.quantize(type_name, values)))
    dtype = ckpt_entry["dtype"]
    write_gguf(os.path.join(root, name + ".gguf"), config, folder, name,
               hf_to_gguf.FILE_TYPE_OF_DTYPE[dtype], items)
    hf_folder = f"../checkpoints/{name}"
    return manifest_entry(name, hf_folder, [f"{hf_folder}/{r}" for r in ckpt_entry["references"]],
                          ckpt_entry["inputs"], arch)


def manifest_entry(name, hf_folder, references, inputs, arch):
    return {"case": name, "gguf": name + ".gguf", "hf_folder": hf_folder,
            "references": references, "inputs": inputs, "architecture": arch,
            "tensor_types": None, "permuted_qk": hf_to_gguf.permutes_qk(arch),
            "lm_head": arch != "bert"}


def write_hf_config(case, folder, vocab_size, special):
    """config.json as make_checkpoints writes it; add_bos_token (when the case sets it) goes into
    tokenizer_config.json, which the GGUF's tokenizer.ggml.add_bos_token then mirrors."""
    if "add_bos_token" in case:
        path = os.path.join(folder, "tokenizer_config.json")
        with open(path, encoding="utf-8") as f:
            tok_config = json.load(f)
        tok_config["add_bos_token"] = case["add_bos_token"]
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(tok_config, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    config = hf_layouts.CONFIG_WRITERS[case["arch"]](case, vocab_size, special)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True) + "\n")
    return config


def quantize_tensors(case, config, weights):
    """(GGUF items, HF-order dequantized F32 tensors) of a quantized case's random weights."""
    arch = hf_to_gguf.gguf_arch(config)
    items, dequantized = rope_freqs_item(config), {}
    for hf_name, gguf_name in hf_to_gguf.ordered_hf_names(config, weights):
        values = hf_to_gguf.to_gguf_layout(config, arch, gguf_name, weights[hf_name].numpy())
        type_name = quant_type(case, gguf_name, values.ndim)
        raw = ggml_blocks.quantize(type_name, values)
        items.append((gguf_name, list(reversed(values.shape)), type_name, raw))
        back = ggml_blocks.dequantize(type_name, raw, values.size).reshape(values.shape)
        dequantized[hf_name] = torch.from_numpy(
            np.ascontiguousarray(hf_to_gguf.from_gguf_layout(config, arch, gguf_name, back)))
    return items, dequantized


def quantized_case(root, case, seed):
    """Quantized case: DIR/gguf/<case>.gguf and <case>_dequantized/; returns (manifest entry,
    torch_reference manifest entry for the dequantized folder)."""
    name, folder_name = case["case"], case["case"] + "_dequantized"
    folder = os.path.join(root, folder_name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    vocab_size, special = tokenizer_files.write_bpe_files(folder, "gpt2", case["max_pos"],
                                                          num_merges=TINY_MERGES)
    config = write_hf_config(case, folder, vocab_size, special)
    weights = hf_layouts.WEIGHT_MAKERS[case["arch"]](dict(case, seed=seed), vocab_size, config)
    for hf_name in weights:
        if hf_name.endswith(("q_proj.weight", "k_proj.weight")):
            weights[hf_name] = weights[hf_name] * QK_SCALE
    items, dequantized = quantize_tensors(case, config, weights)
    st_io.save_file(dequantized, os.path.join(folder, "model.safetensors"), {"format": "pt"})
    write_gguf(os.path.join(root, name + ".gguf"), config, folder, name,
               hf_to_gguf.FILE_TYPES[case["file_type"]], items)
    inputs = make_checkpoints.make_inputs(case, vocab_size, special,
                                          np.random.RandomState(seed + 1))
    refs = [f"reference_{k}.safetensors" for k in range(len(inputs))]
    entry = manifest_entry(name, folder_name, [f"{folder_name}/{r}" for r in refs], inputs,
                           hf_to_gguf.gguf_arch(config))
    ref_entry = {"case": folder_name, "model_type": config["model_type"],
                 "default_mask": "causal", "inputs": inputs, "references": refs}
    return entry, ref_entry


def load_checkpoints_manifest(out_dir, names):
    """DIR/checkpoints/manifest.json entries of the converted cases (the checkpoints fixture)."""
    path = os.path.join(out_dir, "checkpoints", "manifest.json")
    entries = {}
    if names and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            entries = {e["case"]: e for e in json.load(f)}
    missing = [n for n in names if n not in entries]
    if missing:
        raise SystemExit(f"{path}: no {missing}; run make_checkpoints.py --out {out_dir} first")
    return entries


def write_all(out_dir, selected, reference):
    """Write every (or each selected) case, check it, run the references; returns the manifest."""
    root = os.path.join(out_dir, "gguf")
    os.makedirs(root, exist_ok=True)
    converted = [n for n in CONVERTED if not selected or n in selected]
    quantized = [c for c in QUANTIZED if not selected or c["case"] in selected]
    ckpt = load_checkpoints_manifest(out_dir, converted)
    manifest = [convert_case(root, n, ckpt[n]) for n in converted]
    ref_entries = []
    index = {c["case"]: i for i, c in enumerate(QUANTIZED)}
    for case in quantized:
        # A case with same_weights_as draws that case's weights and inputs (same seed).
        i = index[case.get("same_weights_as", case["case"])]
        entry, ref_entry = quantized_case(root, case, BASE_SEED + 100 * i)
        manifest.append(entry)
        ref_entries.append(ref_entry)
    for entry in manifest:
        entry["tensor_types"] = gguf_checks.verify_gguf(
            os.path.join(root, entry["gguf"]), os.path.join(root, entry["hf_folder"]))
    if reference and ref_entries:
        import torch_reference  # the slow part; optional with --no-reference
        for ref_entry in ref_entries:
            torch_reference.run_case(root, ref_entry)
    with open(os.path.join(root, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="output folder (gets gguf/; reads "
                        "checkpoints/ for the converted cases)")
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip torch_reference on the dequantized folders")
    args = parser.parse_args()
    known = CONVERTED + [c["case"] for c in QUANTIZED]
    unknown = sorted(set(args.case or []) - set(known))
    if unknown:
        parser.error(f"unknown case(s) {unknown}; known: {known}")
    start = time.monotonic()
    try:
        manifest = write_all(args.out, args.case, not args.no_reference)
    except gguf_checks.CheckFailed as e:
        sys.exit(f"make_gguf_checkpoints: read-back check failed: {e}")
    print(f"wrote {len(manifest)} GGUF cases in {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
