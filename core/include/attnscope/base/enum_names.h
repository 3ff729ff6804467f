// The names enums are written with in files, CLI arguments and messages, kept as tables: each
// value beside its name, looked up by one loop instead of a switch per enum.
#pragma once

#include <cstddef>
#include <string_view>

namespace attnscope {

template <class Enum>
struct EnumName {
    Enum value;
    std::string_view name;
};

// `value`'s name in `names`; `fallback` for a value the table lacks (an out-of-range cast).
template <class Enum, std::size_t N>
constexpr std::string_view nameIn(const EnumName<Enum> (&names)[N], Enum value,
                                  std::string_view fallback) {
    for (const EnumName<Enum>& n : names) {
        if (n.value == value) {
            return n.name;
        }
    }
    return fallback;
}

}  // namespace attnscope
