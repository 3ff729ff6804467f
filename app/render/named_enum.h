// Enums kept as tables: each value beside its names and words, looked up by one loop instead of a
// switch per enum (a row's key member is `value`), and read back from the name it is written
// under (settings, CLI options). Header-only.
#pragma once

#include <cstddef>
#include <string_view>

#include <QString>

#include "attnscope/base/enum_names.h"

namespace attnscope::render {

// The row of `table` for `value`; null for a value the table lacks (a bad cast).
template <class Row, std::size_t N, class E>
const Row* rowOf(const Row (&table)[N], E value) {
    for (const Row& row : table) {
        if (row.value == value) {
            return &row;
        }
    }
    return nullptr;
}

// `value`'s name in `names`; `fallback` for a value the table lacks.
template <class E, std::size_t N>
QString enumName(const EnumName<E> (&names)[N], E value, std::string_view fallback) {
    const std::string_view name = nameIn(names, value, fallback);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

// The value of `names` called `name`; false (and `out` untouched) for an unknown name.
template <class E, std::size_t N>
bool enumFromName(const EnumName<E> (&names)[N], const QString& name, E* out) {
    for (const EnumName<E>& n : names) {
        if (name == QLatin1String(n.name.data(), static_cast<qsizetype>(n.name.size()))) {
            *out = n.value;
            return true;
        }
    }
    return false;
}

}  // namespace attnscope::render
