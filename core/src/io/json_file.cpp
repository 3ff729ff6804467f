#include "attnscope/io/json_file.h"

#include <fstream>
#include <limits>
#include <sstream>

#include "attnscope/base/error.h"

namespace attnscope::io {

using nlohmann::json;

json readJsonFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw FormatError(path.string() + ": cannot open");
    }
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return json::parse(text.str());
    } catch (const json::parse_error& e) {
        // nlohmann reports a byte position; convert it to line and column for people.
        const std::string s = text.str();
        const std::size_t pos = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, s.size());
        std::size_t line = 1;
        std::size_t col = 1;
        for (std::size_t i = 0; i < pos; ++i) {
            if (s[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw FormatError(path.string() + ": line " + std::to_string(line) + ", column " +
                          std::to_string(col) + ": not valid JSON");
    }
}

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
        fail(key, "expected an integer, found " + v.dump());
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
        fail(key, "expected a positive integer, found " + v.dump());
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
        fail(key, "expected a number, found " + m_json[key].dump());
    }
    return m_json[key].get<double>();
}

std::string JsonFile::string(const std::string& key, const std::string& fallback) const {
    if (!has(key)) {
        return fallback;
    }
    if (!m_json[key].is_string()) {
        fail(key, "expected a string, found " + m_json[key].dump());
    }
    return m_json[key].get<std::string>();
}

bool JsonFile::boolean(const std::string& key, bool fallback) const {
    if (!has(key)) {
        return fallback;
    }
    if (!m_json[key].is_boolean()) {
        fail(key, "expected true or false, found " + m_json[key].dump());
    }
    return m_json[key].get<bool>();
}

}  // namespace attnscope::io
