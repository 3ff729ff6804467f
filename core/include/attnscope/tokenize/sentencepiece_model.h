// A SentencePiece `tokenizer.model` run by libsentencepiece, as the model stage of the Hugging
// Face pipeline (hf_tokenizer.h): the pipeline has already made the text what Hugging Face's
// converted Llama tokenizer feeds its BPE (spaces as '▁', the '▁' prefix where it belongs, added
// tokens cut out), and this model turns each such word into pieces.
//
// libsentencepiece always adds its own dummy '▁' prefix (the model's add_dummy_prefix, which its
// API cannot switch off), so `tokenize` hands it the word without its leading '▁', or, for a
// word with none, behind a '\n' separator whose pieces are then dropped (no Llama piece holds
// '\n', so nothing merges across it). Piece spans come from SentencePieceText's byte offsets;
// byte-fallback pieces, which SentencePiece reports as empty spans, take their character's span.
//
// encodeText is the other use: a whole text as libsentencepiece's own Encode sees it (normalizer
// and dummy prefix included), for the slow tokenizers of slow_spm_tokenizer.h (Marian, ALBERT,
// T5), with each piece's byte span.
//
// Immutable after construction; `tokenize` is const and thread-safe (SentencePieceProcessor's
// Encode is const). Construction throws FormatError "<file>: <reason>" for a file that is not a
// SentencePiece model (libsentencepiece returns a status for most bad files and throws for some,
// e.g. an empty piece; both end as FormatError), and for one without a normalizer_spec, which is
// what a file cut short after some of its pieces parses as.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/tokenize/normalized_text.h"
#include "attnscope/tokenize/vocab.h"
#include "attnscope/tokenize/wordpiece.h"

namespace attnscope::tokenize {

// One piece of a whole text as libsentencepiece encodes it: [begin, end) is the piece's byte span
// in the text it was given (empty for a piece with no surface, e.g. a lone dummy-prefix '▁').
struct SpmPiece {
    std::int32_t id = 0;
    std::string piece;
    std::size_t begin = 0;
    std::size_t end = 0;
};

class SentencePieceModel {
public:
    explicit SentencePieceModel(const std::filesystem::path& file);
    ~SentencePieceModel();
    SentencePieceModel(const SentencePieceModel&) = delete;
    SentencePieceModel& operator=(const SentencePieceModel&) = delete;

    // Appends the pieces of `word` (spaces already '▁'); spans are character ranges of `word`.
    void tokenize(std::span<const NormalizedChar> word, std::vector<ModelToken>& out) const;

    // The text encoded as libsentencepiece's own Encode does it, its normalizer and dummy prefix
    // included: what transformers' slow SentencePiece tokenizers call (sp_model.encode).
    std::vector<SpmPiece> encodeText(std::string_view utf8) const;

    // Pieces only, as EncodeAsPieces gives them (ALBERT re-encodes a piece this way).
    std::vector<std::string> encodePieces(std::string_view utf8) const;

    // The model's id of `piece`, its <unk> id when it has none (SentencePiece's PieceToId).
    std::int32_t pieceToId(std::string_view piece) const;

    const std::string& file() const { return m_file; }

    // All pieces with their ids (control and byte pieces included).
    const Vocab& vocab() const { return m_vocab; }

    // "<unk>", "<s>", "</s>" as the model names them; empty when it has none.
    const std::string& unkPiece() const { return m_unk; }

    const std::string& bosPiece() const { return m_bos; }

    const std::string& eosPiece() const { return m_eos; }

private:
    struct Impl;
    void encodePieces(std::span<const NormalizedChar> word, bool hasPrefix,
                      std::vector<ModelToken>& out) const;

    std::unique_ptr<Impl> m_impl;
    Vocab m_vocab;
    std::string m_unk;
    std::string m_bos;
    std::string m_eos;
    std::string m_file;
};

}  // namespace attnscope::tokenize
