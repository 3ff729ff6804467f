// The BPE model as Hugging Face's `BPE` runs it. Byte-level (GPT-2, RoBERTa, Llama 3, Qwen2): a
// word's bytes start as single-byte pieces (spelled with byteToUnicode). Otherwise (Llama 2,
// Mistral: SentencePiece-style vocabularies): a word's characters start as pieces, and a
// character the vocabulary lacks becomes its UTF-8 bytes as <0xNN> pieces (byte_fallback) or the
// unknown token. Then the adjacent pair with the lowest merge rank is merged, leftmost first,
// until no pair has a rank.
//
// Results are cached per word. The cache is the only mutable state; a mutex guards it, so
// `tokenize` is const and safe to call from several threads. Construction throws FormatError
// naming the offending merge (with the `where` the loader gave it) when a merge uses pieces the
// vocabulary lacks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attnscope/tokenize/vocab.h"
#include "attnscope/tokenize/wordpiece.h"

namespace attnscope::tokenize {

struct BpeMerge {
    std::string left;
    std::string right;
    std::string where;  // "line 7" or "model.merges[5]", for error messages
};

struct BpeOptions {
    std::optional<std::string> unkToken;  // GPT-2 and RoBERTa have none: every byte is a piece
    bool fuseUnk = false;
    bool ignoreMerges = false;  // a word that is itself a piece is taken whole (Llama 3)
    bool useCache = true;
    // Pieces spell bytes with byteToUnicode (the model follows a ByteLevel pre-tokenizer);
    // false: pieces are plain text and words start as characters.
    bool byteLevel = true;
    bool byteFallback = false;  // unknown characters become <0xNN> pieces (non-byte-level only)
};

class BpeModel {
public:
    BpeModel(Vocab vocab, const std::vector<BpeMerge>& merges, BpeOptions options);
    BpeModel(const BpeModel&) = delete;
    BpeModel& operator=(const BpeModel&) = delete;

    // Appends the pieces of a word given as raw UTF-8 bytes (valid UTF-8 unless byte-level);
    // spans are byte ranges of `word`.
    void tokenize(std::string_view word, std::vector<ModelToken>& out) const;

    const Vocab& vocab() const { return m_vocab; }

    const BpeOptions& options() const { return m_options; }

    std::size_t mergeCount() const { return m_merges.size(); }

private:
    struct MergeTarget {
        std::uint32_t rank = 0;
        std::int32_t id = 0;
    };

    void merge(std::string_view word, std::vector<ModelToken>& out) const;
    std::optional<MergeTarget> findMerge(std::int32_t left, std::int32_t right) const;

    Vocab m_vocab;
    BpeOptions m_options;
    std::optional<std::int32_t> m_unkId;
    struct Symbol;
    std::vector<Symbol> initialSymbols(std::string_view word) const;
    bool addCharSymbols(std::string_view word, std::size_t begin, std::size_t len,
                        std::vector<Symbol>& symbols) const;

    // Byte-level: the piece of each single byte. Otherwise: the <0xNN> byte_fallback pieces.
    std::array<std::optional<std::int32_t>, 256> m_byteIds{};
    std::unordered_map<std::uint64_t, MergeTarget> m_merges;  // key: left id << 32 | right id

    static constexpr std::size_t kCacheCapacity = 10000;  // as HF: stop inserting when full
    mutable std::mutex m_cacheMutex;
    mutable std::unordered_map<std::string, std::vector<ModelToken>, StringHash, std::equal_to<>>
        m_cache;
};

}  // namespace attnscope::tokenize
