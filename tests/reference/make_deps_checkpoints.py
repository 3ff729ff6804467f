"""Writes two small random-weight checkpoints with REAL vocabularies (bert-base-uncased's
WordPiece and GPT-2's byte-level BPE, from ../shared) for the dependency-scoring tests: real
treebank sentences then tokenize as they would for the real models (words split into several
pieces, contractions, punctuation), so word alignment is exercised on real data.

DIR/deps/bert_wordpiece and DIR/deps/gpt2_bytelevel; exits 0 without writing when the shared
folder is absent (the tests that use them skip).
"""
import argparse
import json
import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hf_layouts  # noqa: E402
import st_io  # noqa: E402


def write(folder, config, tensors, files):
    folder.mkdir(parents=True, exist_ok=True)
    st_io.save_file(hf_layouts.cast_for_storage(tensors, "F32"), folder / "model.safetensors",
                    {"format": "pt"})
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    for f in files:
        shutil.copyfile(f, folder / f.name)  # not copy(): shared files are read-only


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--shared", required=True)
    args = parser.parse_args()
    tok = pathlib.Path(args.shared) / "data" / "tokenizers"
    if not tok.exists():
        print(f"make_deps_checkpoints: {tok} not found; nothing written")
        return
    out = pathlib.Path(args.out) / "deps"
    vocab = tok / "bert-base-uncased" / "vocab.txt"
    n_vocab = sum(1 for _ in vocab.open(encoding="utf-8"))
    c = {"hidden": 32, "ffn": 64, "layers": 2, "heads": 4, "act": "gelu", "max_pos": 512,
         "dtype": "F32", "arch_class": "BertForMaskedLM", "seed": 77}
    config = hf_layouts.bert_config(c, n_vocab, {"pad": 0})
    write(out / "bert_wordpiece", config, hf_layouts.bert_weights(c, n_vocab, config), [vocab])
    (out / "bert_wordpiece" / "tokenizer_config.json").write_text('{"do_lower_case": true}')
    gpt2 = tok / "gpt2"
    n_vocab = len(json.loads((gpt2 / "vocab.json").read_text(encoding="utf-8")))
    c = {"hidden": 32, "ffn": 64, "layers": 2, "heads": 4, "act": "gelu_new", "max_pos": 1024,
         "dtype": "F32", "arch_class": "GPT2LMHeadModel", "seed": 78}
    config = hf_layouts.gpt2_config(c, n_vocab, {"bos": 50256, "eos": 50256})
    write(out / "gpt2_bytelevel", config, hf_layouts.gpt2_weights(c, n_vocab, config),
          [gpt2 / "vocab.json", gpt2 / "merges.txt"])


if __name__ == "__main__":
    main()
