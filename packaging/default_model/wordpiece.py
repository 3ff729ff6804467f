"""BERT-uncased WordPiece tokenizer: normalisation, pre-tokenisation, training and the HF files.

Hand-written because Debian 12 packages no Python `tokenizers`/`transformers` and the recipe may
not use PyPI. The rules copy Hugging Face `tokenizers` (normalizers/bert.rs,
pre_tokenizers/bert.rs, models/wordpiece) so that any HF-compatible loader, AttnScope included,
produces the same ids:

* BertNormalizer: drop NUL, U+FFFD and "other" characters (Cc Cf Cs Co Cn) except \\t \\n \\r;
  turn whitespace into a space; put spaces around CJK ideographs; NFD and drop non-spacing marks
  (strip_accents); lowercase character by character (no context rule for final sigma, as in Rust).
* BertPreTokenizer: split on whitespace, and isolate every punctuation character (ASCII
  punctuation or Unicode category P*).
* WordPiece: greedy longest-match-first with the "##" continuation prefix; a word longer than
  100 characters, or one with an unmatchable remainder, becomes a single [UNK].

Training follows HF's WordPieceTrainer, which is a BPE trainer whose non-initial symbols carry
the "##" prefix: start from characters, repeatedly merge the most frequent adjacent pair
(ties: lexicographically smallest pair, so the result is deterministic), and keep every merged
symbol as a vocabulary entry.
"""

import collections
import heapq
import json
import string
import unicodedata

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # ids 0..4
PAD, UNK, CLS, SEP, MASK = range(5)
PREFIX = "##"
MAX_CHARS_PER_WORD = 100

_CJK = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]
_ASCII_PUNCT = set(string.punctuation)


def _is_whitespace(c):
    return c in "\t\n\r" or c.isspace()


def _is_control(c):
    return c not in "\t\n\r" and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn")


def _is_cjk(c):
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in _CJK)


def _is_punct(c):
    return c in _ASCII_PUNCT or unicodedata.category(c).startswith("P")


def normalize(text):
    out = []
    for c in text:
        if c == "\0" or c == "\ufffd" or _is_control(c):
            continue
        if _is_whitespace(c):
            out.append(" ")
        elif _is_cjk(c):
            out.append(" " + c + " ")
        else:
            out.append(c)
    text = unicodedata.normalize("NFD", "".join(out))
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    return "".join(c.lower() for c in text)


def pre_tokenize(text):
    words, cur = [], []
    for c in text:
        if _is_whitespace(c):
            if cur:
                words.append("".join(cur))
                cur = []
        elif _is_punct(c):
            if cur:
                words.append("".join(cur))
                cur = []
            words.append(c)
        else:
            cur.append(c)
    if cur:
        words.append("".join(cur))
    return words


class WordPiece:
    def __init__(self, vocab):
        self.vocab = list(vocab)
        self.ids = {t: i for i, t in enumerate(self.vocab)}
        self._cache = {}

    @classmethod
    def load(cls, vocab_txt):
        with open(vocab_txt, encoding="utf-8") as f:
            return cls(line.rstrip("\n") for line in f)

    def encode_word(self, word):
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        if len(word) > MAX_CHARS_PER_WORD:
            ids = [UNK]
        else:
            ids, start = [], 0
            while start < len(word):
                end, found = len(word), None
                while start < end:
                    piece = word[start:end] if start == 0 else PREFIX + word[start:end]
                    if piece in self.ids:
                        found = self.ids[piece]
                        break
                    end -= 1
                if found is None:
                    ids = [UNK]
                    break
                ids.append(found)
                start = end
        if len(self._cache) < 2_000_000:
            self._cache[word] = ids
        return ids

    def encode(self, text, special=True):
        ids = [i for w in pre_tokenize(normalize(text)) for i in self.encode_word(w)]
        return [CLS] + ids + [SEP] if special else ids


def train(word_counts, vocab_size, min_char_count=3):
    """BPE-with-## training on {word: count}; returns the vocabulary list (specials first)."""
    char_counts = collections.Counter()
    for w, n in word_counts.items():
        for c in w:
            char_counts[c] += n
    chars = sorted(c for c, n in char_counts.items() if n >= min_char_count)
    keep = set(chars)
    # Every kept character exists both word-initially and as a continuation, so any word made
    # of known characters can always be spelled out.
    alphabet = chars + [PREFIX + c for c in chars]
    vocab = SPECIALS + alphabet
    known = set(vocab)

    words, counts = [], []
    for w, n in sorted(word_counts.items()):
        if len(w) > MAX_CHARS_PER_WORD or not set(w) <= keep:
            continue
        words.append([w[0]] + [PREFIX + c for c in w[1:]])
        counts.append(n)

    pair_counts = collections.Counter()
    where = collections.defaultdict(set)
    for wi, sym in enumerate(words):
        for a, b in zip(sym, sym[1:]):
            pair_counts[(a, b)] += counts[wi]
            where[(a, b)].add(wi)
    heap = [(-n, p) for p, n in pair_counts.items()]
    heapq.heapify(heap)

    while len(vocab) < vocab_size and heap:
        neg, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -neg:
            continue  # stale heap entry; the current count was pushed separately
        if -neg < 2:
            break
        a, b = pair
        merged = a + b[len(PREFIX):]
        if merged not in known:
            vocab.append(merged)
            known.add(merged)
        changed = collections.Counter()
        for wi in sorted(where.pop(pair, ())):
            sym, n = words[wi], counts[wi]
            for x, y in zip(sym, sym[1:]):
                changed[(x, y)] -= n
            out, i = [], 0
            while i < len(sym):
                if i + 1 < len(sym) and sym[i] == a and sym[i + 1] == b:
                    out.append(merged)
                    i += 2
                else:
                    out.append(sym[i])
                    i += 1
            words[wi] = out
            for x, y in zip(out, out[1:]):
                changed[(x, y)] += n
                where[(x, y)].add(wi)
        for p, d in changed.items():
            if d:
                pair_counts[p] += d
                if pair_counts[p] > 0:
                    heapq.heappush(heap, (-pair_counts[p], p))
                else:
                    del pair_counts[p]
        pair_counts.pop(pair, None)
    return vocab


def write_files(vocab, out_dir, max_positions):
    """vocab.txt, tokenizer.json (HF tokenizers format) and tokenizer_config.json."""
    with open(f"{out_dir}/vocab.txt", "w", encoding="utf-8") as f:
        f.write("\n".join(vocab) + "\n")
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, t in enumerate(SPECIALS)]
    special = {t: {"id": t, "ids": [i], "tokens": [t]} for i, t in enumerate(SPECIALS)
               if t in ("[CLS]", "[SEP]")}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": True, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": special,
        },
        "decoder": {"type": "WordPiece", "prefix": PREFIX, "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]",
                  "continuing_subword_prefix": PREFIX,
                  "max_input_chars_per_word": MAX_CHARS_PER_WORD,
                  "vocab": {t: i for i, t in enumerate(vocab)}},
    }
    with open(f"{out_dir}/tokenizer.json", "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False, indent=2)
        f.write("\n")
    cfg = {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "strip_accents": None,
           "tokenize_chinese_chars": True, "model_max_length": max_positions,
           "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
           "cls_token": "[CLS]", "mask_token": "[MASK]", "clean_up_tokenization_spaces": True}
    with open(f"{out_dir}/tokenizer_config.json", "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
