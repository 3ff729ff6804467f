// Checked access to the JSON files of a tokenizer (tokenizer.json, vocab.json,
// tokenizer_config.json). Every failure throws FormatError "<file>: <JSON path>: <reason>", so a
// malformed file names where it went wrong instead of crashing. Private to attnscope_tokenize.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attnscope/io/json_text.h"

namespace attnscope::tokenize::detail {

using Json = nlohmann::json;

// A position in a JSON file: the file and a path such as "$.model.vocab".
struct JsonAt {
    std::string file;
    std::string path = "$";

    JsonAt operator[](std::string_view key) const;
    JsonAt operator[](std::size_t index) const;
};

// Unreadable, malformed or too deeply nested files throw FormatError.
using io::readJsonFile;

[[noreturn]] void failAt(const JsonAt& at, const std::string& reason);

// The name of a JSON value's type, for "expected X, found Y" messages.
std::string typeName(const Json& value);

void expectObject(const Json& value, const JsonAt& at);
void expectArray(const Json& value, const JsonAt& at);

// obj[key]; FormatError when obj is not an object or lacks the key.
const Json& member(const Json& obj, const JsonAt& at, std::string_view key);
// obj[key], or nullptr when absent or null.
const Json* optionalMember(const Json& obj, std::string_view key);

std::string asString(const Json& value, const JsonAt& at);
bool asBool(const Json& value, const JsonAt& at);
std::int64_t asInt(const Json& value, const JsonAt& at);
// A token id: an integer in [0, 2^31).
std::int32_t asTokenId(const Json& value, const JsonAt& at);

std::optional<std::string> optionalString(const Json& obj, const JsonAt& at, std::string_view key);
std::optional<bool> optionalBool(const Json& obj, const JsonAt& at, std::string_view key);

// A special token in tokenizer_config.json: "[CLS]" or {"content": "[CLS]", ...}.
std::optional<std::string> optionalTokenContent(const Json& obj, const JsonAt& at,
                                                std::string_view key);

}  // namespace attnscope::tokenize::detail
