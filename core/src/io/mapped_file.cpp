#include "attnscope/io/mapped_file.h"

#include <cerrno>
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

void MappedFile::release() noexcept {
    if (m_data != nullptr) {
        ::munmap(const_cast<std::byte*>(m_data), m_size);
        m_data = nullptr;
    }
}

}  // namespace attnscope::io
