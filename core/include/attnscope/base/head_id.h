// A head is a value: (layer, head), both 0-based. The UI shows them 0-based too and says so.
#pragma once

#include <compare>
#include <string>

namespace attnscope {

struct HeadId {
    int layer = 0;
    int head = 0;

    auto operator<=>(const HeadId&) const = default;

    std::string toString() const { return std::to_string(layer) + "-" + std::to_string(head); }
};

}  // namespace attnscope
