#include "attnscope/io/mapped_file.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"

namespace attnscope::io {

namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what) {
    throw FormatError(path.string() + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) : m_path(path) {
    const InputFile file(path);  // only regular files: a FIFO or device cannot be mapped
    if (file.size() > std::numeric_limits<std::size_t>::max()) {
        throw FormatError(path.string() + ": too large to map");
    }
    m_size = static_cast<std::size_t>(file.size());
    if (m_size > 0) {
        void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
        if (p == MAP_FAILED) {
            fail(path, "cannot map");
        }
        m_data = static_cast<const std::byte*>(p);
    }
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
