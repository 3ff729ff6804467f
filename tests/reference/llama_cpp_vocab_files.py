"""llama.cpp's own vocabulary GGUFs for the checks ../shared cannot hold, in the build tree.

../shared has llama.cpp's .inp/.out test files for Llama 3 (llama-bpe) and Qwen (qwen2) but not
their ggml-vocab-*.gguf (over 4 MiB). node-llama-cpp, the llama.cpp peer installed into the
build tree from npm (tests/peer/llama_cpp), ships the llama.cpp source it builds from as a git
bundle (node_modules/node-llama-cpp/llama/gitRelease.bundle) whose models/ folder has both files,
as llama.cpp's convert_hf_to_gguf_update.py wrote them. This script takes them out of the bundle
and writes, from the qwen2 one, the vocabulary of a Qwen2.5-Instruct GGUF (see qwen25_vocab).

    llama_cpp_vocab_files.py --bundle gitRelease.bundle --out-dir DIR
                             [--qwen25-config Qwen2.5-Instruct/tokenizer_config.json]

writes into DIR:
    ggml-vocab-qwen2.gguf, ggml-vocab-llama-bpe.gguf   the bundle's files, byte for byte
    bundle-commit.txt                                  the bundle's commit (files up to date)
    qwen2.5-instruct-vocab.gguf                        only with --qwen25-config (and the file)
Each output is rewritten only when out of date, so a second run takes well under a second.
Exit 0 done; 77 (CTest's SKIP_RETURN_CODE), one line on stderr, when the bundle or git is
missing; 1 on any other failure.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_file import GGUFWriter, read_gguf  # noqa: E402

VOCABS = ("qwen2", "llama-bpe")
QWEN25_FILE = "qwen2.5-instruct-vocab.gguf"

# gguf-py's TokenType values.
NORMAL, CONTROL, USER_DEFINED, UNUSED = 1, 3, 4, 5
# Qwen1.5, Qwen2 and Qwen2.5 share the 151643 byte-level tokens and their merges; the tokens
# from here on are the added ones, which differ between releases.
QWEN_BASE_TOKENS = 151643
# config.json vocab_size of Qwen2.5-0.5B..7B(-Instruct); the converter pads the tokens to it
# (14B and larger have 152064).
QWEN25_VOCAB_SIZE = 151936
# config.json bos_token_id of every Qwen2.5 model (tokenizer_config.json has bos_token null).
QWEN25_BOS_ID = 151643


def skip(reason):
    print(f"llama_cpp_vocab_files: {reason}; the checks on these files will be skipped",
          file=sys.stderr)
    sys.exit(77)


def git(*args, **kwargs):
    return subprocess.run(["git", *args], check=True, capture_output=True, **kwargs).stdout


def bundle_commit(bundle):
    """The commit the bundle's HEAD names (`git bundle list-heads`: "<sha> HEAD")."""
    for line in git("bundle", "list-heads", bundle).decode().splitlines():
        sha, _, ref = line.partition(" ")
        if ref == "HEAD":
            return sha
    raise RuntimeError(f"{bundle}: no HEAD in the bundle")


