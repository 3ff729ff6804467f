// Checked, typed access to parsed JSON, shared by every reader of a JSON file (config.json,
// tokenizer.json, tokenizer_config.json, vocab.json, io::JsonFile). Every failure throws
// FormatError "<file>: <key path>: <reason>", e.g.
//   config.json: $.rope_theta: expected a number, found "abc"
//   tokenizer.json: $.added_tokens[3].content: expected a string, found 7
// so a wrong file says where it is wrong and a value of the wrong type is never skipped quietly.
// Members that are absent or null count as absent: Hugging Face writes null for "not set".
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attnscope::io {

using Json = nlohmann::json;

// A place in a JSON file: the file and the JSONPath of a value ("$" is the top level,
// "$.model.vocab", "$.added_tokens[3].content").
struct JsonAt {
    std::string file;
    std::string path = "$";

    JsonAt operator[](std::string_view key) const;
    JsonAt operator[](std::size_t index) const;
};

[[noreturn]] void failAt(const JsonAt& at, const std::string& reason);

void expectObject(const Json& value, const JsonAt& at);
void expectArray(const Json& value, const JsonAt& at);

// obj[key]; FormatError "<file>: <path>.<key>: missing" when absent or null, or when obj is
// not an object.
const Json& member(const Json& obj, const JsonAt& at, std::string_view key);
// obj[key], or nullptr when absent or null, or when obj is not an object.
const Json* optionalMember(const Json& obj, std::string_view key);

std::string asString(const Json& value, const JsonAt& at);
bool asBool(const Json& value, const JsonAt& at);
double asNumber(const Json& value, const JsonAt& at);
// An integer in [min, max]. `what` is the expectation the message states ("a positive
// integer"); by default "an integer" or "an integer from <min> to <max>".
std::int64_t asInt(const Json& value, const JsonAt& at,
                   std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                   std::int64_t max = std::numeric_limits<std::int64_t>::max(),
                   std::string_view what = {});

// obj[key] as the type named, nullopt (nullptr) when absent or null; a present value of the
// wrong type throws. `at` is the place of obj.
std::optional<std::string> optionalString(const Json& obj, const JsonAt& at, std::string_view key);
std::optional<bool> optionalBool(const Json& obj, const JsonAt& at, std::string_view key);
std::optional<double> optionalNumber(const Json& obj, const JsonAt& at, std::string_view key);
std::optional<std::int64_t> optionalInt(const Json& obj, const JsonAt& at, std::string_view key,
                                        std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                        std::int64_t max = std::numeric_limits<std::int64_t>::max(),
                                        std::string_view what = {});
const Json* optionalObject(const Json& obj, const JsonAt& at, std::string_view key);
const Json* optionalArray(const Json& obj, const JsonAt& at, std::string_view key);

}  // namespace attnscope::io
