#include "attnscope/io/json_file.h"

#include <limits>

#include "attnscope/io/json_access.h"
#include "attnscope/io/json_text.h"

namespace attnscope::io {

namespace {

constexpr std::int64_t kIntMin = std::numeric_limits<int>::min();
constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

}  // namespace

JsonFile::JsonFile(const std::filesystem::path& path)
    : m_json(readJsonFile(path)), m_file(path.string()) {
    expectObject(m_json, at());
}

JsonFile::JsonFile(Json j, std::string fileName)
    : m_json(std::move(j)), m_file(std::move(fileName)) {}

bool JsonFile::has(const std::string& key) const {
    return optionalMember(m_json, key) != nullptr;
}

std::optional<int> JsonFile::optionalInt(const std::string& key) const {
    const auto v = io::optionalInt(m_json, at(), key, kIntMin, kIntMax, "an integer");
    return v ? std::optional(static_cast<int>(*v)) : std::nullopt;
}

int JsonFile::positiveInt(const std::string& key) const {
    return static_cast<int>(
        asInt(member(m_json, at(), key), at()[key], 1, kIntMax, "a positive integer"));
}

int JsonFile::positiveIntOf(std::initializer_list<const char*> keys) const {
    for (const char* key : keys) {
        if (has(key)) {
            return positiveInt(key);
        }
    }
    std::string names;
    for (const char* key : keys) {
        names += (names.empty() ? "" : " or $.") + std::string(key);
    }
    failAt(at()[names], "missing");
}

double JsonFile::number(const std::string& key, double fallback) const {
    return optionalNumber(m_json, at(), key).value_or(fallback);
}

std::string JsonFile::string(const std::string& key, const std::string& fallback) const {
    return optionalString(m_json, at(), key).value_or(fallback);
}

bool JsonFile::boolean(const std::string& key, bool fallback) const {
    return optionalBool(m_json, at(), key).value_or(fallback);
}

}  // namespace attnscope::io
