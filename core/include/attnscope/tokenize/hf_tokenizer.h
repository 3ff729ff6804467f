// The Hugging Face tokenizer pipeline, assembled from its parts:
//   added tokens (raw) -> normalizers -> added tokens (normalized) -> pre-tokenizers -> model
//   -> post-processor (offset trimming, then [CLS]/[SEP] or <s>/</s>)
// Normalizers: BertNormalizer, Prepend, Replace, NFC (normalizer.h). Pre-tokenizers:
// BertPreTokenizer, ByteLevel, Metaspace, Split (pre_tokenizer.h; WhitespaceSplit is a Split).
// Models: WordPiece, BPE (byte-level, or character-level with byte fallback), Unigram
// (unigram.h), WordLevel (word_level.h), or a SentencePiece tokenizer.model run by
// libsentencepiece. A TokenizerSpec says which parts to use; the loaders in tokenizer.h fill it
// from tokenizer.json, from vocabulary files or from tokenizer.model. HfTokenizer is immutable
// after construction and `encode` is const and thread-safe (the BPE cache has its own lock).
// `encode` throws InvalidArgument for invalid UTF-8; construction throws FormatError for an
// inconsistent spec.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/tokenize/added_vocabulary.h"
#include "attnscope/tokenize/bpe.h"
#include "attnscope/tokenize/normalizer.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "attnscope/tokenize/sentencepiece_model.h"
#include "attnscope/tokenize/tokenizer.h"
#include "attnscope/tokenize/unigram.h"
#include "attnscope/tokenize/word_level.h"
#include "attnscope/tokenize/wordpiece.h"

namespace attnscope::tokenize {

enum class PreTokenizerKind { Bert, ByteLevel, Metaspace, Split };

struct ByteLevelOptions {
    bool addPrefixSpace = false;  // prepend ' ' to a text piece that does not start with one
};

// One pre-tokenizer; a Sequence in tokenizer.json becomes the list of its steps. Each step
// splits every word the previous one produced.
struct PreTokenizerStep {
    PreTokenizerKind kind = PreTokenizerKind::Bert;
    ByteLevelOptions byteLevel;  // ByteLevel
    MetaspaceOptions metaspace;  // Metaspace
    // Split: its pattern; ByteLevel: the GPT-2 regex when use_regex is on, else null.
    std::shared_ptr<const RegexSplitter> pattern;
    SplitBehavior behavior = SplitBehavior::Isolated;  // Split
    bool invert = false;                               // Split
};

struct SpecialPiece {
    std::string token;
    std::int32_t id = 0;
};

struct PostProcessorSpec {
    std::vector<SpecialPiece> prefix;  // added before the text: [CLS], <s>
    std::vector<SpecialPiece> suffix;  // added after it: [SEP], </s>
    // ByteLevel / RobertaProcessing trim_offsets: spans lose leading and trailing spaces ('Ġ').
    bool trimOffsets = false;
    // The add_prefix_space the trimming consults: the first token keeps a single leading space.
    bool trimAddPrefixSpace = false;
};

struct TokenizerSpec {
    std::string source;  // the file(s) it came from, for describe()
    std::vector<NormalizerStep> normalizers;
    std::vector<PreTokenizerStep> preTokenizers;
    // Exactly one model. A BPE model is byte-level exactly when a ByteLevel pre-tokenizer runs.
    std::shared_ptr<const WordPieceModel> wordPiece;
    std::shared_ptr<const BpeModel> bpe;
    std::shared_ptr<const SentencePieceModel> sentencePiece;
    std::shared_ptr<const UnigramModel> unigram;
    std::shared_ptr<const WordLevelModel> wordLevel;
    PostProcessorSpec post;
    std::vector<AddedToken> addedTokens;
    std::map<SpecialRole, std::int32_t> roles;
};

class HfTokenizer final : public Tokenizer {
public:
    explicit HfTokenizer(TokenizerSpec spec);

    TokenizerKind kind() const override;
    std::string describe() const override;
    std::vector<Token> encode(std::string_view text, bool addSpecialTokens = true) const override;
    std::size_t vocabSize() const override;
    std::optional<std::int32_t> tokenToId(std::string_view token) const override;
    std::string idToToken(std::int32_t id) const override;
    std::optional<std::int32_t> specialId(SpecialRole role) const override;

    const TokenizerSpec& spec() const { return m_spec; }

private:
    struct RawToken;

    const Vocab& modelVocab() const;
    void encodeSegment(const NormalizedText& segment, std::vector<RawToken>& out) const;
    void encodeWord(std::span<const NormalizedChar> word, std::vector<RawToken>& out) const;
    void encodeBpe(std::span<const NormalizedChar> word, std::vector<RawToken>& out) const;
    void pushAdded(std::size_t index, std::span<const NormalizedChar> slice,
                   std::vector<RawToken>& out) const;
    void pushModelToken(std::int32_t id, std::span<const NormalizedChar> chars,
                        std::vector<RawToken>& out) const;
    std::vector<Token> finish(const DecodedText& text, std::vector<RawToken> raw,
                              bool addSpecialTokens) const;

    TokenizerSpec m_spec;
    AddedVocabulary m_added;
    // Leading / trailing trimmable characters ('Ġ' or whitespace) of each model piece, by id.
    std::vector<std::uint32_t> m_trimLead;
    std::vector<std::uint32_t> m_trimTrail;
};

}  // namespace attnscope::tokenize
