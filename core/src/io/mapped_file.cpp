#include "attnscope/io/mapped_file.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attnscope/base/error.h"

namespace attnscope::io {

namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what) {
    throw FormatError(path.string() + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) : m_path(path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail(path, "cannot open");
    }

    struct stat st {};

    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        fail(path, "cannot stat");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw FormatError(path.string() + ": not a regular file");
    }
    m_size = static_cast<std::size_t>(st.st_size);
    if (m_size > 0) {
        void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            ::close(fd);
            fail(path, "cannot map");
        }
        m_data = static_cast<const std::byte*>(p);
    }
    ::close(fd);
}

MappedFile::~MappedFile() {
    release();
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        m_path = std::move(other.m_path);
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
    }
    return *this;
}

// madvise rather than reading tensors with pread: the header checks, the tests and the
// reference readers all work on spans of the mapping, and MADV_DONTNEED gives the same peak
// (a tensor's pages are resident only while it is copied) without a second code path.
void MappedFile::dropPages(std::span<const std::byte> range) const noexcept {
    const auto base = reinterpret_cast<std::uintptr_t>(m_data);
    const auto begin = reinterpret_cast<std::uintptr_t>(range.data());
    if (m_data == nullptr || range.empty() || begin < base || begin - base > m_size ||
        range.size() > m_size - (begin - base)) {
        return;  // not a part of this mapping
    }
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t end = begin + range.size();
    // Inward to whole pages: an edge page shared with a neighbouring tensor is left alone.
    const std::uintptr_t first = (begin + page - 1) / page * page;
    const std::uintptr_t last = end / page * page;
    if (first < last) {
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
    }
}

void MappedFile::release() noexcept {
    if (m_data != nullptr) {
        ::munmap(const_cast<std::byte*>(m_data), m_size);
        m_data = nullptr;
    }
}

}  // namespace attnscope::io
