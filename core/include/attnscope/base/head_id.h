// A head is a value: (layer, head), both 0-based. The UI shows them 0-based too and says so.
#pragma once

#include <compare>
#include <cstddef>
#include <string>
#include <vector>

namespace attnscope {

struct HeadId {
    int layer = 0;
    int head = 0;

    auto operator<=>(const HeadId&) const = default;

    std::string toString() const { return std::to_string(layer) + "-" + std::to_string(head); }
};

// Where a head's entry sits in the per-head arrays, which are stored layer-major:
// [layer * nHeads + head]. Computed in ptrdiff_t so that callers can go on to multiply by map
// sizes (tokens², previews) without overflowing int, and use it as a pointer offset.
constexpr std::ptrdiff_t headIndex(HeadId h, int nHeads) {
    return static_cast<std::ptrdiff_t>(h.layer) * nHeads + h.head;
}

// Parses "3-7" or "0-1, 2-3" (LAYER-HEAD pairs, 0-based, comma-separated, spaces allowed).
// Throws InvalidArgument "'<item>' is not LAYER-HEAD (0-based numbers, e.g. 3-7)".
std::vector<HeadId> parseHeadList(const std::string& text);

}  // namespace attnscope
