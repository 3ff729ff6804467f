#include "attnscope/export/output_file.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attnscope/base/error.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxLinks = 40;  // as the kernel's own limit on symlinks in one lookup

[[noreturn]] void failErrno(const fs::path& path, const std::string& what, int err) {
    throw Error(path.string() + ": " + what + ": " + std::strerror(err));
}

// Follows a chain of symlinks to the path that is not one (which may not exist yet).
fs::path followLinks(const fs::path& path) {
    fs::path p = path;
    for (int hops = 0;; ++hops) {
        struct stat st {};

        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
            return p;
        }
        if (hops == kMaxLinks) {
            failErrno(path, "cannot write", ELOOP);
        }
        std::error_code ec;
        const fs::path target = fs::read_symlink(p, ec);
        if (ec) {
            failErrno(path, "cannot follow the link", ec.value());
        }
        p = target.is_absolute() ? target : p.parent_path() / target;
    }
}

void writeAll(int fd, std::string_view bytes, const fs::path& path) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            failErrno(path, "cannot write", n < 0 ? errno : EIO);
        }
        done += static_cast<std::size_t>(n);
    }
}

// Closes `fd`; a delayed write error (NFS, a full disk) shows up only here.
void closeChecked(int fd, const fs::path& path) {
    if (::close(fd) != 0 && errno != EINTR) {
        failErrno(path, "cannot write", errno);
    }
}

// Writes everything and closes `fd`, also when writing fails.
void writeAndClose(int fd, std::string_view bytes, const fs::path& path) {
    try {
        writeAll(fd, bytes, path);
    } catch (...) {
        ::close(fd);
        throw;
    }
    closeChecked(fd, path);
}

void writeThrough(const fs::path& path, std::string_view bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_TRUNC);
    if (fd < 0) {
        failErrno(path, "cannot open for writing", errno);
    }
    writeAndClose(fd, bytes, path);
}

// A name beside `file` that no other AttnScope process uses at the same time.
fs::path temporaryBeside(const fs::path& file) {
    fs::path tmp = file;
    tmp += ".tmp-" + std::to_string(::getpid());
    return tmp;
}

void renameIntoPlace(const fs::path& tmp, const OutputTarget& target) {
    std::error_code ec;
    fs::rename(tmp, target.file, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw Error(target.requested.string() +
                    ": cannot move the finished file into place: " + ec.message());
    }
}

}  // namespace

OutputTarget resolveOutput(const fs::path& path) {
    OutputTarget target{path, path, false};

    struct stat st {};

    // stat follows every link, including /proc's (/dev/stdout -> /proc/self/fd/1 -> a pipe).
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ELOOP) {
            failErrno(path, "cannot write", ELOOP);
        }
        target.file = followLinks(path);  // a new file, or a dangling link's target
        return target;
    }
    if (S_ISDIR(st.st_mode)) {
        throw Error(path.string() + ": is a folder; give a file name");
    }
    target.writeThrough = !S_ISREG(st.st_mode);
    if (!target.writeThrough) {
        target.file = followLinks(path);
    }
    return target;
}

void writeOutputFile(const fs::path& path, std::string_view bytes) {
    const OutputTarget target = resolveOutput(path);
    if (target.writeThrough) {
        writeThrough(path, bytes);
        return;
    }
    const fs::path tmp = temporaryBeside(target.file);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        failErrno(path, "cannot create the temporary file " + tmp.filename().string(), errno);
    }
    try {
        writeAndClose(fd, bytes, path);
    } catch (...) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw;
    }
    renameIntoPlace(tmp, target);
}

void checkOutputWritable(const fs::path& path) {
    const OutputTarget target = resolveOutput(path);
    if (target.writeThrough) {
        struct stat st {};

        if (::stat(path.c_str(), &st) == 0 && !S_ISFIFO(st.st_mode) &&
            ::access(path.c_str(), W_OK) != 0) {
            const int err = errno;
            failErrno(path, "cannot open for writing", err);
        }
        return;
    }
    const fs::path folder =
        target.file.parent_path().empty() ? fs::path(".") : target.file.parent_path();

    struct stat st {};

    if (::stat(folder.c_str(), &st) != 0) {
        const int err = errno;
        throw Error(path.string() + ": cannot write: the folder '" + folder.string() +
                    (err == ENOENT ? "' does not exist" : "' cannot be opened: ") +
                    (err == ENOENT ? "" : std::strerror(err)));
    }
    if (!S_ISDIR(st.st_mode)) {
        throw Error(path.string() + ": cannot write: '" + folder.string() + "' is not a folder");
    }
    const fs::path tmp = temporaryBeside(target.file);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        const int err = errno;
        failErrno(path, "cannot create the temporary file " + tmp.filename().string(), err);
    }
    ::close(fd);
    ::unlink(tmp.c_str());
}

}  // namespace attnscope::exporting
