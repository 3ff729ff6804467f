// Where a ggml block keeps its f16 scale d (and dmin) — ggml-common.h — so that tests and
// benchmarks filling blocks with random bytes can put finite, moderate scales there.
#pragma once

#include <cstddef>
#include <vector>

#include "attnscope/io/ggml_types.h"

namespace attnscope::testing {

// Byte offsets of the type's f16 d (and dmin) in one block.
inline std::vector<std::size_t> ggmlScaleOffsets(io::GgmlType type) {
    switch (type) {
        case io::GgmlType::Q2_K:
            return {80, 82};
        case io::GgmlType::Q3_K:
            return {108};
        case io::GgmlType::Q4_K:
        case io::GgmlType::Q5_K:
            return {0, 2};
        case io::GgmlType::Q6_K:
            return {208};
        default:
            return {0};
    }
}

}  // namespace attnscope::testing
