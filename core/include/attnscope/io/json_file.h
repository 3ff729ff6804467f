// Reading JSON files (config.json, tokenizer_config.json, shard indexes) with errors that name
// the file and the JSON path. Thread-compatible: a JsonFile is immutable after construction.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "attnscope/io/json_text.h"

namespace attnscope::io {

// Typed access to the top-level keys of a JSON object, e.g. a model's config.json.
class JsonFile {
public:
    explicit JsonFile(const std::filesystem::path& path);
    JsonFile(nlohmann::json json, std::string fileName);

    const std::string& fileName() const { return m_file; }

    const nlohmann::json& root() const { return m_json; }

    bool has(const std::string& key) const;
    // A positive integer; FormatError "<file>: <key>: missing" or "...: expected a positive
    // integer, found <value>".
    int positiveInt(const std::string& key) const;
    std::optional<int> optionalInt(const std::string& key) const;
    // The first of `keys` that is present, as a positive integer (configs rename keys).
    int positiveIntOf(std::initializer_list<const char*> keys) const;
    double number(const std::string& key, double fallback) const;
    std::string string(const std::string& key, const std::string& fallback) const;
    bool boolean(const std::string& key, bool fallback) const;

private:
    [[noreturn]] void fail(const std::string& key, const std::string& reason) const;

    nlohmann::json m_json;
    std::string m_file;
};

}  // namespace attnscope::io
