#include "attnscope/base/head_id.h"

#include <charconv>
#include <string_view>

#include "attnscope/base/error.h"

namespace attnscope {

namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && s.front() == ' ') {
        s.remove_prefix(1);
    }
    while (!s.empty() && s.back() == ' ') {
        s.remove_suffix(1);
    }
    return s;
}

[[noreturn]] void fail(std::string_view item) {
    throw InvalidArgument("'" + std::string(item) +
                          "' is not LAYER-HEAD (0-based numbers, e.g. 3-7)");
}

int parseIndex(std::string_view s, std::string_view item) {
    s = trimmed(s);
    int v = -1;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0) {
        fail(item);
    }
    return v;
}

}  // namespace

std::vector<HeadId> parseHeadList(const std::string& text) {
    std::vector<HeadId> heads;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        const std::string_view item = trimmed(std::string_view(text).substr(begin, end - begin));
        const std::size_t dash = item.find('-');
        if (dash == std::string_view::npos) {
            fail(item);
        }
        heads.push_back(
            {parseIndex(item.substr(0, dash), item), parseIndex(item.substr(dash + 1), item)});
        begin = end + 1;
    }
    return heads;
}

}  // namespace attnscope
