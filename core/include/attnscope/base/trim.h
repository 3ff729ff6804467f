// `s` without its leading and trailing spaces and tabs: how the hand-written parsers of short
// text (CoNLL-U comments, ablation lists, what-ifs) read a field. Header-only.
#pragma once

#include <string_view>

namespace attnscope {

inline std::string_view trimmed(std::string_view s) {
    const std::size_t first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace attnscope
