// A read-only memory mapping of a whole file (RAII). Weights are read straight from the
// mapping, so a large checkpoint is never read into memory twice. Movable, not copyable.
// Throws FormatError naming the file when it cannot be opened or mapped.
//
// Pages that have been read stay in the process's resident set until unmapped; a loader that
// copies each tensor out calls dropPages() after the copy, so the peak while loading is the
// copies plus about one tensor, not the copies plus the whole file.
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

    // Takes the whole pages inside `range` (a part of bytes()) out of the resident set. The
    // mapping is private and never written, so the next read of them simply faults them in
    // again from the file: the bytes seen do not change, and calling this while other threads
    // read is safe. Only a hint: failures are ignored.
    void dropPages(std::span<const std::byte> range) const noexcept;

    const std::filesystem::path& path() const { return m_path; }

private:
    void release() noexcept;

    std::filesystem::path m_path;
    const std::byte* m_data = nullptr;
    std::size_t m_size = 0;
};

}  // namespace attnscope::io
