"""Tokenizer files for the generated checkpoints (split out of make_checkpoints.py for size).

The C++ CLI needs real tokenizer files beside each checkpoint, and there is no network to fetch
bert-base-uncased's vocab.txt or GPT-2's vocab.json/merges.txt. So we build small ones in the same
formats: a WordPiece vocab.txt for BERT/DistilBERT, and a byte-level BPE vocab.json + merges.txt
learned by a tiny trainer over a paragraph written here, for GPT-2/RoBERTa.
"""

import collections
import json
import os
import re

# Written for this project; long enough that BPE learns a few hundred merges from it.
PARAGRAPH = (
    "An attention head looks at every token of a sentence and decides how much each other token "
    "matters to it. When we draw the weights of all the heads at once, patterns jump out: some "
    "heads attend to the previous word, some to the next one, and many spend most of their "
    "attention on the separator token, as if they had nothing better to do. Researchers have "
    "found heads that follow syntax, linking verbs to their objects and nouns to their "
    "determiners, while other heads track coreference across a whole paragraph. It's tempting "
    "to read too much into one picture, so we compare the entropy of each head, measure how far "
    "apart two heads are, and check that the numbers we show match PyTorch to five decimal "
    "places. We'll test short sentences and long ones, numbers like 2019 and 12345, and words "
    "that the tokenizer must split into several pieces. The weights in these models are random, "
    "but the shapes, names and formats are exactly those of the real checkpoints, which is what "
    "the loader has to get right before anything else can be trusted."
)

