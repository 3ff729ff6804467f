// Checks every command applies to its arguments before it does any work (issue 30): numbers CLI11
// would clamp or let through (a seed of 2^64, a NaN threshold), comma-separated id lists parsed
// whole (CLI11 reads "" as the id 0 and drops empty elements), output paths that could not be
// written, and standard output, whose write errors (a full disk) would otherwise go unnoticed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace attnscope::cli {

// A std::uint64_t option such as a seed: decimal digits without a leading 0, at most 2^64 - 1.
// CLI11 alone clamps 2^64 to 2^64 - 1, reads "-1" as 2^64 - 1 and "010" as octal, silently.
CLI::Validator wholeNumber64();

// A finite number in [lo, hi]. CLI::Range lets NaN through: every comparison with it is false.
CLI::Validator finiteRange(double lo, double hi);

// `text` as a list of token ids "3,17,42": integers separated by single commas. Throws
// CLI::ValidationError naming `option` for an empty list, an empty element ("3,,4", "3,") and
// anything that is not an integer of at most 64 bits. Whether an id is a token id at all is
// checkedTokenIds' and the model's business (they are data errors, exit code 1).
std::vector<std::int64_t> parseIdList(const std::string& option, std::string_view text);

// Adds `name` as an id list parsed by parseIdList into `ids` (given once, as one argument).
CLI::Option* addIdListOption(CLI::App& command, const std::string& name,
                             std::vector<std::int64_t>& ids, const std::string& help);

// The positional arguments the commands share: MODEL_DIR (a Hugging Face model folder) and
// CORPUS (sentences, .txt one a line or .conllu), both required.
CLI::Option* addModelDirArgument(CLI::App& command, std::string& modelDir);
CLI::Option* addCorpusArgument(CLI::App& command, std::string& corpus);

// --probe-repeats, --probe-length and --probe-seed: the repeated-random-token induction probe
// the survey and the training series run on causal models (analysis::InductionProbeOptions).
void addInductionProbeOptions(CLI::App& command, int& repeats, int& length, std::uint64_t& seed);

// An --out path of a command that writes either a table or arrays: it must end in .csv or .h5.
CLI::Validator csvOrH5Output();

// Whether `path` names an HDF5 file (ends in .h5) rather than a CSV table.
bool isH5Path(const std::string& path);

// Before any work: throws attnscope::Error "<option>: <path>: cannot write: <reason>" unless
// exporting::checkOutputWritable accepts `path`. An empty path (option not given) passes.
void checkOutput(const std::string& option, const std::string& path);

// At the start of main: std::cout writes to descriptor 1 through a buffer that keeps the first
// write error, for flushStandardOutput's message.
void captureStandardOutput();

// Flushes std::cout and throws attnscope::Error "standard output: cannot write: <reason>" if
// any write to it failed (a full disk, a closed pipe), so such a run does not exit 0.
void flushStandardOutput();

}  // namespace attnscope::cli
