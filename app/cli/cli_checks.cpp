#include "cli/cli_checks.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <streambuf>
#include <system_error>

#include <unistd.h>

#include "attnscope/base/error.h"
#include "attnscope/export/output_file.h"

namespace attnscope::cli {

namespace {

// `s` cut short for a message: an argument can be arbitrarily long.
std::string shown(std::string_view s) {
    return "'" + clipped(s, 40) + "'";
}

}  // namespace

CLI::Validator wholeNumber64() {
    return CLI::Validator(
        [](const std::string& value) -> std::string {
            std::uint64_t v = 0;
            const char* end = value.data() + value.size();
            const auto [at, ec] = std::from_chars(value.data(), end, v);
            if (value.empty() || value.front() < '0' || value.front() > '9' || at != end) {
                return shown(value) + " is not a whole number (decimal digits only)";
            }
            if (ec == std::errc::result_out_of_range) {
                return shown(value) + " is larger than 18446744073709551615 (2^64 - 1)";
            }
            if (value.size() > 1 && value.front() == '0') {
                return shown(value) + " starts with 0 (CLI11 would read it as octal)";
            }
            return {};
        },
        "UINT64");
}

void addInductionProbeOptions(CLI::App& command, int& repeats, int& length, std::uint64_t& seed) {
    command
        .add_option("--probe-repeats", repeats,
                    "Causal models: random sequences of the induction probe (0: no probe)")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    command
        .add_option("--probe-length", length,
                    "Causal models: tokens of each probe half (the probe is 2N + 1 long)")
        ->check(CLI::Range(2, 100000))
        ->capture_default_str();
    command.add_option("--probe-seed", seed, "Seed of the probe's tokens")
        ->check(wholeNumber64())
        ->capture_default_str();
}

CLI::Validator finiteRange(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](const std::string& value) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(value, v) || !std::isfinite(v) || v < lo || v > hi) {
                return shown(value) + " is not a number in [" + CLI::detail::to_string(lo) + ", " +
                       CLI::detail::to_string(hi) + "]";
            }
            return {};
        },
        "FINITE in [" + CLI::detail::to_string(lo) + " - " + CLI::detail::to_string(hi) + "]");
}

std::vector<std::int64_t> parseIdList(const std::string& option, std::string_view text) {
    if (text.empty()) {
        throw CLI::ValidationError(option, "the id list is empty");
    }
    std::vector<std::int64_t> ids;
    std::size_t start = 0;
    for (std::size_t element = 1;; ++element) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view piece = text.substr(start, comma - start);
        if (piece.empty()) {
            throw CLI::ValidationError(
                option, "element " + std::to_string(element) + " of " + shown(text) + " is empty");
        }
        std::int64_t id = 0;
        const char* end = piece.data() + piece.size();
        const auto [at, ec] = std::from_chars(piece.data(), end, id);
        if (at != end || ec == std::errc::invalid_argument) {
            throw CLI::ValidationError(option, shown(piece) + " is not a token id");
        }
        if (ec == std::errc::result_out_of_range) {
            throw CLI::ValidationError(option, shown(piece) + " is not a valid token id");
        }
        ids.push_back(id);
        if (comma == text.size()) {
            return ids;
        }
        start = comma + 1;
    }
}

CLI::Option* addIdListOption(CLI::App& command, const std::string& name,
                             std::vector<std::int64_t>& ids, const std::string& help) {
    return command
        .add_option_function<std::string>(
            name, [&ids, name](const std::string& text) { ids = parseIdList(name, text); }, help)
        ->type_name("IDS");
}

void checkOutput(const std::string& option, const std::string& path) {
    if (!path.empty()) {
        withContext(option, [&] { exporting::checkOutputWritable(path); });
    }
}

namespace {

// std::cout's buffer, written to descriptor 1 directly so the first write error's errno is kept
// for the message: through the C stream it is lost among later calls (std::cerr flushes std::cout
// before each of its lines, so a full disk fails there, long before the end of the run).
class StandardOutputBuffer : public std::streambuf {
public:
    StandardOutputBuffer() { reset(); }

    int error() const { return m_error; }

protected:
    int_type overflow(int_type c) override {
        const bool written = writeOut();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return written ? traits_type::not_eof(c) : traits_type::eof();
    }

    int sync() override { return writeOut() ? 0 : -1; }

private:
    void reset() { setp(m_buffer.data(), m_buffer.data() + m_buffer.size()); }

    // Writes what is buffered; after a failure the bytes are dropped, and the error kept.
    bool writeOut() {
        const char* at = pbase();
        auto left = static_cast<std::size_t>(pptr() - pbase());
        reset();
        while (left > 0) {
            const ssize_t n = ::write(STDOUT_FILENO, at, left);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                m_error = m_error != 0 ? m_error : (n < 0 ? errno : EIO);
                return false;
            }
            at += n;
            left -= static_cast<std::size_t>(n);
        }
        return m_error == 0;
    }

    std::array<char, 8192> m_buffer{};
    int m_error = 0;
};

// Never destroyed: std::cout is flushed once more after static objects are gone, at exit.
StandardOutputBuffer& standardOutputBuffer() {
    static auto* buffer = new StandardOutputBuffer;
    return *buffer;
}

}  // namespace

void captureStandardOutput() {
    std::cout.rdbuf(&standardOutputBuffer());
}

void flushStandardOutput() {
    std::cout.flush();
    if (const int err = standardOutputBuffer().error(); err != 0) {
        throw Error(std::string("standard output: cannot write: ") + std::strerror(err));
    }
    if (!std::cout) {
        throw Error("standard output: cannot write");
    }
}

CLI::Option* addModelDirArgument(CLI::App& command, std::string& modelDir) {
    return command.add_option("MODEL_DIR", modelDir, "Hugging Face model folder, or a .gguf file")
        ->required();
}

CLI::Option* addCorpusArgument(CLI::App& command, std::string& corpus) {
    return command.add_option("CORPUS", corpus, "Sentences: .txt (one a line) or .conllu")
        ->required();
}

CLI::Validator csvOrH5Output() {
    return CLI::Validator(
        [](const std::string& out) {
            return isH5Path(out) || std::filesystem::path(out).extension() == ".csv"
                       ? std::string()
                       : std::string("--out must end in .csv or .h5");
        },
        "");
}

bool isH5Path(const std::string& path) {
    return std::filesystem::path(path).extension() == ".h5";
}

}  // namespace attnscope::cli
