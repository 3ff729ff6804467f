// Reading JSON files (config.json, tokenizer_config.json, shard indexes) with errors that name
// the file and the JSON path. Thread-compatible: a JsonFile is immutable after construction.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "attnscope/io/json_access.h"
#include "attnscope/io/json_text.h"

namespace attnscope::io {

// Typed access to the top-level keys of a JSON object, e.g. a model's config.json.
class JsonFile {
public:
    explicit JsonFile(const std::filesystem::path& path);
    JsonFile(nlohmann::json json, std::string fileName);

    const std::string& fileName() const { return m_file; }

    const nlohmann::json& root() const { return m_json; }

    // The top level's place, for reading nested values with json_access.h.
    JsonAt at() const { return {m_file}; }

    // Present and not null.
    bool has(const std::string& key) const;

    // These throw FormatError as json_access.h does, e.g. "<file>: $.<key>: missing" or
    // "<file>: $.<key>: expected a positive integer, found <value>"; those with a fallback
    // return it for an absent or null key.
    // A positive integer that fits an int.
    int positiveInt(const std::string& key) const;
    std::optional<int> optionalInt(const std::string& key) const;
    // The first of `keys` that is present, as a positive integer (configs rename keys).
    int positiveIntOf(std::initializer_list<const char*> keys) const;
    double number(const std::string& key, double fallback) const;
    std::string string(const std::string& key, const std::string& fallback) const;
    bool boolean(const std::string& key, bool fallback) const;

private:
    nlohmann::json m_json;
    std::string m_file;
};

}  // namespace attnscope::io
