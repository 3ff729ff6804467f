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

// The words' own spans cover the group's span in order, as when the forms spell the multiword
// token's text; otherwise the group cannot be split.
bool splittable(const WordGroup& g, const std::vector<ByteSpan>& ownSpans) {
    if (ownSpans.empty() || g.words.size() < 2) {
        return false;
    }
    std::size_t at = g.span.begin;
    for (int w : g.words) {
        const ByteSpan& own = ownSpans[static_cast<std::size_t>(w)];
        if (own.begin != at || own.end <= own.begin) {
            return false;
        }
        at = own.end;
    }
    return at == g.span.end;
}

// The word (index into g.words) of each of the group's tokens: the word whose own span holds
// the token's first byte inside the group (the group's first byte for a token that starts in
// the whitespace before it). Empty when the group stays whole: its words have no own spans, or
// one of them would get no token (GPT-2's single token "gonna" over "gon" + "na").
std::vector<int> tokenWords(const WordGroup& g, const std::vector<int>& groupTokens,
                            const std::vector<tokenize::Token>& tokens,
                            const std::vector<ByteSpan>& ownSpans) {
    if (!splittable(g, ownSpans)) {
        return {};
    }
    std::vector<int> word(groupTokens.size(), -1);
    std::vector<bool> hasToken(g.words.size(), false);
    for (std::size_t i = 0; i < groupTokens.size(); ++i) {
        const tokenize::Token& t = tokens[static_cast<std::size_t>(groupTokens[i])];
        const std::size_t first = std::max(t.byteBegin, g.span.begin);
        for (std::size_t k = 0; k < g.words.size(); ++k) {
            const ByteSpan& own = ownSpans[static_cast<std::size_t>(g.words[k])];
            if (own.begin <= first && first < own.end) {
                word[i] = static_cast<int>(k);
                hasToken[k] = true;
            }
        }
    }
    if (std::find(hasToken.begin(), hasToken.end(), false) != hasToken.end()) {
        return {};
    }
    return word;
}

// Splits the groups whose words can each have their own tokens (tokenWords) into one group
// per word. tokenGroup: [nTokens] the group of each token, or -1; rewritten to the new groups.
std::vector<WordGroup> splitGroups(const std::vector<WordGroup>& groups,
                                   const std::vector<tokenize::Token>& tokens,
                                   const std::vector<ByteSpan>& ownSpans,
                                   std::vector<int>& tokenGroup) {
    std::vector<std::vector<int>> groupTokens(groups.size());
    for (std::size_t t = 0; t < tokenGroup.size(); ++t) {
        if (tokenGroup[t] >= 0) {
            groupTokens[static_cast<std::size_t>(tokenGroup[t])].push_back(static_cast<int>(t));
        }
    }
    std::vector<WordGroup> parts;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const int base = static_cast<int>(parts.size());
        const std::vector<int> word = tokenWords(groups[g], groupTokens[g], tokens, ownSpans);
        if (word.empty()) {
            parts.push_back(groups[g]);
        } else {
            for (int w : groups[g].words) {
                parts.push_back({ownSpans[static_cast<std::size_t>(w)], {w}});
            }
        }
        for (std::size_t i = 0; i < groupTokens[g].size(); ++i) {
            const auto t = static_cast<std::size_t>(groupTokens[g][i]);
            tokenGroup[t] = base + (word.empty() ? 0 : word[i]);
        }
    }
    return parts;
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

void checkSizes(const std::vector<ByteSpan>& wordSpans, const std::vector<std::string>& words,
                const std::vector<ByteSpan>& ownSpans) {
    const auto check = [&](std::size_t n, const char* what) {
        if (n != 0 && n != wordSpans.size()) {
            std::string msg = "aligning words: ";
            msg.append(std::to_string(n));
            msg.append(" ");
            msg.append(what);
            msg.append(" for ");
            msg.append(std::to_string(wordSpans.size()));
            msg.append(" spans; expected the same number");
            throw InvalidArgument(msg);
        }
    };
    check(words.size(), "word forms");
    check(ownSpans.size(), "own spans");
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
                           const std::vector<std::string>& words,
                           const std::vector<ByteSpan>& ownSpans, MissingWords missing) {
    checkSizes(wordSpans, words, ownSpans);
    const std::vector<WordGroup> shared = groupWords(wordSpans);
    std::vector<int> tokenGroup(tokens.size(), -1);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        tokenGroup[i] = tokens[i].special ? -1 : owningGroup(shared, tokens[i]);
    }
    const std::vector<WordGroup> groups = splitGroups(shared, tokens, ownSpans, tokenGroup);
    std::vector<int> groupUnit(groups.size(), -1);
    WordAlignment a;
    a.tokenUnit.assign(tokens.size(), -1);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const int token = static_cast<int>(i);
        const int g = tokenGroup[i];
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
            if (missing == MissingWords::NoUnit) {
                continue;  // its words keep wordUnit -1
            }
            return {std::nullopt, missingWord(groups[g], words)};
        }
        for (int w : groups[g].words) {
            a.wordUnit[static_cast<std::size_t>(w)] = groupUnit[g];
        }
    }
    return {std::move(a), std::nullopt};
}

}  // namespace attnscope::analysis
