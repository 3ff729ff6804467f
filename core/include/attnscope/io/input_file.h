// Opening the files a user points AttnScope at, which may be anything: a missing path, a
// directory, a FIFO that would block forever, a device, a symlink loop. Only regular files are
// read; every refusal is a FormatError "<file>: <reason>" with the operating system's reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace attnscope::io {

// What a path is, following symlinks, without throwing (std::filesystem::exists throws on a
// symlink loop). `error` holds errno when the path could not be examined at all. A symlink whose
// target is missing is Unreadable, not Missing: the name is there, so opening it reports the
// broken link ("cannot open: it is a symbolic link to '<target>', which does not exist").
struct PathKind {
    enum Kind { Missing, Regular, Directory, Other, Unreadable } kind = Missing;

    int error = 0;

    bool exists() const { return kind != Missing; }
};

PathKind pathKind(const std::filesystem::path& path);

// Throws FormatError unless `path` is a regular file: "<file>: cannot open: No such file or
// directory", "<file>: is a directory, expected a file", "<file>: is a FIFO (named pipe), not a
// regular file", "<file>: cannot open: Too many levels of symbolic links".
void requireRegularFile(const std::filesystem::path& path);

// Throws FormatError unless `path` is a folder: "<dir>: cannot open: <OS reason>" (missing,
// symlink loop, no permission) or "<dir>: not a folder (expected <expected>)".
void requireDirectory(const std::filesystem::path& path, const std::string& expected);

// An open read-only descriptor of a regular file, checked with fstat after opening (so the
// check and the read see the same file). Opening never blocks, even on a FIFO.
class InputFile {
public:
    explicit InputFile(const std::filesystem::path& path);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    int fd() const { return m_fd; }

    std::uint64_t size() const { return m_size; }

private:
    int m_fd = -1;
    std::uint64_t m_size = 0;
};

// A stream over a regular file, for readers that go line by line (requireRegularFile first, so
// a FIFO is refused instead of blocking the open).
std::ifstream openTextFile(const std::filesystem::path& path);

// The whole file as bytes. Refuses files over `maxBytes` with a message naming the limit and
// `what` the file is for (e.g. "a JSON file").
std::string readWholeFile(const std::filesystem::path& path, std::uint64_t maxBytes,
                          const char* what);

}  // namespace attnscope::io
