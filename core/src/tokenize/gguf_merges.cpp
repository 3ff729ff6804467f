// The BPE merges of GGUF vocabularies (gguf_internal.h).
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "attnscope/base/error.h"
#include "gguf_internal.h"

namespace attnscope::tokenize::detail {
namespace {

// Bytes of the character a lead byte starts, as llama.cpp's unicode_len_utf8 counts them (a
// stray continuation byte counts as one character).
std::size_t utf8Length(unsigned char lead) {
    return lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

struct RankedMerge {
    float score = 0.0f;
    std::uint32_t leftBytes = 0;
    std::uint32_t rightBytes = 0;
    std::int32_t id = 0;
};

// A strict order for std::sort: higher score first (a NaN last, where llama.cpp's float
// comparisons would leave it unordered), then longer left part, shorter right part, lower id.
bool ranksBefore(const RankedMerge& a, const RankedMerge& b) {
    const bool aNan = std::isnan(a.score);
    const bool bNan = std::isnan(b.score);
    if (aNan != bNan) {
        return bNan;
    }
    if (!aNan && a.score != b.score) {
        return a.score > b.score;
    }
    if (a.leftBytes != b.leftBytes) {
        return a.leftBytes > b.leftBytes;
    }
    if (a.rightBytes != b.rightBytes) {
        return a.rightBytes < b.rightBytes;
    }
    return a.id < b.id;
}

}  // namespace

std::vector<BpeMerge> spmMerges(const std::vector<std::string>& tokens,
                                const std::vector<float>& scores, const Vocab& pieces) {
    // llama.cpp merges two adjacent symbols whenever their text is a token; its symbols start
    // as characters, so only splits at character boundaries count, and (BpeModel needing
    // pieces) only splits whose two parts are tokens. In the Llama and Phi-3 vocabularies every
    // character of a token is itself a token, so nothing is lost there.
    std::vector<RankedMerge> ranked;
    for (std::size_t id = 0; id < tokens.size(); ++id) {
        const std::string_view token = tokens[id];
        std::size_t cut = utf8Length(static_cast<unsigned char>(token[0]));
        for (; cut < token.size(); cut += utf8Length(static_cast<unsigned char>(token[cut]))) {
            if (pieces.find(token.substr(0, cut)) && pieces.find(token.substr(cut))) {
                ranked.push_back({scores.empty() ? 0.0f : scores[id],
                                  static_cast<std::uint32_t>(cut),
                                  static_cast<std::uint32_t>(token.size() - cut),
                                  static_cast<std::int32_t>(id)});
            }
        }
    }
    std::sort(ranked.begin(), ranked.end(), ranksBefore);
    std::vector<BpeMerge> merges;
    merges.reserve(ranked.size());
    for (const RankedMerge& m : ranked) {
        const std::string& token = tokens[static_cast<std::size_t>(m.id)];
        merges.push_back({token.substr(0, m.leftBytes), token.substr(m.leftBytes), {}});
    }
    return merges;
}

std::vector<BpeMerge> bpeMerges(const GgufVocab& vocab, const Vocab& pieces) {
    std::vector<BpeMerge> merges;
    merges.reserve(vocab.merges.size());
    std::unordered_set<std::string_view> seen;
    for (std::size_t i = 0; i < vocab.merges.size(); ++i) {
        const std::string_view entry = vocab.merges[i];
        const std::size_t space = entry.size() > 1 ? entry.find(' ', 1) : std::string_view::npos;
        if (space == std::string_view::npos || !seen.insert(entry).second) {
            continue;  // llama.cpp stores such an entry as a pair that never matches
        }
        BpeMerge merge{
            std::string(entry.substr(0, space)), std::string(entry.substr(space + 1)), {}};
        for (const std::string& piece : {merge.left, merge.right, merge.left + merge.right}) {
            if (!pieces.find(piece)) {
                throw FormatError(ggufKeyWhere(vocab, "merges") + ": entry " + std::to_string(i) +
                                  " \"" + clipped(entry) + "\": \"" + clipped(piece) +
                                  "\" is not in tokenizer.ggml.tokens");
            }
        }
        merges.push_back(std::move(merge));
    }
    return merges;
}

}  // namespace attnscope::tokenize::detail
