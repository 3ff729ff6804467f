#include "json_reader.h"

#include <limits>

#include "attnscope/base/error.h"

namespace attnscope::tokenize::detail {

JsonAt JsonAt::operator[](std::string_view key) const {
    return {file, path + "." + std::string(key)};
}

JsonAt JsonAt::operator[](std::size_t index) const {
    return {file, path + "[" + std::to_string(index) + "]"};
}

void failAt(const JsonAt& at, const std::string& reason) {
    throw FormatError(at.file + ": " + at.path + ": " + reason);
}

std::string typeName(const Json& value) {
    return value.type_name();
}

void expectObject(const Json& value, const JsonAt& at) {
    if (!value.is_object()) {
        failAt(at, "expected an object, found " + typeName(value));
    }
}

void expectArray(const Json& value, const JsonAt& at) {
    if (!value.is_array()) {
        failAt(at, "expected an array, found " + typeName(value));
    }
}

const Json& member(const Json& obj, const JsonAt& at, std::string_view key) {
    expectObject(obj, at);
    const auto it = obj.find(key);
    if (it == obj.end()) {
        failAt(at, "missing member \"" + std::string(key) + "\"");
    }
    return *it;
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
        failAt(at, "expected a string, found " + typeName(value));
    }
    return value.get<std::string>();
}

bool asBool(const Json& value, const JsonAt& at) {
    if (!value.is_boolean()) {
        failAt(at, "expected true or false, found " + typeName(value));
    }
    return value.get<bool>();
}

std::int64_t asInt(const Json& value, const JsonAt& at) {
    if (value.is_number_unsigned()) {
        const auto v = value.get<std::uint64_t>();
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            failAt(at, "integer " + std::to_string(v) + " is too large");
        }
        return static_cast<std::int64_t>(v);
    }
    if (!value.is_number_integer()) {
        failAt(at, "expected an integer, found " + typeName(value));
    }
    return value.get<std::int64_t>();
}

std::int32_t asTokenId(const Json& value, const JsonAt& at) {
    const std::int64_t v = asInt(value, at);
    if (v < 0 || v > std::numeric_limits<std::int32_t>::max()) {
        failAt(at, "token id " + std::to_string(v) + " out of range, expected 0 to 2^31-1");
    }
    return static_cast<std::int32_t>(v);
}

std::optional<std::string> optionalString(const Json& obj, const JsonAt& at, std::string_view key) {
    const Json* v = optionalMember(obj, key);
    if (v == nullptr) {
        return std::nullopt;
    }
    return asString(*v, at[key]);
}

std::optional<bool> optionalBool(const Json& obj, const JsonAt& at, std::string_view key) {
    const Json* v = optionalMember(obj, key);
    if (v == nullptr) {
        return std::nullopt;
    }
    return asBool(*v, at[key]);
}

std::optional<std::string> optionalTokenContent(const Json& obj, const JsonAt& at,
                                                std::string_view key) {
    const Json* v = optionalMember(obj, key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (v->is_object()) {
        return asString(member(*v, at[key], "content"), at[key]["content"]);
    }
    return asString(*v, at[key]);
}

}  // namespace attnscope::tokenize::detail
