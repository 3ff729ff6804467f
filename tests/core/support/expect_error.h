// expectError<E>(fn, {fragments}): `fn` must throw E and the message must contain every
// fragment (the file, the place, the reason), so error tests check what the user reads.
#pragma once

#include <initializer_list>
#include <string>

#include <gtest/gtest.h>

namespace attnscope::testing {

template <class E, class Fn>
void expectError(Fn&& fn, std::initializer_list<std::string> fragments) {
    try {
        fn();
        ADD_FAILURE() << "expected an exception";
    } catch (const E& e) {
        const std::string msg = e.what();
        for (const std::string& f : fragments) {
            EXPECT_NE(msg.find(f), std::string::npos)
                << "message '" << msg << "' lacks '" << f << "'";
        }
    }
}

}  // namespace attnscope::testing
