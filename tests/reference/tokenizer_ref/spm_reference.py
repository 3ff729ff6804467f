#!/usr/bin/env python3
"""Reference tokenization for AttnScope's slow SentencePiece tokenizers (slow_spm_tokenizer.h).

transformers is not installed here, so this script redoes what its slow (Python) tokenizers do
(transformers 4.34 to 4.5x: PreTrainedTokenizer.tokenize, MarianTokenizer, AlbertTokenizer,
T5Tokenizer), on top of the `sentencepiece` module they call, for every "# text = " sentence of
the UD treebanks and the stress sentences given with --extra:

  marian   source.spm (or target.spm with --side target) pieces -> ids through vocab.json (<unk>
           for a piece it lacks); a leading ">>xx<<" (language_code_re ">>.+<<") kept whole and
           every match removed; "</s>" appended.
  albert   do_lower_case pass, preprocess_text, spiece.model, the "digit," re-split;
           "[CLS] x [SEP]".
  t5       spiece.model (legacy); <extra_id_N> as added tokens eating the spaces around them;
           "</s>" appended unless the text already ends in it.

Ids come from the real strings (str.lower, unicodedata.normalize over the whole text, re.sub).
The slow tokenizers give no offsets, so offsets follow AttnScope's documented rule: every
character keeps the span of the input characters it came from, SentencePiece's own piece spans
(EncodeAsImmutableProto) are mapped back through that. The character-by-character texts behind
the offsets are checked against the real strings for every sentence; a mismatch stops the script.

Writes OUT_DIR/NAME.jsonl, one {"source", "text", "ids", "offsets"} per sentence, and
OUT_DIR/NAME.meta.json ({"vocab_size", "roles"}). Exit code 77 (CTest's skip) when the shared
data folder is missing.
"""
import argparse
import json
import os
import re
import sys
import unicodedata

SPIECE = "\u2581"
SKIP = 77
LANGUAGE_CODE = re.compile(">>.+<<")


def fail(message):
    print(f"spm_reference: {message}", file=sys.stderr)
    sys.exit(1)


