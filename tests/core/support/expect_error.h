// expectError<E>(fn, {fragments}): `fn` must throw E and the message must contain every
// fragment (the file, the place, the reason), so error tests check what the user reads.
// errorMessage<E>(fn): the message of the E `fn` throws, for tests that compare it whole.
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

// The message of the E `fn` throws; fails the test (and returns "") when it throws none.
template <class E, class Fn>
std::string errorMessage(Fn&& fn) {
    try {
        fn();
    } catch (const E& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an exception";
    return {};
}

}  // namespace attnscope::testing
