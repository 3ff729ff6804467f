// A bounds-checked little-endian reader over a GGUF file's bytes: every read first checks that
// the bytes are there, so no size or length from the file can move it past the end. Internal
// to the GGUF reader.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "attnscope/base/error.h"
#include "attnscope/io/gguf.h"

namespace attnscope::io {

// Bytes of a scalar value of `type` (0 for strings and arrays, which carry their length).
inline std::uint64_t ggufScalarBytes(GgufType type) {
    switch (type) {
        case GgufType::U8:
        case GgufType::I8:
        case GgufType::Bool:
            return 1;
        case GgufType::U16:
        case GgufType::I16:
            return 2;
        case GgufType::U32:
        case GgufType::I32:
        case GgufType::F32:
            return 4;
        case GgufType::U64:
        case GgufType::I64:
        case GgufType::F64:
            return 8;
        default:
            return 0;
    }
}

class GgufCursor {
public:
    GgufCursor(std::span<const std::byte> bytes, const std::string& file)
        : m_bytes(bytes), m_file(file) {}

    std::uint64_t pos() const { return m_pos; }

    std::uint64_t left() const { return m_bytes.size() - m_pos; }

    // The next n bytes; `what` names them in the error when the file ends first.
    std::span<const std::byte> take(std::uint64_t n, const std::string& what) {
        if (n > left()) {
            throw FormatError(m_file + ": byte " + std::to_string(m_pos) + ": file ends inside " +
                              what + " (needs " + std::to_string(n) + " bytes, " +
                              std::to_string(left()) + " left)");
        }
        const auto out = m_bytes.subspan(m_pos, n);
        m_pos += n;
        return out;
    }

    void skip(std::uint64_t n) { take(n, "the header"); }

    std::uint32_t u32(const std::string& what) { return read<std::uint32_t>(what); }

    std::uint64_t u64(const std::string& what) { return read<std::uint64_t>(what); }

    // A GGUF string: a uint64 length, then that many bytes (not NUL-terminated).
    std::string_view string(const std::string& what, std::uint64_t maxBytes) {
        const std::uint64_t at = m_pos;
        const std::uint64_t n = u64("the length of " + what);
        if (n > maxBytes) {
            throw FormatError(m_file + ": byte " + std::to_string(at) + ": " + what + ": length " +
                              std::to_string(n) + " exceeds the limit of " +
                              std::to_string(maxBytes) + " bytes");
        }
        if (n > left()) {
            throw FormatError(m_file + ": byte " + std::to_string(at) + ": " + what + ": length " +
                              std::to_string(n) + " exceeds the " + std::to_string(left()) +
                              " bytes left in the file");
        }
        const auto bytes = take(n, what);
        return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
    }

private:
    template <class T>
    T read(const std::string& what) {
        T value{};
        std::memcpy(&value, take(sizeof(T), what).data(), sizeof(T));  // x86: little-endian
        return value;
    }

    std::span<const std::byte> m_bytes;
    const std::string& m_file;
    std::uint64_t m_pos = 0;
};

}  // namespace attnscope::io
