// Overflow- and bounds-checked arithmetic for sizes and offsets read from files.
//
// Every size or offset that comes from a file passes through here before it is used to index
// memory. Failures throw FormatError with the caller's "<file>: <where>" context.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace attnscope::io {

// a + b, or FormatError "<context>: size overflow" if it does not fit in 64 bits.
std::uint64_t checkedAdd(std::uint64_t a, std::uint64_t b, const std::string& context);

// a * b, or FormatError on overflow.
std::uint64_t checkedMul(std::uint64_t a, std::uint64_t b, const std::string& context);

// The bytes [begin, end) of `data`, after checking begin <= end <= data.size().
std::span<const std::byte> checkedSlice(std::span<const std::byte> data, std::uint64_t begin,
                                        std::uint64_t end, const std::string& context);

}  // namespace attnscope::io
