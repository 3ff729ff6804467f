#include "attnscope/io/checked_read.h"

#include <limits>

#include "attnscope/base/error.h"

namespace attnscope::io {

std::uint64_t checkedAdd(std::uint64_t a, std::uint64_t b, const std::string& context) {
    if (a > std::numeric_limits<std::uint64_t>::max() - b) {
        throw FormatError(context + ": size overflow (" + std::to_string(a) + " + " +
                          std::to_string(b) + ")");
    }
    return a + b;
}

std::uint64_t checkedMul(std::uint64_t a, std::uint64_t b, const std::string& context) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
        throw FormatError(context + ": size overflow (" + std::to_string(a) + " * " +
                          std::to_string(b) + ")");
    }
    return a * b;
}

std::span<const std::byte> checkedSlice(std::span<const std::byte> data, std::uint64_t begin,
                                        std::uint64_t end, const std::string& context) {
    if (begin > end) {
        throw FormatError(context + ": range [" + std::to_string(begin) + ", " +
                          std::to_string(end) + ") ends before it begins");
    }
    if (end > data.size()) {
        throw FormatError(context + ": range [" + std::to_string(begin) + ", " +
                          std::to_string(end) + ") lies outside the " +
                          std::to_string(data.size()) + " bytes available");
    }
    return data.subspan(begin, end - begin);
}

}  // namespace attnscope::io
