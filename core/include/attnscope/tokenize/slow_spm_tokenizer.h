// transformers' slow (Python) SentencePiece tokenizers, run on libsentencepiece: MarianTokenizer
// (source.spm / target.spm + vocab.json), AlbertTokenizer and T5Tokenizer (spiece.model). These
// have no tokenizer.json to follow; what they do is PreTrainedTokenizer.tokenize (transformers
// 4.34 to 4.5x) around the model's own _tokenize:
//   1. do_lower_case (ALBERT): str.lower() per character, added tokens left alone;
//   2. the text is cut on added tokens (leftmost-longest); an added token with lstrip / rstrip
//      strips whitespace off its neighbour, single_word glues it to a neighbour it touches;
//   3. each text piece goes through the convention's _tokenize: Marian takes a leading >>xx<<
//      language code off whole, ALBERT runs preprocess_text, then libsentencepiece encodes
//      (sp_model.encode, its normalizer and dummy prefix included); ALBERT re-encodes a piece
//      ending in digit + ',' as AlbertTokenizer does;
//   4. pieces become ids: added tokens first, then vocab.json (Marian; <unk> when absent) or the
//      model's PieceToId (ALBERT, T5);
//   5. build_inputs_with_special_tokens: "[CLS] x [SEP]" (ALBERT), "x </s>" (Marian; T5 unless
//      the text already ends in </s>).
// The slow tokenizers give no offsets; ours are the spans libsentencepiece reports for each piece
// (EncodeAsImmutableProto), traced back through the steps above to the user's text; a piece
// with no surface gets an empty span where it stands. Pieces of a re-encoded "12," share the
// digits' span and the ',' keeps its own.
// Known limits: ALBERT's whole-text lower() after NFKD would apply Python's Final_Sigma rule to a
// capital sigma that NFKD makes out of a mathematical one (U+1D6BA ...); here every character is
// lower-cased alone, which agrees with lower() on everything but such a sigma. Character data
// is utf8proc's (Unicode 15) where Python 3.11's is Unicode 14. T5Tokenizer with legacy: false
// (its spiece.model re-serialized without add_dummy_prefix) is refused as UnsupportedModel.
// Immutable after construction; `encode` is const and thread-safe. `encode` throws
// InvalidArgument for invalid UTF-8.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "attnscope/tokenize/sentencepiece_model.h"
#include "attnscope/tokenize/tokenizer.h"
#include "attnscope/tokenize/vocab.h"

namespace attnscope::tokenize {

enum class SpmConvention { Marian, Albert, T5 };

// A token cut out of the text before SentencePiece sees it (special tokens, <extra_id_N>).
struct SlowAddedToken {
    std::string content;
    std::int32_t id = 0;
    bool lstrip = false;
    bool rstrip = false;
    bool singleWord = false;
};

struct SlowSpmSpec {
    SpmConvention convention = SpmConvention::T5;
    std::string source;  // for describe(): the files and their sizes
    std::shared_ptr<const SentencePieceModel> model;
    // Marian: vocab.json, piece -> id (pieces missing from it get unkId); empty otherwise.
    std::shared_ptr<const Vocab> vocabJson;
    std::int32_t unkId = 0;
    std::vector<SlowAddedToken> added;
    bool lowercase = false;  // do_lower_case
    bool removeSpace = true;
    bool keepAccents = false;
    std::vector<std::int32_t> prefix;  // ids before the text
    std::vector<std::int32_t> suffix;  // ids after it
    bool suffixUnlessPresent = false;  // T5: no </s> after a text already ending in </s>
    std::size_t vocabSize = 0;         // len(tokenizer)
    std::map<SpecialRole, std::int32_t> roles;
};

class SlowSpmTokenizer final : public Tokenizer {
public:
    explicit SlowSpmTokenizer(SlowSpmSpec spec);

    TokenizerKind kind() const override { return TokenizerKind::SentencePiece; }

    std::string describe() const override { return m_spec.source; }

    std::vector<Token> encode(std::string_view text, bool addSpecialTokens = true) const override;

    std::size_t vocabSize() const override { return m_spec.vocabSize; }

    std::optional<std::int32_t> tokenToId(std::string_view token) const override;
    std::string idToToken(std::int32_t id) const override;
    std::optional<std::int32_t> specialId(SpecialRole role) const override;

    const SlowSpmSpec& spec() const { return m_spec; }

private:
    struct Piece;
    struct Segment;

    std::vector<Segment> splitOnAdded(const NormalizedText& text) const;
    void tokenizeText(const NormalizedText& text, std::vector<Piece>& out) const;
    void encodeSpm(const NormalizedText& text, std::vector<Piece>& out) const;
    void splitDigitComma(const NormalizedText& text, Piece piece, std::vector<Piece>& out) const;
    std::int32_t idOfPiece(const std::string& piece) const;

    SlowSpmSpec m_spec;
    void applyStripping(std::vector<Segment>& segments) const;

    Vocab m_addedVocab;  // the added tokens' contents -> ids
    std::map<std::int32_t, std::string> m_addedById;
    std::vector<std::u32string> m_addedChars;  // by index into m_spec.added
    std::unordered_map<char32_t, std::vector<std::size_t>> m_addedByFirst;
};

}  // namespace attnscope::tokenize