def load_json(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def token_entry(config, key, fallback, lstrip=False):
    """A special token of tokenizer_config.json as (content, lstrip, rstrip, single_word)."""
    value = config.get(key, fallback)
    if isinstance(value, dict):
        return (value["content"], value.get("lstrip", False), value.get("rstrip", False),
                value.get("single_word", False))
    return (value if value is not None else fallback, lstrip, False, False)


class Config:
    """What the tokenizer class's __init__ and PreTrainedTokenizer.__init__ set up."""

    def __init__(self, kind, sp, config, marian_vocab=None):
        self.kind = kind
        self.sp = sp
        self.vocab = marian_vocab
        pieces = marian_vocab if marian_vocab is not None else {
            sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
        self.added = {}  # id -> (content, lstrip, rstrip, single_word)
        specials = []
        if kind == "albert":
            specials = [token_entry(config, k, d) for k, d in (
                ("bos_token", "[CLS]"), ("eos_token", "[SEP]"), ("unk_token", "<unk>"),
                ("sep_token", "[SEP]"), ("pad_token", "<pad>"), ("cls_token", "[CLS]"))]
            specials.append(token_entry(config, "mask_token", "[MASK]", lstrip=True))
        elif kind == "t5":
            extra_ids = config.get("extra_ids", 100)
            additional = config.get("additional_special_tokens")
            sentinels = extra_ids
            if additional is not None:
                names = [a["content"] if isinstance(a, dict) else a for a in additional]
                sentinels = len([n for n in names if "<extra_id_" in n])
                if sentinels == 0:
                    names += [f"<extra_id_{i}>" for i in range(extra_ids)]
            else:
                names = [f"<extra_id_{i}>" for i in range(extra_ids)]
            for i in range(sentinels):
                self.added[sp.get_piece_size() - 1 + extra_ids - i] = (
                    f"<extra_id_{i}>", True, True, False)
            specials = [token_entry(config, k, d) for k, d in (
                ("eos_token", "</s>"), ("unk_token", "<unk>"), ("pad_token", "<pad>"))]
            specials += [(n, False, False, False) for n in names]
        else:
            specials = [token_entry(config, k, d) for k, d in (
                ("eos_token", "</s>"), ("unk_token", "<unk>"), ("pad_token", "<pad>"))]
        for key, item in config.get("added_tokens_decoder", {}).items():
            self.added[int(key)] = (item["content"], item.get("lstrip", False),
                                    item.get("rstrip", False), item.get("single_word", False))
        next_id = len(pieces) + len([a for a in self.added.values() if a[0] not in pieces])
        for entry in specials:
            if any(a[0] == entry[0] for a in self.added.values()):
                continue
            if entry[0] in pieces:
                self.added[pieces[entry[0]]] = entry
            else:
                self.added[next_id] = entry
                next_id += 1
        self.encoder = {a[0]: i for i, a in self.added.items()}
        self.vocab_size = len(pieces) + len([a for a in self.added.values()
                                             if a[0] not in pieces])
        self.unk_token = token_entry(config, "unk_token", "<unk>")[0]
        self.lower = kind == "albert" and config.get("do_lower_case", True)
        self.remove_space = config.get("remove_space", True)
        self.keep_accents = config.get("keep_accents", False)
        self.specials = {name: self.id_of(entry[0]) for name, entry in zip(
            ("eos", "unk", "pad") if kind != "albert" else
            ("bos", "eos", "unk", "sep", "pad", "cls", "mask"), specials)}

    def id_of(self, piece):
        if piece in self.encoder:
            return self.encoder[piece]
        if self.vocab is not None:
            return self.vocab.get(piece, self.vocab[self.unk_token])
        return self.sp.piece_to_id(piece)


# Texts are lists of (character, first, end): the input characters [first, end) it came from.

def text_of(chars):
    return "".join(c for c, _, _ in chars)


def check_same(aligned, real, what, sentence):
    if text_of(aligned) != real:
        fail(f"{what}: the aligned text {text_of(aligned)!r} is not the real {real!r} "
             f"(sentence {sentence!r})")


def split_added(chars, contents):
    """Cuts at the added tokens, the leftmost match first and of those the longest."""
    text = text_of(chars)
    by_first = {}
    for c in contents:
        by_first.setdefault(c[0], []).append(c)
    pieces, start, i = [], 0, 0
    while i < len(text):
        found = max((c for c in by_first.get(text[i], []) if text.startswith(c, i)),
                    key=len, default=None)
        if found is None:
            i += 1
            continue
        if i > start:
            pieces.append([chars[start:i], None])
        pieces.append([chars[i:i + len(found)], found])
        i += len(found)
        start = i
    if start < len(text):
        pieces.append([chars[start:], None])
    return pieces


def lowercase_outside(chars, cfg, sentence):
    """PreTrainedTokenizer.tokenize's do_lower_case pass, with its regex on the real string."""
    specials = sorted({a[0] for a in cfg.added.values()}, key=len, reverse=True)
    pattern = r"(" + r"|".join(re.escape(s) for s in specials) + r")|" + r"(.+?)"
    real = re.sub(pattern, lambda m: m.groups()[0] or m.groups()[1].lower(), text_of(chars))
    out = []
    for part, token in split_added(chars, specials):
        out += part if token else [(c, b, e) for ch, b, e in part for c in ch.lower()]
    check_same(out, real, "lower-casing", sentence)
    return out


def strip_around_added(pieces, cfg):
    for i, (part, token) in enumerate(pieces):
        if token is None:
            continue
        _, lstrip, rstrip, single_word = cfg.added[cfg.encoder[token]]
        left = pieces[i - 1] if i > 0 and pieces[i - 1][0] else None
        right = pieces[i + 1] if i + 1 < len(pieces) and pieces[i + 1][0] else None
        if rstrip and right:
            while right[0] and right[0][0][0].isspace():
                right[0] = right[0][1:]
        if lstrip and left:
            while left[0] and left[0][-1][0].isspace():
                left[0] = left[0][:-1]
        if single_word and left and left[0][-1][0] != " ":
            left[0], left[1], pieces[i][0] = left[0] + part, None, []
        elif single_word and right and right[0][0][0] != " ":
            right[0], right[1], pieces[i][0] = part + right[0], None, []


def albert_preprocess(chars, cfg, sentence):
    real_in = text_of(chars)
    real = " ".join(real_in.strip().split()) if cfg.remove_space else real_in
    real = real.replace("``", '"').replace("''", '"')
    if not cfg.keep_accents:
        real = "".join(c for c in unicodedata.normalize("NFKD", real) if not unicodedata.combining(c))
    if cfg.lower:
        real = real.lower()
    out = chars
    if cfg.remove_space:
        out, run = [], None
        for ch, b, e in chars:
            if ch.isspace():
                run = (" ", run[1] if run else b, e)
                continue
            if run and out:
                out.append(run)
            run = None
            out.append((ch, b, e))
    for quote in ("`", "'"):
        merged, i = [], 0
        while i < len(out):
            if out[i][0] == quote and i + 1 < len(out) and out[i + 1][0] == quote:
                merged.append(('"', out[i][1], out[i + 1][2]))
                i += 2
            else:
                merged.append(out[i])
                i += 1
        out = merged
    if not cfg.keep_accents:
        out = [(c, b, e) for ch, b, e in out for c in unicodedata.normalize("NFKD", ch)
               if not unicodedata.combining(c)]
    if cfg.lower:
        out = [(c, b, e) for ch, b, e in out for c in ch.lower()]
    check_same(out, real, "preprocess_text", sentence)
    return out


def span_of(chars, begin, end):
    if begin >= end:
        at = chars[begin][1] if begin < len(chars) else (chars[-1][2] if chars else 0)
        return (at, at)
    return (chars[begin][1], chars[end - 1][2])


def spm_pieces(chars, cfg):
    """(piece, begin, end) in `chars`, as sp.encode(text, out_type=str) gives the pieces."""
    text = text_of(chars)
    proto = cfg.sp.EncodeAsImmutableProto(text)
    pieces = [(p.piece, p.begin, p.end) for p in proto.pieces]
    if [p[0] for p in pieces] != cfg.sp.encode(text, out_type=str):
        fail(f"EncodeAsImmutableProto and encode disagree on {text!r}")
    return pieces


def albert_resplit(piece, begin, end, cfg):
    """AlbertTokenizer._tokenize's "12," rule; the ',' keeps its own character."""
    if not (len(piece) > 1 and piece[-1] == "," and piece[-2].isdigit()):
        return [(piece, begin, end)]
    parts = cfg.sp.EncodeAsPieces(piece[:-1].replace(SPIECE, ""))
    if piece[0] != SPIECE and parts[0][0] == SPIECE:
        parts = parts[1:] if len(parts[0]) == 1 else [parts[0][1:]] + parts[1:]
    own = end - begin >= 2
    split = end - 1 if own else begin
    return [(p, begin, split if own else end) for p in parts] + [(",", split, end)]


def tokenize_text(chars, cfg, sentence):
    out = []
    if cfg.kind == "marian":
        text = text_of(chars)
        match = LANGUAGE_CODE.match(text)
        if match:
            code = chars[:match.end()]
            out.append((match.group(0), code[0][1], code[-1][2]))
        keep = [True] * len(chars)
        for m in LANGUAGE_CODE.finditer(text):
            keep[m.start():m.end()] = [False] * (m.end() - m.start())
        chars = [c for c, k in zip(chars, keep) if k]
        check_same(chars, LANGUAGE_CODE.sub("", text), "language codes", sentence)
    elif cfg.kind == "albert":
        chars = albert_preprocess(chars, cfg, sentence)
    for piece, begin, end in spm_pieces(chars, cfg):
        parts = albert_resplit(piece, begin, end, cfg) if cfg.kind == "albert" else [
            (piece, begin, end)]
        out += [(p, *span_of(chars, b, e)) for p, b, e in parts]
    return out


def encode(text, cfg):
    chars = [(c, i, i + 1) for i, c in enumerate(text)]
    if cfg.lower:
        chars = lowercase_outside(chars, cfg, text)
    pieces = split_added(chars, list(cfg.encoder))
    strip_around_added(pieces, cfg)
    tokens = []
    for part, token in pieces:
        if not part:
            continue
        if token is not None:
            tokens.append((token, part[0][1], part[-1][2]))
        else:
            tokens += tokenize_text(part, cfg, text)
    ids = [cfg.id_of(t[0]) for t in tokens]
    offsets = [[t[1], t[2]] for t in tokens]
    eos = cfg.specials["eos"]
    if cfg.kind == "albert":
        ids = [cfg.specials["cls"]] + ids + [cfg.specials["sep"]]
        offsets = [[0, 0]] + offsets + [[0, 0]]
    elif cfg.kind == "marian" or not ids or ids[-1] != eos:
        ids.append(eos)
        offsets.append([0, 0])
    return ids, offsets


def sentences(ud_dir, extras):
    out = []
    for root, _, files in sorted(os.walk(ud_dir)):
        for name in sorted(files):
            if not name.endswith(".conllu"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, ud_dir)
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f.read().split("\n"), start=1):
                    if line.startswith("# text = "):
                        out.append((f"{rel}:{n}", line[len("# text = "):]))
    for prefix, path in extras:
        for i, text in enumerate(load_json(path)):
            out.append((f"{prefix}:{i}", text))
    return out


def build(name, folder, sentencepiece):
    kind, _, side = name.partition(":")
    config = load_json(os.path.join(folder, "tokenizer_config.json"), {})
    if kind == "marian":
        spm_file = "target.spm" if side == "target" else "source.spm"
        sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(folder, spm_file))
        vocab = load_json(os.path.join(folder, "vocab.json"))
        return Config(kind, sp, config, vocab)
    sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(folder, "spiece.model"))
    return Config(kind, sp, config)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--skip-unless", help="exit 77 when this path is missing")
    parser.add_argument("--conllu-dir", required=True)
    parser.add_argument("--extra", action="append", default=[], metavar="PREFIX=FILE.json")
    parser.add_argument("--model", action="append", required=True,
                        metavar="NAME=KIND[:SIDE]=FOLDER",
                        help="KIND is marian, albert or t5; SIDE (marian) source or target")
    args = parser.parse_args()
    if args.skip_unless and not os.path.exists(args.skip_unless):
        print(f"SKIP: {args.skip_unless} not found; no reference written")
        sys.exit(SKIP)
    try:
        import sentencepiece
    except ImportError:
        fail("the Python module sentencepiece is missing (Debian: python3-sentencepiece, "
             "installed by packaging/install-deps.sh --test)")
    extras = [tuple(e.split("=", 1)) for e in args.extra]
    texts = sentences(args.conllu_dir, extras)
    os.makedirs(args.out_dir, exist_ok=True)
    for spec in args.model:
        name, kind, folder = spec.split("=", 2)
        cfg = build(kind, folder, sentencepiece)
        with open(os.path.join(args.out_dir, name + ".jsonl"), "w", encoding="utf-8") as out:
            for source, text in texts:
                ids, offsets = encode(text, cfg)
                out.write(json.dumps({"source": source, "text": text, "ids": ids,
                                      "offsets": offsets}, ensure_ascii=False) + "\n")
        with open(os.path.join(args.out_dir, name + ".meta.json"), "w", encoding="utf-8") as out:
            json.dump({"vocab_size": cfg.vocab_size, "roles": cfg.specials}, out)
        print(f"{name}: {len(texts)} sentences")


if __name__ == "__main__":
    main()
