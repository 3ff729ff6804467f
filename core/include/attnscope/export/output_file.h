// Where an export goes, and writing it there without harming what the path already is.
//
// A regular file, or a path that does not exist yet, is written to a temporary file beside the
// real target and renamed into place only when everything was written: a failed export never
// leaves a partial file and never destroys an older one. Symlinks are followed first, so a link
// keeps pointing where it did and the file it names gets the data. Anything else that exists —
// a device such as /dev/null or /dev/full, a FIFO, /dev/stdout on a pipe or terminal — is
// written through directly (renaming over it would replace a device node with a file). A
// directory is refused. Errors throw attnscope::Error "<path>: <reason>" with the OS reason.
#pragma once

#include <filesystem>
#include <string_view>

namespace attnscope::exporting {

struct OutputTarget {
    std::filesystem::path requested;  // as the user gave it, for messages
    std::filesystem::path file;       // symlinks resolved: the file renamed into place
    bool writeThrough = false;        // not a regular file: open it and write the bytes directly
};

OutputTarget resolveOutput(const std::filesystem::path& path);

// Writes `bytes` to `path` by the rules above.
void writeOutputFile(const std::filesystem::path& path, std::string_view bytes);

// Checks, before any work is done, that writeOutputFile could write `path`: not a folder, its
// folder exists, and a temporary file can be created there (and is removed again); a device is
// checked for write permission and a FIFO not at all (opening it would wait for a reader).
// Throws the same Error writing would ("<path>: cannot write: ..."), so a long computation does
// not end by failing on its output (issue 30). A full disk still shows only when writing.
void checkOutputWritable(const std::filesystem::path& path);

}  // namespace attnscope::exporting
