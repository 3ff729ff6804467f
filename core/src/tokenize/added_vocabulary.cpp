#include "attnscope/tokenize/added_vocabulary.h"

#include <algorithm>

namespace attnscope::tokenize {
namespace {

struct Match {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t token = 0;
};

bool matchesAt(std::span<const NormalizedChar> text, std::size_t pos, std::u32string_view p) {
    if (text.size() - pos < p.size()) {
        return false;
    }
    for (std::size_t k = 0; k < p.size(); ++k) {
        if (text[pos + k].cp != p[k]) {
            return false;
        }
    }
    return true;
}

}  // namespace

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer& normalize)
    : m_tokens(std::move(tokens)) {
    for (std::size_t i = 0; i < m_tokens.size(); ++i) {
        const AddedToken& t = m_tokens[i];
        if (t.content.empty()) {
            continue;
        }
        const DecodedText decoded = decodeUtf8(t.content, "added token");
        std::u32string chars = decoded.chars;
        if (t.normalized) {
            chars = codePoints(normalize(makeDetachedText(decoded.chars)));
            if (chars.empty()) {
                continue;
            }
        }
        PatternIndex& index = t.normalized ? m_normalized : m_raw;
        index[chars.front()].push_back({std::move(chars), i});
    }
    for (PatternIndex* index : {&m_raw, &m_normalized}) {
        for (auto& [first, patterns] : *index) {
            std::stable_sort(
                patterns.begin(), patterns.end(),
                [](const Pattern& a, const Pattern& b) { return a.chars.size() > b.chars.size(); });
        }
    }
}

std::vector<AddedSplit> AddedVocabulary::split(std::span<const NormalizedChar> text,
                                               AddedTokenPass pass) const {
    return findMatches(text, pass == AddedTokenPass::Normalized ? m_normalized : m_raw);
}

std::vector<AddedSplit> AddedVocabulary::findMatches(std::span<const NormalizedChar> text,
                                                     const PatternIndex& index) const {
    // Leftmost-longest, non-overlapping matches (what HF's Aho-Corasick automaton yields); the
    // single_word test below runs on these, so a rejected match still hides overlapping ones.
    std::vector<Match> matches;
    if (!index.empty()) {
        std::size_t pos = 0;
        while (pos < text.size()) {
            const auto it = index.find(text[pos].cp);
            const Pattern* found = nullptr;
            if (it != index.end()) {
                for (const Pattern& p : it->second) {
                    if (matchesAt(text, pos, p.chars)) {
                        found = &p;
                        break;
                    }
                }
            }
            if (found == nullptr) {
                ++pos;
                continue;
            }
            matches.push_back({pos, pos + found->chars.size(), found->token});
            pos += found->chars.size();
        }
    }

    std::vector<AddedSplit> splits;
    std::size_t done = 0;  // end of the last accepted match
    for (Match m : matches) {
        const AddedToken& token = m_tokens[m.token];
        if (token.singleWord) {
            const bool wordBefore = m.begin > 0 && isRegexWordChar(text[m.begin - 1].cp);
            const bool wordAfter = m.end < text.size() && isRegexWordChar(text[m.end].cp);
            if (wordBefore || wordAfter) {
                continue;
            }
        }
        if (token.lstrip) {
            while (m.begin > done && isWhiteSpace(text[m.begin - 1].cp)) {
                --m.begin;
            }
        }
        if (token.rstrip) {
            while (m.end < text.size() && isWhiteSpace(text[m.end].cp)) {
                ++m.end;
            }
        }
        // An rstrip can reach past the start of the next match; HF would then emit overlapping
        // pieces. Clamp instead, so the splits always partition the text.
        m.begin = std::max(m.begin, done);
        if (m.end <= m.begin) {
            continue;
        }
        if (m.begin > done) {
            splits.push_back({{done, m.begin}, std::nullopt});
        }
        splits.push_back({{m.begin, m.end}, m.token});
        done = m.end;
    }
    if (done < text.size()) {
        splits.push_back({{done, text.size()}, std::nullopt});
    }
    return splits;
}

}  // namespace attnscope::tokenize
