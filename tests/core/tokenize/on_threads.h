// Runs one check on several threads at once, for the tests that a shared tokenizer or model
// gives the same answers under concurrency (bpe_test.cpp, tokenizer_test.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "../support/executors.h"

namespace attnscope::tokenize {

// check(k) on threads k = 0..n-1 together; 1 for each thread whose check held, else 0.
inline std::vector<int> checkOnThreads(std::size_t n,
                                       const std::function<bool(std::size_t)>& check) {
    std::vector<int> ok(n, 0);
    testing::runOnThreads(n, [&](std::size_t k) { ok[k] = check(k) ? 1 : 0; });
    return ok;
}

}  // namespace attnscope::tokenize
