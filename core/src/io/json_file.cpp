#include "attnscope/io/json_file.h"

#include <limits>

#include "attnscope/base/error.h"
#include "attnscope/io/json_text.h"

namespace attnscope::io {

using nlohmann::json;

JsonFile::JsonFile(const std::filesystem::path& path)
    : m_json(readJsonFile(path)), m_file(path.string()) {
    if (!m_json.is_object()) {
        throw FormatError(m_file + ": top level: expected a JSON object");
    }
}

JsonFile::JsonFile(json j, std::string fileName)
    : m_json(std::move(j)), m_file(std::move(fileName)) {}

bool JsonFile::has(const std::string& key) const {
    return m_json.contains(key) && !m_json[key].is_null();
}

void JsonFile::fail(const std::string& key, const std::string& reason) const {
    throw FormatError(m_file + ": " + key + ": " + reason);
}

std::optional<int> JsonFile::optionalInt(const std::string& key) const {
    if (!has(key)) {
        return std::nullopt;
    }
    const nlohmann::json& v = m_json[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() < std::numeric_limits<int>::min() ||
        v.get<std::int64_t>() > std::numeric_limits<int>::max()) {
        fail(key, "expected an integer, found " + quoteJson(v));
    }
    return v.get<int>();
}

int JsonFile::positiveInt(const std::string& key) const {
    if (!has(key)) {
        fail(key, "missing");
    }
    const nlohmann::json& v = m_json[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0 ||
        v.get<std::int64_t>() > std::numeric_limits<int>::max()) {
        fail(key, "expected a positive integer, found " + quoteJson(v));
    }
    return v.get<int>();
}

int JsonFile::positiveIntOf(std::initializer_list<const char*> keys) const {
    for (const char* key : keys) {
        if (has(key)) {
            return positiveInt(key);
        }
    }
    std::string names;
    for (const char* key : keys) {
        names += (names.empty() ? "" : " or ") + std::string(key);
    }
    fail(names, "missing");
}

double JsonFile::number(const std::string& key, double fallback) const {
    if (!has(key)) {
        return fallback;
    }
    if (!m_json[key].is_number()) {
        fail(key, "expected a number, found " + quoteJson(m_json[key]));
    }
    return m_json[key].get<double>();
}

std::string JsonFile::string(const std::string& key, const std::string& fallback) const {
    if (!has(key)) {
        return fallback;
    }
    if (!m_json[key].is_string()) {
        fail(key, "expected a string, found " + quoteJson(m_json[key]));
    }
    return m_json[key].get<std::string>();
}

bool JsonFile::boolean(const std::string& key, bool fallback) const {
    if (!has(key)) {
        return fallback;
    }
    if (!m_json[key].is_boolean()) {
        fail(key, "expected true or false, found " + quoteJson(m_json[key]));
    }
    return m_json[key].get<bool>();
}

}  // namespace attnscope::io
