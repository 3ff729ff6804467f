"""Write the circuits model's tokenizer files: the default model's uncased WordPiece vocabulary
(resources/default_model/vocab.txt, trained by packaging/default_model/build_tokenizer.py),
written by the default recipe's wordpiece.write_files and then made a causal LM's:

* tokenizer.json's post-processor adds [CLS] in front only (TemplateProcessing "[CLS] $A"):
  [CLS] is this model's beginning-of-sequence token, as every training sequence starts with
  it, and there is no trailing [SEP], which would otherwise be the last token of every prompt
  and the position a causal LM predicts the continuation from;
* tokenizer_config.json names [CLS] the bos_token and [SEP] (which ends each training
  document) the eos_token, and the generic PreTrainedTokenizerFast as the class, which takes
  tokenizer.json as it is (BertTokenizer's slow Python version would add [SEP] again).

Usage: tokenizer_files.py VOCAB_TXT OUT_DIR [MAX_POSITIONS]
"""

import json
import sys

import default_recipe  # noqa: F401  (puts the default recipe's folder on sys.path)
import wordpiece as wp


def write(vocab_txt, out_dir, max_positions=128):
    with open(vocab_txt, encoding="utf-8") as f:
        vocab = [line.rstrip("\n") for line in f]
    wp.write_files(vocab, out_dir, max_positions)
    path = f"{out_dir}/tokenizer.json"
    with open(path, encoding="utf-8") as f:
        tok = json.load(f)
    cls = wp.SPECIALS[wp.CLS]
    tok["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": cls, "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": cls, "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {cls: {"id": cls, "ids": [wp.CLS], "tokens": [cls]}},
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False, indent=2)
        f.write("\n")
    cfg = {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": max_positions,
           "bos_token": cls, "eos_token": wp.SPECIALS[wp.SEP], "unk_token": "[UNK]",
           "pad_token": "[PAD]", "cls_token": cls, "sep_token": wp.SPECIALS[wp.SEP],
           "mask_token": "[MASK]", "clean_up_tokenization_spaces": True}
    with open(f"{out_dir}/tokenizer_config.json", "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    write(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 128)
