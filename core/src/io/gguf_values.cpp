// GGUF metadata values: decoding the validated bytes of one value, and the typed reads a
// loader makes with their error messages.
#include <cstring>
#include <limits>

#include "attnscope/base/error.h"
#include "attnscope/io/gguf.h"
#include "gguf_cursor.h"

namespace attnscope::io {

namespace {

constexpr std::string_view kTypeNames[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                           "bool", "string", "array", "u64", "i64", "f64"};

template <class T>
T load(const std::byte* p) {
    T v{};
    std::memcpy(&v, p, sizeof(T));
    return v;
}

// The integer at p of an integer type, widened with its sign; nullopt for other types.
std::optional<std::int64_t> signedAt(GgufType type, const std::byte* p, bool& tooLarge) {
    tooLarge = false;
    switch (type) {
        case GgufType::U8:
            return load<std::uint8_t>(p);
        case GgufType::I8:
            return load<std::int8_t>(p);
        case GgufType::U16:
            return load<std::uint16_t>(p);
        case GgufType::I16:
            return load<std::int16_t>(p);
        case GgufType::U32:
            return load<std::uint32_t>(p);
        case GgufType::I32:
            return load<std::int32_t>(p);
        case GgufType::I64:
            return load<std::int64_t>(p);
        case GgufType::U64: {
            const auto u = load<std::uint64_t>(p);
            tooLarge = u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
            return tooLarge ? 0 : static_cast<std::int64_t>(u);
        }
        default:
            return std::nullopt;
    }
}

std::optional<double> numberAtBytes(GgufType type, const std::byte* p) {
    if (type == GgufType::F32) {
        return load<float>(p);
    }
    if (type == GgufType::F64) {
        return load<double>(p);
    }
    if (type == GgufType::U64) {
        return static_cast<double>(load<std::uint64_t>(p));
    }
    bool tooLarge = false;
    const auto i = signedAt(type, p, tooLarge);
    return i ? std::optional<double>(static_cast<double>(*i)) : std::nullopt;
}

}  // namespace

std::string_view ggufTypeName(GgufType type) {
    const auto i = static_cast<std::size_t>(type);
    return i < std::size(kTypeNames) ? kTypeNames[i] : "?";
}

std::optional<std::uint64_t> GgufValue::asUnsigned() const {
    if (type == GgufType::U64) {
        return load<std::uint64_t>(bytes.data());
    }
    bool tooLarge = false;
    const auto i = type == GgufType::Array || type == GgufType::String
                       ? std::nullopt
                       : signedAt(type, bytes.data(), tooLarge);
    return i && *i >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*i))
                        : std::nullopt;
}

std::optional<std::int64_t> GgufValue::asSigned() const {
    if (type == GgufType::Array || type == GgufType::String) {
        return std::nullopt;
    }
    bool tooLarge = false;
    const auto i = signedAt(type, bytes.data(), tooLarge);
    return tooLarge ? std::nullopt : i;
}

std::optional<double> GgufValue::asNumber() const {
    if (type == GgufType::Array || type == GgufType::String || type == GgufType::Bool) {
        return std::nullopt;
    }
    return numberAtBytes(type, bytes.data());
}

std::optional<bool> GgufValue::asBool() const {
    if (type != GgufType::Bool) {
        return std::nullopt;
    }
    return bytes[0] == std::byte{1};
}

std::optional<std::string_view> GgufValue::asString() const {
    if (type != GgufType::String) {
        return std::nullopt;
    }
    return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string GgufValue::describe() const {
    const std::string name(ggufTypeName(type));
    if (type == GgufType::Array) {
        return "array of " + std::to_string(count) + " " + std::string(ggufTypeName(elementType));
    }
    if (type == GgufType::String) {
        return "string '" + clipped(*asString(), 40) + "'";
    }
    if (type == GgufType::Bool) {
        return *asBool() ? "bool true" : "bool false";
    }
    if (type == GgufType::F32 || type == GgufType::F64) {
        return name + " " + std::to_string(*asNumber());
    }
    if (type == GgufType::U64) {
        return name + " " + std::to_string(*asUnsigned());
    }
    return name + " " + std::to_string(*asSigned());
}

std::string GgufFile::where(std::string_view key) const {
    return path().string() + ": key '" + std::string(key) + "'";
}

namespace {

// The value of `key` read by `as`; nullopt when absent, FormatError naming what was expected
// and what was found when `as` cannot read it.
template <class T>
std::optional<T> typedAt(const GgufFile& f, std::string_view key,
                         std::optional<T> (GgufValue::*as)() const, const char* expected) {
    const GgufValue* v = f.find(key);
    if (v == nullptr) {
        return std::nullopt;
    }
    const std::optional<T> out = (v->*as)();
    if (!out) {
        throw FormatError(f.where(key) + ": expected " + expected + ", found " + v->describe());
    }
    return out;
}

}  // namespace

std::optional<std::uint64_t> GgufFile::unsignedAt(std::string_view key) const {
    return typedAt(*this, key, &GgufValue::asUnsigned, "a non-negative integer");
}

std::optional<double> GgufFile::numberAt(std::string_view key) const {
    return typedAt(*this, key, &GgufValue::asNumber, "a number");
}

std::optional<bool> GgufFile::boolAt(std::string_view key) const {
    return typedAt(*this, key, &GgufValue::asBool, "a bool");
}

std::optional<std::string_view> GgufFile::stringAt(std::string_view key) const {
    return typedAt(*this, key, &GgufValue::asString, "a string");
}

const GgufValue& GgufFile::arrayOf(std::string_view key, GgufType element, bool numeric,
                                   const GgufValue& value) const {
    const bool ok =
        value.type == GgufType::Array &&
        (numeric ? ggufScalarBytes(value.elementType) > 0 && value.elementType != GgufType::Bool
                 : value.elementType == element);
    if (!ok) {
        throw FormatError(where(key) + ": expected an array of " +
                          (numeric ? std::string("numbers") : std::string(ggufTypeName(element))) +
                          ", found " + value.describe());
    }
    return value;
}

std::vector<std::string_view> GgufFile::stringArray(std::string_view key) const {
    const GgufValue* v = find(key);
    if (v == nullptr) {
        return {};
    }
    const GgufValue& a = arrayOf(key, GgufType::String, false, *v);
    std::vector<std::string_view> out;
    out.reserve(a.count);
    const std::byte* p = a.bytes.data();
    for (std::uint64_t i = 0; i < a.count; ++i) {
        const auto n = load<std::uint64_t>(p);  // validated when the file was opened
        out.emplace_back(reinterpret_cast<const char*>(p + 8), n);
        p += 8 + n;
    }
    return out;
}

std::vector<double> GgufFile::numberArray(std::string_view key) const {
    const GgufValue* v = find(key);
    if (v == nullptr) {
        return {};
    }
    const GgufValue& a = arrayOf(key, GgufType::F64, true, *v);
    const std::uint64_t size = ggufScalarBytes(a.elementType);
    std::vector<double> out;
    out.reserve(a.count);
    for (std::uint64_t i = 0; i < a.count; ++i) {
        out.push_back(*numberAtBytes(a.elementType, a.bytes.data() + i * size));
    }
    return out;
}

}  // namespace attnscope::io
