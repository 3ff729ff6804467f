// Runs a shell command line for end-to-end tests of the command-line tool, capturing its exit
// code, standard output and standard error separately.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <sys/wait.h>

#include "test_files.h"

namespace attnscope::testing {

struct CommandRun {
    int exitCode = -1;
    std::string out;
    std::string err;
};

inline CommandRun runCommand(const std::string& commandLine) {
    ScratchDir tmp;
    const std::filesystem::path errFile = tmp.path() / "stderr";
    std::string cmd = commandLine;
    cmd.append(" 2>'").append(errFile.string()).append("'");
    CommandRun r;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (pipe == nullptr) {
        return r;
    }
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
        r.out.append(buf.data(), n);
    }
    const int status = ::pclose(pipe);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = readFile(errFile);
    return r;
}

// A path in single quotes for a shell command line. Appended piece by piece: GCC 12 warns
// (-Wrestrict, a false positive, GCC bug 105329) on "'" + std::string.
inline std::string shellQuoted(const std::filesystem::path& p) {
    std::string out = "'";
    out.append(p.string()).append("'");
    return out;
}

}  // namespace attnscope::testing
