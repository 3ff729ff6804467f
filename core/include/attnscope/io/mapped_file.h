// A read-only memory mapping of a whole file (RAII). Weights are read straight from the
// mapping, so a large checkpoint is never read into memory twice. Movable, not copyable.
// Throws FormatError naming the file when it cannot be opened or mapped.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace attnscope::io {

class MappedFile {
public:
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const std::byte> bytes() const { return {m_data, m_size}; }

    const std::filesystem::path& path() const { return m_path; }

private:
    void release() noexcept;

    std::filesystem::path m_path;
    const std::byte* m_data = nullptr;
    std::size_t m_size = 0;
};

}  // namespace attnscope::io
