// Shared pieces of the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp): a per-process scratch folder
// on tmpfs for the APIs that take paths, the parser-error filter, fixed texts to encode, and
// checks on what a tokenizer returns.
//
// Every harness defines LLVMFuzzerTestOneInput. A parser's own errors (attnscope::Error and its
// subclasses) are expected and swallowed by `expectErrors`; any other exception escapes the
// harness on purpose, so libFuzzer (or replay_main.cpp) reports it as a finding. Single-threaded,
// as libFuzzer calls the harness.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/base/error.h"

namespace attnscope::tokenize {
class Tokenizer;
class TokenVocabulary;
}  // namespace attnscope::tokenize

namespace attnscope::fuzz {

// A folder of this process under /dev/shm (or $TMPDIR when there is none), e.g.
// /dev/shm/attnscope-fuzz-1234/<name>; created on first use, removed when the process exits.
std::filesystem::path scratchDir(const std::string& name);

// Writes `bytes` to `dir / name`, replacing the file; returns the path.
std::filesystem::path writeFile(const std::filesystem::path& dir, const std::string& name,
                                std::string_view bytes);

// Removes `dir / name` if it exists.
void removeFile(const std::filesystem::path& dir, const std::string& name);

// Reads a file of the source tree (tests/fuzz/..., tests/data/...); aborts with a message when
// it is missing, since a harness without its fixed files tests nothing.
std::string readSourceFile(const std::string& relativePath);

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// True when ATTNSCOPE_FUZZ_VERBOSE is set: swallowed errors are printed (to see why a seed is
// refused).
bool verbose();

void logError(const char* what);

// Runs `fn`; attnscope::Error (FormatError, UnsupportedModel, InvalidArgument, Cancelled) is the
// documented way to refuse a bad input and is swallowed. Anything else propagates.
template <class Fn>
void expectErrors(Fn&& fn) {
    try {
        fn();
    } catch (const attnscope::Error& e) {
        if (verbose()) {
            logError(e.what());
        }
    }
}

// Prints `what` and aborts: a broken invariant the sanitizers cannot see.
[[noreturn]] void fail(const std::string& what);

// Texts every tokenizer harness encodes: plain words, accents, CJK, emoji, special-token
// spellings, whitespace runs, control characters, and invalid UTF-8 (expected to throw
// InvalidArgument).
const std::vector<std::string>& fixedTexts();

// Up to `maxBytes` bytes from the start and from the end of the input, as texts to encode.
std::vector<std::string> textsFromInput(std::string_view input, std::size_t maxBytes = 200);

// Reads the vocabulary through its public methods: vocabSize, idToToken / tokenToId on the
// first ids and on ids around the end, specialId for every role.
void touchVocabulary(const tokenize::TokenVocabulary& vocab);

// loadTokenVocabulary on `dir`, then touchVocabulary; `what` names the file it must find there
// (it failing to find any is a finding). Errors are expected, as in expectErrors.
void exerciseVocabulary(const std::filesystem::path& dir, const std::string& what);

// Encodes every text (with and without special tokens) and checks each token's spans lie inside
// the text and its id maps back to a piece. Also encodes the first pieces of the vocabulary
// joined by spaces. InvalidArgument (invalid UTF-8, too long) is expected.
void exerciseTokenizer(const tokenize::Tokenizer& tok, std::string_view input);

}  // namespace attnscope::fuzz
