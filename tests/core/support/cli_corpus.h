// What the CLI tests that run a model over a file (importance, survey, coref, attribution) share:
// a scratch folder holding the sentence file, the "verb 'model' 'file'" start of their command
// lines, and the Ctrl+C check every long-running command must pass.
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "run_command.h"
#include "test_files.h"

namespace attnscope::testing {

// A scratch folder with `sentences` written to sentences.txt in it; the outputs go next to it.
class CorpusDir {
public:
    explicit CorpusDir(const std::string& sentences) { writeFile(m_corpus, sentences); }

    const std::filesystem::path& path() const { return m_tmp.path(); }

    const std::filesystem::path& corpus() const { return m_corpus; }

private:
    ScratchDir m_tmp;
    std::filesystem::path m_corpus = m_tmp.path() / "sentences.txt";
};

// The UD English EWT dev treebank of ../shared: the corpus long enough to interrupt.
inline const std::filesystem::path kEwtDev =
    std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data/ud/UD_English-EWT/en_ewt-ud-dev.conllu";

// "verb 'model' 'input'": a command that runs the model on a file, before its options.
inline std::string modelCommand(const std::string& verb, const std::filesystem::path& model,
                                const std::filesystem::path& input) {
    std::string out = verb;
    out.append(" ").append(shellQuoted(model)).append(" ").append(shellQuoted(input));
    return out;
}

#ifdef ATTNSCOPE_CLI
// attnscope-cli `verb` with `model` on `input`, then `options`, writing `out`.
inline CommandRun runOn(const std::string& verb, const std::filesystem::path& model,
                        const std::filesystem::path& input, const std::string& options,
                        const std::filesystem::path& out) {
    return runCli(modelCommand(verb, model, input) + options + " --out " + shellQuoted(out));
}

// Runs attnscope-cli `args` --out <scratch>/`outName` and sends Ctrl+C once its standard error
// holds `cue`: it must stop with exit code 130 and one line, and write nothing. Returns what it
// wrote to standard error, for the checks a test adds.
inline std::string expectInterruptWritesNothing(const std::string& args, const std::string& outName,
                                                const std::string& cue) {
    ScratchDir tmp;
    const std::filesystem::path out = tmp.path() / outName;
    const std::filesystem::path err = tmp.path() / "err";
    const CommandRun r = runInterrupted(cliCommand(args + " --out " + shellQuoted(out)), err, cue);
    EXPECT_TRUE(contains(r.out, "rc=130")) << r.out << readFile(err);
    EXPECT_TRUE(contains(readFile(err), "interrupted; nothing written"));
    EXPECT_FALSE(std::filesystem::exists(out));
    return readFile(err);
}
#endif

}  // namespace attnscope::testing
