// The frame of an attention result built by hand (the figure, grid and view tests, the synthetic
// results of view_test_data): its shape and mask, and tokens named by number, so that each test
// writes only the weights it is about.
#pragma once

#include <string>
#include <utility>

#include "attnscope/forward/forward_result.h"
#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::test {

inline tokenize::Token token(int id, std::string text) {
    return {.text = std::move(text), .id = id};
}

// Token `id` named `prefix` and `number`: "t0", "s12".
inline tokenize::Token numberedToken(int id, char prefix, int number) {
    // std::to_string(...).insert: GCC 12 warns (-Wrestrict, a false positive) on "t" + string.
    return token(id, std::to_string(number).insert(0, 1, prefix));
}

// No maps yet: `layers` × `heads` of `rows` queries by `keys` keys (0: the queries themselves,
// self-attention), every pair allowed, the mask called `maskKind`.
inline forward::ForwardResult forwardFrame(int layers, int heads, int rows, int keys,
                                           std::string maskKind) {
    forward::ForwardResult f;
    f.nLayers = layers;
    f.nHeads = heads;
    f.nTokens = rows;
    f.nKeys = keys;
    f.maskKind = std::move(maskKind);
    f.allowed = BoolMatrix::Ones(rows, keys > 0 ? keys : rows);
    return f;
}

}  // namespace attnscope::test
