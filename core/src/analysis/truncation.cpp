#include "attnscope/analysis/truncation.h"

#include <algorithm>
#include <vector>

namespace attnscope::analysis {

std::string fittingPrefix(const tokenize::Tokenizer& tokenizer, std::string_view text,
                          std::size_t maxTokens) {
    return fittingPrefix(tokenizer, text, tokenizer.encode(text), maxTokens);
}

std::string fittingPrefix(const tokenize::Tokenizer& tokenizer, std::string_view text,
                          const std::vector<tokenize::Token>& tokens, std::size_t maxTokens) {
    if (tokens.size() <= maxTokens) {
        return std::string(text);
    }
    std::vector<std::size_t> ends;  // where a token of the text ends, ascending, no repeats
    for (const tokenize::Token& t : tokens) {
        if (t.byteEnd > t.byteBegin && t.byteEnd <= text.size()) {
            ends.push_back(t.byteEnd);
        }
    }
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    const auto fits = [&](std::size_t end) {
        return tokenizer.encode(text.substr(0, end)).size() <= maxTokens;
    };
    // Invariant: ends[lo - 1] fits (or lo == 0), ends[hi] does not (or hi == ends.size()).
    std::size_t lo = 0;
    std::size_t hi = std::min(ends.size(), maxTokens);  // more text tokens than positions: too long
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (fits(ends[mid])) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo == 0 ? std::string() : std::string(text.substr(0, ends[lo - 1]));
}

}  // namespace attnscope::analysis
