// Bitwise equality of float matrices and of head records: the same floats, not merely close
// ones (NaN-free data, so memcmp is exact). For the recompute tests, whose promise is "bit for
// bit what a full recording holds".
#pragma once

#include <cstddef>
#include <cstring>

#include "attnscope/forward/head_record.h"

namespace attnscope::testing {

template <class A, class B>
bool sameBits(const A& a, const B& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())) == 0;
}

inline bool sameRecord(const forward::HeadRecord& a, const forward::HeadRecord& b) {
    return sameBits(a.logits, b.logits) && sameBits(a.probs, b.probs) &&
           sameBits(a.context, b.context) && sameBits(a.entropy, b.entropy);
}

}  // namespace attnscope::testing