# GPT-2's pre-tokenizer with \p{L} / \p{N} narrowed to ASCII: Python's `re` lacks \p{..}, and
# the paragraph above is pure ASCII, so the split is identical.
_GPT2_SPLIT = re.compile(
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+"""
)


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable character table, in GPT-2's vocabulary order."""
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("\u00a1"), ord("\u00ac") + 1))
        + list(range(ord("\u00ae"), ord("\u00ff") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


def _pair_counts(words):
    """Frequency of each adjacent symbol pair over the (word -> count) corpus."""
    counts = collections.Counter()
    for symbols, freq in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += freq
    return counts


def _merge_word(symbols, pair):
    """Apply one merge to a word's symbol tuple, left to right."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def train_bpe(text, num_merges):
    """Learn up to num_merges merges, most frequent pair first, ties broken by the pair itself.

    A pair whose merged string is already a token is skipped so every merge adds exactly one
    vocabulary entry (vocab size = 256 + merges, as in GPT-2).
    """
    table = dict(bytes_to_unicode())
    words = collections.Counter(
        tuple(table[b] for b in piece.encode("utf-8")) for piece in _GPT2_SPLIT.findall(text)
    )
    known = set(table.values())
    merges = []
    while len(merges) < num_merges:
        counts = _pair_counts(words)
        candidates = [(-c, p) for p, c in counts.items() if p[0] + p[1] not in known]
        if not candidates:
            break
        _, best = min(candidates)
        merges.append(best)
        known.add(best[0] + best[1])
        words = collections.Counter({_merge_word(w, best): f for w, f in words.items()})
    return merges


def write_bpe_files(folder, flavor, max_length, num_merges=300):
    """Write vocab.json, merges.txt and tokenizer_config.json; return the special-token ids.

    flavor "gpt2": byte symbols, merges, then <|endoftext|> last (as GPT-2).
    flavor "roberta": <s> <pad> </s> <unk> first, then bytes and merges, <mask> last.
    """
    merges = train_bpe(PARAGRAPH, num_merges)
    tokens = ["<s>", "<pad>", "</s>", "<unk>"] if flavor == "roberta" else []
    tokens += [c for _, c in bytes_to_unicode()] + [a + b for a, b in merges]
    tokens.append("<mask>" if flavor == "roberta" else "<|endoftext|>")
    vocab = {t: i for i, t in enumerate(tokens)}
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        if flavor == "gpt2":  # the original GPT-2 file: compact, non-ASCII escaped as \uXXXX
            json.dump(vocab, f, ensure_ascii=True)
        else:  # newer save_vocabulary style: indented, sorted keys, raw UTF-8
            f.write(json.dumps(vocab, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        f.writelines(f"{a} {b}\n" for a, b in merges)
    if flavor == "roberta":
        special = {"bos": 0, "pad": 1, "eos": 2, "unk": 3, "mask": len(tokens) - 1}
        config = {"tokenizer_class": "RobertaTokenizer", "bos_token": "<s>", "eos_token": "</s>",
                  "unk_token": "<unk>", "sep_token": "</s>", "cls_token": "<s>",
                  "pad_token": "<pad>", "mask_token": "<mask>", "add_prefix_space": False,
                  "errors": "replace", "trim_offsets": True}
    else:
        eos = len(tokens) - 1
        special = {"bos": eos, "eos": eos, "unk": eos}
        config = {"tokenizer_class": "GPT2Tokenizer", "bos_token": "<|endoftext|>",
                  "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
                  "add_prefix_space": False, "errors": "replace"}
    _write_tokenizer_config(folder, config, max_length)
    return len(tokens), special


# About two hundred frequent English words; enough that ordinary sentences tokenize into whole
# words, while rarer words exercise the ## continuation pieces.
COMMON_WORDS = """
the of and to in is was he for it with as his on be at by had are but from or have an they which
one you were her all she there would their we him been has when who will more no if out so said
what up its about into than them can only other new some could time these two may then do first
any my now such like our over man me even most made after also did many before must through back
years where much your way well down should because each just those people how too little state
good very make world still own see men work long get here between both life being under never day
same another know while last might us great old year off come since against go came right used
take three word words sentence token tokens head heads attention model layer weight weights look
show number numbers picture test short split piece pieces part real random shape shapes name
names format loader trust right left next previous separator verb verbs noun nouns object
""".split()
WORD_SUFFIXES = ["s", "es", "ed", "ing", "er", "est", "ly", "ion", "tion", "ness", "ment",
                 "able", "ful", "less", "ize", "al", "ity"]


def _punctuation():
    """Every ASCII character BERT's basic tokenizer splits off as punctuation."""
    ranges = [(33, 47), (58, 64), (91, 96), (123, 126)]
    return [chr(c) for lo, hi in ranges for c in range(lo, hi + 1)]


def wordpiece_tokens(layout):
    """vocab.txt lines. layout "bert": [PAD]=0, [unused0..98], [UNK]=100, [CLS]=101, [SEP]=102,
    [MASK]=103 as in bert-base-uncased; layout "compact": the five specials at ids 0-4."""
    if layout == "bert":
        tokens = ["[PAD]"] + [f"[unused{i}]" for i in range(99)]
        tokens += ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    else:
        tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    digits = [str(d) for d in range(10)]
    body = _punctuation() + digits + letters + COMMON_WORDS
    body += ["##" + c for c in letters + digits] + ["##" + s for s in WORD_SUFFIXES]
    for t in body:
        if t not in tokens:
            tokens.append(t)
    return tokens


def write_wordpiece_files(folder, layout, tokenizer_class, max_length):
    """Write vocab.txt and tokenizer_config.json; return (vocab size, special-token ids)."""
    tokens = wordpiece_tokens(layout)
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.writelines(t + "\n" for t in tokens)
    ids = {t: i for i, t in enumerate(tokens)}
    special = {"pad": ids["[PAD]"], "unk": ids["[UNK]"], "cls": ids["[CLS]"],
               "sep": ids["[SEP]"], "mask": ids["[MASK]"]}
    _write_tokenizer_config(folder, {
        "tokenizer_class": tokenizer_class, "do_lower_case": True, "strip_accents": None,
        "tokenize_chinese_chars": True, "unk_token": "[UNK]", "sep_token": "[SEP]",
        "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]",
    }, max_length)
    return len(tokens), special


def _write_tokenizer_config(folder, config, max_length):
    """tokenizer_config.json as save_pretrained writes it (indent 2, sorted keys)."""
    config = dict(config, model_max_length=max_length, clean_up_tokenization_spaces=False)
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
