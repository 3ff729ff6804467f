#include "attnscope/io/input_file.h"

#include <cerrno>
#include <cstring>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attnscope/base/error.h"

namespace attnscope::io {

namespace {

std::string osReason(int err) {
    return std::strerror(err);
}

// Why a file of this mode cannot be read as a file, or "" for a regular file.
std::string refusal(mode_t mode) {
    if (S_ISREG(mode)) {
        return "";
    }
    if (S_ISDIR(mode)) {
        return "is a directory, expected a file";
    }
    if (S_ISFIFO(mode)) {
        return "is a FIFO (named pipe), not a regular file";
    }
    if (S_ISSOCK(mode)) {
        return "is a socket, not a regular file";
    }
    if (S_ISCHR(mode) || S_ISBLK(mode)) {
        return "is a device, not a regular file";
    }
    return "is not a regular file";
}

// Why `path` cannot be opened, given the errno of the failed stat or open. A symlink whose
// target is missing (an interrupted Hugging Face download leaves them) is named as such, with its
// target, instead of a bare "No such file or directory" about a name the user can see.
std::string cannotOpen(const std::filesystem::path& path, int err) {
    struct stat st {};

    if (err == ENOENT && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        std::error_code ec;
        const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
        return "cannot open: it is a symbolic link to '" +
               (ec ? std::string("?") : target.string()) + "', which does not exist";
    }
    return "cannot open: " + osReason(err);
}

}  // namespace

PathKind pathKind(const std::filesystem::path& path) {
    struct stat st {};

    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;

        // A dangling symlink is there but broken: opening it names the link and its target.
        struct stat link {};

        const bool dangling = err == ENOENT && ::lstat(path.c_str(), &link) == 0;
        return {(err == ENOENT || err == ENOTDIR) && !dangling ? PathKind::Missing
                                                               : PathKind::Unreadable,
                err};
    }
    if (S_ISREG(st.st_mode)) {
        return {PathKind::Regular, 0};
    }
    return {S_ISDIR(st.st_mode) ? PathKind::Directory : PathKind::Other, 0};
}

void requireRegularFile(const std::filesystem::path& path) {
    struct stat st {};

    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        throw FormatError(path.string() + ": " + cannotOpen(path, err));
    }
    if (const std::string why = refusal(st.st_mode); !why.empty()) {
        throw FormatError(path.string() + ": " + why);
    }
}

void requireDirectory(const std::filesystem::path& path, const std::string& expected) {
    struct stat st {};

    if (::stat(path.c_str(), &st) != 0) {
        throw FormatError(path.string() + ": cannot open: " + osReason(errno) + " (expected " +
                          expected + ")");
    }
    if (!S_ISDIR(st.st_mode)) {
        throw FormatError(path.string() + ": not a folder (expected " + expected + ")");
    }
}

std::ifstream openTextFile(const std::filesystem::path& path) {
    requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw FormatError(path.string() + ": cannot open: " + osReason(errno));
    }
    return in;
}

InputFile::InputFile(const std::filesystem::path& path) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (m_fd < 0) {
        const int err = errno;
        throw FormatError(path.string() + ": " + cannotOpen(path, err));
    }

    struct stat st {};

    if (::fstat(m_fd, &st) != 0) {
        const int err = errno;
        ::close(m_fd);
        throw FormatError(path.string() + ": cannot examine the file: " + osReason(err));
    }
    if (const std::string why = refusal(st.st_mode); !why.empty()) {
        ::close(m_fd);
        throw FormatError(path.string() + ": " + why);
    }
    m_size = static_cast<std::uint64_t>(st.st_size);
}

InputFile::~InputFile() {
    ::close(m_fd);
}

std::string readWholeFile(const std::filesystem::path& path, std::uint64_t maxBytes,
                          const char* what) {
    const InputFile file(path);
    if (file.size() > maxBytes) {
        throw FormatError(path.string() + ": " + std::to_string(file.size()) +
                          " bytes is too large for " + what + " (at most " +
                          std::to_string(maxBytes) + ")");
    }
    std::string bytes(static_cast<std::size_t>(file.size()), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(file.fd(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            throw FormatError(path.string() + ": cannot read: " + osReason(errno));
        }
        if (n == 0) {
            bytes.resize(done);  // the file shrank while being read
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    return bytes;
}

}  // namespace attnscope::io
