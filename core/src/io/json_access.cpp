#include "attnscope/io/json_access.h"

#include "attnscope/base/error.h"
#include "attnscope/io/json_text.h"

namespace attnscope::io {

JsonAt JsonAt::operator[](std::string_view key) const {
    return {file, path + "." + std::string(key)};
}

JsonAt JsonAt::operator[](std::size_t index) const {
    return {file, path + "[" + std::to_string(index) + "]"};
}

void failAt(const JsonAt& at, const std::string& reason) {
    throw FormatError(at.file + ": " + at.path + ": " + reason);
}

namespace {

[[noreturn]] void expected(const JsonAt& at, std::string_view what, const Json& found) {
    failAt(at, "expected " + std::string(what) + ", found " + quoteJson(found));
}

}  // namespace

void expectObject(const Json& value, const JsonAt& at) {
    if (!value.is_object()) {
        expected(at, "an object", value);
    }
}

void expectArray(const Json& value, const JsonAt& at) {
    if (!value.is_array()) {
        expected(at, "an array", value);
    }
}

const Json& member(const Json& obj, const JsonAt& at, std::string_view key) {
    expectObject(obj, at);
    const Json* value = optionalMember(obj, key);
    if (value == nullptr) {
        failAt(at[key], "missing");
    }
    return *value;
}

const Json* optionalMember(const Json& obj, std::string_view key) {
    if (!obj.is_object()) {
        return nullptr;
    }
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        return nullptr;
    }
    return &*it;
}

std::string asString(const Json& value, const JsonAt& at) {
    if (!value.is_string()) {
        expected(at, "a string", value);
    }
    return value.get<std::string>();
}

bool asBool(const Json& value, const JsonAt& at) {
    if (!value.is_boolean()) {
        expected(at, "true or false", value);
    }
    return value.get<bool>();
}

double asNumber(const Json& value, const JsonAt& at) {
    if (!value.is_number()) {
        expected(at, "a number", value);
    }
    return value.get<double>();
}

std::int64_t asInt(const Json& value, const JsonAt& at, std::int64_t min, std::int64_t max,
                   std::string_view what) {
    bool inRange = false;
    std::int64_t v = 0;
    if (value.is_number_unsigned()) {
        // Above int64's range is above any max a caller can pass.
        const auto u = value.get<std::uint64_t>();
        inRange = max >= 0 && u <= static_cast<std::uint64_t>(max);
        v = inRange ? static_cast<std::int64_t>(u) : 0;
        inRange = inRange && v >= min;
    } else if (value.is_number_integer()) {
        v = value.get<std::int64_t>();
        inRange = v >= min && v <= max;
    }
    if (!inRange) {
        constexpr auto kLowest = std::numeric_limits<std::int64_t>::min();
        constexpr auto kHighest = std::numeric_limits<std::int64_t>::max();
        const std::string range =
            min == kLowest && max == kHighest
                ? "an integer"
                : "an integer from " + std::to_string(min) + " to " + std::to_string(max);
        expected(at, what.empty() ? std::string_view(range) : what, value);
    }
    return v;
}

std::optional<std::string> optionalString(const Json& obj, const JsonAt& at, std::string_view key) {
    const Json* v = optionalMember(obj, key);
    return v != nullptr ? std::optional(asString(*v, at[key])) : std::nullopt;
}

std::optional<bool> optionalBool(const Json& obj, const JsonAt& at, std::string_view key) {
    const Json* v = optionalMember(obj, key);
    return v != nullptr ? std::optional(asBool(*v, at[key])) : std::nullopt;
}

std::optional<double> optionalNumber(const Json& obj, const JsonAt& at, std::string_view key) {
    const Json* v = optionalMember(obj, key);
    return v != nullptr ? std::optional(asNumber(*v, at[key])) : std::nullopt;
}

std::optional<std::int64_t> optionalInt(const Json& obj, const JsonAt& at, std::string_view key,
                                        std::int64_t min, std::int64_t max, std::string_view what) {
    const Json* v = optionalMember(obj, key);
    return v != nullptr ? std::optional(asInt(*v, at[key], min, max, what)) : std::nullopt;
}

const Json* optionalObject(const Json& obj, const JsonAt& at, std::string_view key) {
    const Json* v = optionalMember(obj, key);
    if (v != nullptr) {
        expectObject(*v, at[key]);
    }
    return v;
}

const Json* optionalArray(const Json& obj, const JsonAt& at, std::string_view key) {
    const Json* v = optionalMember(obj, key);
    if (v != nullptr) {
        expectArray(*v, at[key]);
    }
    return v;
}

}  // namespace attnscope::io
