// Runs a shell command line for end-to-end tests of the command-line tool, capturing its exit
// code, standard output and standard error separately; and the pieces every CLI test builds its
// command lines from, so that each test reads as the options it passes.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

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

// Whether the tool's output holds `part` (the CLI tests look for lines and fragments of lines).
inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Ids as one --token-ids value: "3,17,9".
template <class Int>
std::string idList(const std::vector<Int>& ids) {
    std::string out;
    for (const Int id : ids) {
        out.append(out.empty() ? "" : ",").append(std::to_string(id));
    }
    return out;
}

#ifdef ATTNSCOPE_CLI
// attnscope-cli with `args`: the test targets that run the tool define ATTNSCOPE_CLI, the path of
// the binary they depend on.
inline std::string cliCommand(const std::string& args) {
    std::string out = "'";
    out.append(ATTNSCOPE_CLI).append("' ").append(args);
    return out;
}

inline CommandRun runCli(const std::string& args) {
    return runCommand(cliCommand(args));
}
#endif

// Ctrl+C in the middle of a run: starts `commandLine` in the background with its standard error
// in `errFile`, waits until that file holds `cue` (or the command has ended), sends SIGINT and
// waits for the exit. The script goes beside `errFile`; its output is "rc=<exit code>".
inline CommandRun runInterrupted(const std::string& commandLine,
                                 const std::filesystem::path& errFile, const std::string& cue) {
    std::string script = commandLine;
    script.append(" 2>").append(shellQuoted(errFile)).append(" & pid=$!; until grep -q '");
    script.append(cue).append("' ").append(shellQuoted(errFile));
    script.append(" 2>/dev/null || ! kill -0 $pid 2>/dev/null; do sleep 0.02; ");
    script.append("done; kill -INT $pid 2>/dev/null; wait $pid; echo rc=$?");
    const std::filesystem::path scriptFile = errFile.parent_path() / "interrupt.sh";
    writeFile(scriptFile, script);
    return runCommand("sh " + shellQuoted(scriptFile));
}

}  // namespace attnscope::testing