def extract_vocabs(bundle, out_dir):
    """Copies models/ggml-vocab-<name>.gguf of VOCABS out of the bundle, unless bundle-commit.txt
    already names the bundle's commit and every file is there."""
    commit = bundle_commit(bundle)
    stamp = os.path.join(out_dir, "bundle-commit.txt")
    targets = {name: os.path.join(out_dir, f"ggml-vocab-{name}.gguf") for name in VOCABS}
    if os.path.exists(stamp) and all(map(os.path.exists, targets.values())):
        with open(stamp, encoding="utf-8") as f:
            if f.read().strip() == commit:
                return
    scratch = tempfile.mkdtemp(prefix="unbundle-", dir=out_dir)
    try:
        git("init", "--quiet", "--bare", scratch)
        git("-C", scratch, "bundle", "unbundle", os.path.abspath(bundle))
        for name, target in targets.items():
            data = git("-C", scratch, "cat-file", "blob", f"{commit}:models/ggml-vocab-{name}.gguf")
            with open(target + ".part", "wb") as f:
                f.write(data)
            os.replace(target + ".part", target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    with open(stamp, "w", encoding="utf-8") as f:
        f.write(commit + "\n")


def looks_special(text):
    """The converter's does_token_look_special, for what Qwen's added tokens can be."""
    return text.startswith("<|") and text.endswith("|>")


def qwen25_added_tokens(tok_config):
    """{id: (text, token type)} of tokenizer_config.json's added_tokens_decoder, typed as
    convert_hf_to_gguf's get_vocab_base types added tokens: control when flagged special or
    shaped <|...|>, user-defined otherwise (<tool_call>, </tool_call>)."""
    out = {}
    for key, entry in tok_config["added_tokens_decoder"].items():
        text = entry["content"]
        out[int(key)] = (text, CONTROL if entry.get("special") or looks_special(text)
                         else USER_DEFINED)
    return out


def qwen25_vocab(base_path, config_path, out_path):
    """A vocabulary-only GGUF laid out as convert_hf_to_gguf.py writes a Qwen2.5-Instruct model's
    (Qwen2Model -> _set_vocab_gpt2, SpecialVocab): the shared base tokens and merges from
    llama.cpp's Qwen1.5 file, the added tokens of Qwen2.5's tokenizer_config.json, "[PAD<id>]"
    (unused) up to vocab_size, and Qwen2.5's special ids. pre stays "qwen2": the converter
    finds it by hashing the ids of a probe text, which Qwen2.5 tokenizes as Qwen1.5 does."""
    meta, _ = read_gguf(base_path)
    if meta["tokenizer.ggml.pre"] != "qwen2":
        raise RuntimeError(f"{base_path}: pre is {meta['tokenizer.ggml.pre']!r}, not 'qwen2'")
    tokens = list(meta["tokenizer.ggml.tokens"][:QWEN_BASE_TOKENS])
    types = list(meta["tokenizer.ggml.token_type"][:QWEN_BASE_TOKENS])
    if set(types) != {NORMAL}:
        raise RuntimeError(f"{base_path}: the first {QWEN_BASE_TOKENS} tokens are not all normal")
    with open(config_path, encoding="utf-8") as f:
        tok_config = json.load(f)
    added = qwen25_added_tokens(tok_config)
    # Qwen1.5's own added tokens keep their ids in Qwen2.5: the two files agree on them.
    for i in range(QWEN_BASE_TOKENS, len(meta["tokenizer.ggml.tokens"])):
        old = meta["tokenizer.ggml.tokens"][i]
        if not old.startswith("[PAD") and added.get(i, (None,))[0] != old:
            raise RuntimeError(f"token {i}: {old!r} in {base_path}, {added.get(i)} in Qwen2.5")
    for i in range(QWEN_BASE_TOKENS, QWEN25_VOCAB_SIZE):
        text, kind = added.get(i, (f"[PAD{i}]", UNUSED))
        tokens.append(text)
        types.append(kind)
    by_text = {t: i for i, t in enumerate(tokens)}
    w = GGUFWriter(out_path + ".part")
    w.add("general.architecture", "qwen2", "string")
    w.add("general.name", "Qwen2.5-Instruct vocabulary", "string")
    w.add("tokenizer.ggml.model", "gpt2", "string")
    w.add("tokenizer.ggml.pre", "qwen2", "string")
    w.add("tokenizer.ggml.tokens", tokens, "array", elem_type="string")
    w.add("tokenizer.ggml.token_type", types, "array", elem_type="i32")
    w.add("tokenizer.ggml.merges", meta["tokenizer.ggml.merges"], "array", elem_type="string")
    w.add("tokenizer.ggml.eos_token_id", by_text[tok_config["eos_token"]], "u32")
    w.add("tokenizer.ggml.padding_token_id", by_text[tok_config["pad_token"]], "u32")
    w.add("tokenizer.ggml.bos_token_id", QWEN25_BOS_ID, "u32")
    w.add("tokenizer.ggml.add_bos_token", bool(tok_config["add_bos_token"]), "bool")
    w.write()
    os.replace(out_path + ".part", out_path)


def up_to_date(target, sources):
    return os.path.exists(target) and all(
        os.path.getmtime(target) >= os.path.getmtime(s) for s in sources)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundle", required=True, help="node-llama-cpp's llama/gitRelease.bundle")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--qwen25-config", help="Qwen2.5-Instruct's tokenizer_config.json")
    args = ap.parse_args()
    if not os.path.isfile(args.bundle):
        skip(f"{args.bundle} not found (is the llama.cpp peer installed?)")
    if shutil.which("git") is None:
        skip("git not found")
    os.makedirs(args.out_dir, exist_ok=True)
    extract_vocabs(args.bundle, args.out_dir)
    if args.qwen25_config and os.path.isfile(args.qwen25_config):
        base = os.path.join(args.out_dir, "ggml-vocab-qwen2.gguf")
        target = os.path.join(args.out_dir, QWEN25_FILE)
        if not up_to_date(target, [base, args.qwen25_config, os.path.abspath(__file__)]):
            qwen25_vocab(base, args.qwen25_config, target)
    elif args.qwen25_config:
        print(f"llama_cpp_vocab_files: {args.qwen25_config} not found; no {QWEN25_FILE}",
              file=sys.stderr)
    print(f"llama_cpp_vocab_files: {args.out_dir} is up to date")


if __name__ == "__main__":
    main()
