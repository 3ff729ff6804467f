"""Writes a BERT-base-sized random-weight checkpoint (12 layers x 12 heads, 768 wide, FFN 3072,
the real bert-base-uncased vocabulary from ../shared) for the interactive benchmarks.

Weights are random, so only timings mean anything. Reuses the layouts of the reference
generator so the file is exactly what Hugging Face writes for BertForMaskedLM.
"""
import argparse
import json
import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "reference"))
import hf_layouts  # noqa: E402
import st_io  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder to write the checkpoint into")
    parser.add_argument("--shared", required=True, help="the ../shared data folder")
    args = parser.parse_args()
    vocab = pathlib.Path(args.shared) / "data/tokenizers/bert-base-uncased/vocab.txt"
    if not vocab.exists():
        sys.exit(f"make_bench_model: {vocab} not found; the benchmark needs the real vocabulary")
    out = pathlib.Path(args.out)
    if (out / "model.safetensors").exists():
        return
    out.mkdir(parents=True, exist_ok=True)
    c = {"hidden": 768, "ffn": 3072, "layers": 12, "heads": 12, "act": "gelu", "max_pos": 512,
         "dtype": "F16", "arch_class": "BertForMaskedLM", "seed": 1234}
    vocab_size = sum(1 for _ in vocab.open(encoding="utf-8"))
    config = hf_layouts.bert_config(c, vocab_size, {"pad": 0})
    tensors = hf_layouts.cast_for_storage(hf_layouts.bert_weights(c, vocab_size, config), "F16")
    st_io.save_file(tensors, out / "model.safetensors", {"format": "pt"})
    (out / "config.json").write_text(json.dumps(config, indent=2))
    shutil.copy(vocab, out / "vocab.txt")
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}))


if __name__ == "__main__":
    main()
