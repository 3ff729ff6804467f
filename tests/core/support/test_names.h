// gtest accepts only letters, digits and '_' in the name of a parameterized test; the tests
// named after checkpoints and tokenizer folders ("qwen2_gqa2_bf16@half", "bert-base-uncased")
// spell them with '_' in place of every other character (paramName: the name generator of such
// a suite).
#pragma once

#include <cctype>
#include <string>

#include <gtest/gtest.h>

namespace attnscope::testing {

inline std::string testName(std::string name) {
    for (char& c : name) {
        c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    }
    return name;
}

inline std::string paramName(const ::testing::TestParamInfo<std::string>& info) {
    return testName(info.param);
}

}  // namespace attnscope::testing
