// Reading back an enum from the name it is written under (settings, CLI options): the value of
// `values` whose nameOf(value) is `name`. Header-only.
#pragma once

#include <initializer_list>

#include <QString>

namespace attnscope::render {

template <typename E, typename NameOf>
bool enumFromName(const QString& name, std::initializer_list<E> values, NameOf nameOf, E* out) {
    for (const E value : values) {
        if (nameOf(value) == name) {
            *out = value;
            return true;
        }
    }
    return false;
}

}  // namespace attnscope::render
