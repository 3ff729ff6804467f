#include "attnscope/analysis/word_alignment.h"

#include <algorithm>

#include "attnscope/base/error.h"

namespace attnscope::analysis {

namespace {

// Words with identical spans (a multiword token's words) are aligned as one group.
struct WordGroup {
    ByteSpan span;
    std::vector<int> words;
};

std::string spanText(const ByteSpan& s) {
    std::string out = "bytes ";
    out.append(std::to_string(s.begin));
    out.append("-");
    out.append(std::to_string(s.end));
    return out;
}

std::vector<WordGroup> groupWords(const std::vector<ByteSpan>& spans) {
    std::vector<WordGroup> groups;
    for (std::size_t w = 0; w < spans.size(); ++w) {
        const ByteSpan& s = spans[w];
        if (s.end < s.begin) {
            std::string msg = "aligning words: word ";
            msg.append(std::to_string(w));
            msg.append(": span ends before it begins (");
            msg.append(spanText(s));
            msg.append(")");
            throw InvalidArgument(msg);
        }
        if (!groups.empty() && groups.back().span == s) {
            groups.back().words.push_back(static_cast<int>(w));
            continue;
        }
        if (!groups.empty() && s.begin < groups.back().span.end) {
            std::string msg = "aligning words: word ";
            msg.append(std::to_string(w));
            msg.append(": span ");
            msg.append(spanText(s));
            msg.append(" overlaps or precedes the previous word's ");
            msg.append(spanText(groups.back().span));
            msg.append("; expected spans in text order");
            throw InvalidArgument(msg);
        }
        groups.push_back({s, {static_cast<int>(w)}});
    }
    return groups;
}

// The group holding the token's first byte that lies in any word; for a token touching no word
// (whitespace only), the group holding the byte right after it. -1 if neither. Group ends are
// non-decreasing, so the first group ending after a position is the only candidate for it once
// empty spans are skipped.
int owningGroup(const std::vector<WordGroup>& groups, const tokenize::Token& t) {
    const auto firstEndingAfter = [&](std::size_t pos) {
        return std::upper_bound(groups.begin(), groups.end(), pos,
                                [](std::size_t p, const WordGroup& g) { return p < g.span.end; });
    };
    for (auto it = firstEndingAfter(t.byteBegin); it != groups.end() && it->span.begin < t.byteEnd;
         ++it) {
        if (it->span.begin < it->span.end) {  // an empty span holds no byte
            return static_cast<int>(it - groups.begin());
        }
    }
    for (auto it = firstEndingAfter(t.byteEnd); it != groups.end() && it->span.begin <= t.byteEnd;
         ++it) {
        if (it->span.begin < it->span.end) {
            return static_cast<int>(it - groups.begin());
        }
    }
    return -1;
}

AlignmentFailure missingWord(const WordGroup& g, const std::vector<std::string>& words) {
    const int w = g.words.front();
    std::string reason = "word ";
    reason.append(std::to_string(w));
    if (!words.empty()) {
        reason.append(" '");
        reason.append(words[static_cast<std::size_t>(w)]);
        reason.append("'");
    }
    reason.append(" (");
    reason.append(spanText(g.span));
    reason.append(") gets no token");
    return {w, reason};
}

}  // namespace

std::vector<std::vector<int>> WordAlignment::unitTokens() const {
    std::vector<std::vector<int>> out;
    out.reserve(units.size());
    for (const auto& u : units) {
        out.push_back(u.tokens);
    }
    return out;
}

std::vector<int> WordAlignment::wordUnits() const {
    std::vector<int> out;
    for (std::size_t u = 0; u < units.size(); ++u) {
        if (units[u].kind == UnitKind::Word) {
            out.push_back(static_cast<int>(u));
        }
    }
    // Word order, not token order: a tokenizer emitting tokens out of text order must not change
    // which word wins an argmax tie (methods.md §1.2 rule 3).
    std::sort(out.begin(), out.end(), [&](int x, int y) {
        return units[static_cast<std::size_t>(x)].words.front() <
               units[static_cast<std::size_t>(y)].words.front();
    });
    return out;
}

AlignmentResult alignWords(const std::vector<tokenize::Token>& tokens,
                           const std::vector<ByteSpan>& wordSpans,
                           const std::vector<std::string>& words) {
    if (!words.empty() && words.size() != wordSpans.size()) {
        std::string msg = "aligning words: ";
        msg.append(std::to_string(words.size()));
        msg.append(" word forms for ");
        msg.append(std::to_string(wordSpans.size()));
        msg.append(" spans; expected the same number");
        throw InvalidArgument(msg);
    }
    const std::vector<WordGroup> groups = groupWords(wordSpans);
    std::vector<int> groupUnit(groups.size(), -1);
    WordAlignment a;
    a.tokenUnit.assign(tokens.size(), -1);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const int token = static_cast<int>(i);
        const int g = tokens[i].special ? -1 : owningGroup(groups, tokens[i]);
        int unit = g >= 0 ? groupUnit[static_cast<std::size_t>(g)] : -1;
        if (unit < 0) {
            unit = static_cast<int>(a.units.size());
            AlignmentUnit u;
            if (g >= 0) {
                u.words = groups[static_cast<std::size_t>(g)].words;
                groupUnit[static_cast<std::size_t>(g)] = unit;
            }
            u.kind =
                tokens[i].special ? UnitKind::Special : (g >= 0 ? UnitKind::Word : UnitKind::Other);
            a.units.push_back(std::move(u));
        }
        a.units[static_cast<std::size_t>(unit)].tokens.push_back(token);
        a.tokenUnit[i] = unit;
    }
    a.wordUnit.assign(wordSpans.size(), -1);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (groupUnit[g] < 0) {
            return {std::nullopt, missingWord(groups[g], words)};
        }
        for (int w : groups[g].words) {
            a.wordUnit[static_cast<std::size_t>(w)] = groupUnit[g];
        }
    }
    return {std::move(a), std::nullopt};
}

}  // namespace attnscope::analysis
