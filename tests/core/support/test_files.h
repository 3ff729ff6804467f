// Test helpers for building files on disk: raw safetensors bytes (so tests can corrupt any
// field) and scratch folders that copy a generated checkpoint.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

namespace attnscope::testing {

struct RawTensor {
    std::string name;
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::string data;  // raw bytes
};

inline std::string floatBytes(const std::vector<float>& values) {
    std::string out(values.size() * 4, '\0');
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

// Header JSON for `tensors` laid out back to back, as safetensors writers do.
inline nlohmann::json headerFor(const std::vector<RawTensor>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const RawTensor& t : tensors) {
        header[t.name] = {{"dtype", t.dtype},
                          {"shape", t.shape},
                          {"data_offsets", {offset, offset + t.data.size()}}};
        offset += t.data.size();
    }
    return header;
}

// The file bytes for a header (given as text, so tests can break it) and a data area.
inline std::string safetensorsBytes(const std::string& headerText, const std::string& data) {
    std::string out(8, '\0');
    std::uint64_t n = headerText.size();
    for (int i = 0; i < 8; ++i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    }
    return out + headerText + data;
}

inline std::string safetensorsBytes(const std::vector<RawTensor>& tensors) {
    std::string data;
    for (const RawTensor& t : tensors) {
        data += t.data;
    }
    return safetensorsBytes(headerFor(tensors).dump(), data);
}

inline void writeFile(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class ScratchDir {
public:
    ScratchDir() {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "attnscope-test-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr) {
            throw std::runtime_error("mkdtemp failed");
        }
        m_path = tmpl;
    }

    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }

    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }

    // Copies every file of `source` into a subfolder `name` and returns its path.
    std::filesystem::path copyOf(const std::filesystem::path& source, const std::string& name) {
        const auto dest = m_path / name;
        std::filesystem::create_directories(dest);
        for (const auto& entry : std::filesystem::directory_iterator(source)) {
            std::filesystem::copy(entry.path(), dest / entry.path().filename());
        }
        return dest;
    }

private:
    std::filesystem::path m_path;
};

// The path `name` in a scratch folder of its own, for a test that writes one file there; it
// converts to that path, so that the test passes it wherever a path goes.
class ScratchFile {
public:
    explicit ScratchFile(const std::string& name) : m_path(m_dir.path() / name) {}

    const std::filesystem::path& path() const { return m_path; }

    operator const std::filesystem::path&() const { return m_path; }

private:
    ScratchDir m_dir;
    std::filesystem::path m_path;
};

// Rewrites a JSON file through `edit`.
template <class Fn>
void editJson(const std::filesystem::path& path, Fn&& edit) {
    auto j = nlohmann::json::parse(readFile(path));
    edit(j);
    writeFile(path, j.dump(2));
}

}  // namespace attnscope::testing
