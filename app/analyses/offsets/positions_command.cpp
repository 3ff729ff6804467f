#include "analyses/offsets/positions_command.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/relative_position.h"
#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "attnscope/text/sentence_file.h"
#include "cli/cli_checks.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

using analysis::ModelPositions;

constexpr std::array<int, 5> kShownOffsets = {-2, -1, 0, 1, 2};

struct Corpus {
    std::int64_t analyzed = 0;
    std::int64_t skipped = 0;
    std::string firstSkipReason;
};

// Token ids carry no "special" mark (analyzeIds makes plain tokens), so ids the vocabulary or
// the config names as [CLS]/[SEP]/<s>/</s>/padding are flagged here, as the text path would.
std::vector<std::uint8_t> specialIdFlags(const model::Model& m,
                                         const std::vector<tokenize::Token>& tokens) {
    std::vector<std::int32_t> specialIds;
    if (const tokenize::TokenVocabulary* vocab = m.vocabulary()) {
        for (const auto role :
             {tokenize::SpecialRole::Cls, tokenize::SpecialRole::Sep, tokenize::SpecialRole::Bos,
              tokenize::SpecialRole::Eos, tokenize::SpecialRole::Pad}) {
            if (const auto id = vocab->specialId(role)) {
                specialIds.push_back(*id);
            }
        }
    }
    std::vector<std::uint8_t> flags;
    for (const tokenize::Token& t : tokens) {
        const bool special =
            std::find(specialIds.begin(), specialIds.end(), t.id) != specialIds.end();
        flags.push_back(special ? 1 : 0);
    }
    return flags;
}

// "attnscope-cli: 120/2001 sentences" on stderr, at most five times a second, for files.
class Progress {
public:
    void report(std::size_t done, std::size_t total) {
        const bool last = done == total;
        const auto now = Clock::now();
        if (total < 2 || (!last && now - m_shown < std::chrono::milliseconds(200))) {
            return;
        }
        m_shown = now;
        std::cerr << "\rattnscope-cli: " << done << "/" << total << " sentences"
                  << (last ? "\n" : "") << std::flush;
    }

private:
    using Clock = std::chrono::steady_clock;
    Clock::time_point m_shown;
};

// Runs every sentence of the file; sentences the model cannot take (too long, unknown
// characters without [UNK]) are skipped and counted, as `deps` does.
Corpus addSentenceFile(const PositionsArgs& args, const model::Model& m,
                       const forward::ForwardOptions& options, ModelPositions& positions) {
    std::vector<std::string> sentences = text::readSentences(args.sentencesFile);
    if (args.maxSentences && sentences.size() > static_cast<std::size_t>(*args.maxSentences)) {
        sentences.resize(static_cast<std::size_t>(*args.maxSentences));
    }
    Corpus c;
    Progress progress;
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        try {
            const auto a = analysis::analyzeText(m, sentences[i], options);
            positions.add(a.forward, analysis::specialFlags(a.tokens));
            ++c.analyzed;
        } catch (const InvalidArgument& e) {
            if (c.skipped++ == 0) {
                c.firstSkipReason = "sentence " + std::to_string(i + 1) + ": " + e.what();
            }
        }
        progress.report(i + 1, sentences.size());
    }
    if (c.analyzed == 0) {
        throw InvalidArgument(args.sentencesFile + ": no sentence could be analyzed" +
                              (c.firstSkipReason.empty() ? "" : "; " + c.firstSkipReason));
    }
    return c;
}

Corpus addOneSentence(const PositionsArgs& args, const model::Model& m,
                      const forward::ForwardOptions& options, ModelPositions& positions) {
    if (args.sentence.text) {
        const auto a = analysis::analyzeText(m, *args.sentence.text, options);
        positions.add(a.forward, analysis::specialFlags(a.tokens));
    } else {
        const auto a = analysis::analyzeIds(m, checkedTokenIds(args.sentence.tokenIds), options);
        positions.add(a.forward, specialIdFlags(m, a.tokens));
    }
    return {1, 0, {}};
}

std::string offsetName(int d) {
    return d > 0 ? "+" + std::to_string(d) : std::to_string(d);
}

// "-" where no counted query may see a key at that offset (beyond a causal mask, or no such
// key in any sentence): a mean of forced zeros says nothing about the head.
std::string meanText(const analysis::OffsetValue& v) {
    if (v.allowedQueries == 0) {
        return "-";
    }
    std::array<char, 32> buf{};
    std::snprintf(buf.data(), buf.size(), "%.3f", v.meanAttention);
    return buf.data();
}

void printTable(const ModelPositions& positions, double threshold, const Corpus& corpus) {
    const auto& any = positions.head({0, 0});
    std::cout << "# " << corpus.analyzed << (corpus.analyzed == 1 ? " sentence, " : " sentences, ")
              << any.countedQueries() << " queries per head"
              << (any.options().skipSpecialQueries ? " (special tokens left out)" : "")
              << "; positional: r* holds the row maximum for >= " << threshold * 100
              << " % of them\n";
    std::cout << "layer head    r*   freq  positional  confidence";
    for (const int d : kShownOffsets) {
        std::array<char, 32> column{};
        std::snprintf(column.data(), column.size(), "  %7s", ("mean@" + offsetName(d)).c_str());
        std::cout << column.data();
    }
    std::cout << "\n";
    int positional = 0;
    for (int layer = 0; layer < positions.nLayers(); ++layer) {
        for (int head = 0; head < positions.nHeads(); ++head) {
            const auto& acc = positions.head({layer, head});
            const auto v = acc.verdict(threshold);
            positional += v.positional ? 1 : 0;
            std::array<char, 96> row{};
            std::snprintf(row.data(), row.size(), "%5d %4d %5s %6.3f  %-10s  %10.3f", layer, head,
                          offsetName(v.bestOffset).c_str(), v.frequency,
                          v.positional ? "yes" : "no", v.confidence);
            std::cout << row.data();
            for (const int d : kShownOffsets) {
                std::snprintf(row.data(), row.size(), "  %7s", meanText(acc.at(d)).c_str());
                std::cout << row.data();
            }
            std::cout << "\n";
        }
    }
    std::cerr << "attnscope-cli: " << positional << " of "
              << positions.nLayers() * positions.nHeads() << " heads are positional";
    if (corpus.skipped > 0) {
        std::cerr << "; skipped " << corpus.skipped << " sentences, e.g. "
                  << corpus.firstSkipReason;
    }
    std::cerr << "\n";
}

void writeCsv(const std::string& path, const ModelPositions& positions, double threshold) {
    std::vector<std::string> header = {"layer",      "head",       "best_offset", "frequency",
                                       "positional", "confidence", "queries"};
    for (const int d : kShownOffsets) {
        header.push_back("mean_at_" + offsetName(d));
    }
    exporting::CsvWriter csv(header);
    for (int layer = 0; layer < positions.nLayers(); ++layer) {
        for (int head = 0; head < positions.nHeads(); ++head) {
            const auto& acc = positions.head({layer, head});
            const auto v = acc.verdict(threshold);
            std::vector<exporting::CsvValue> row = {std::int64_t{layer},
                                                    std::int64_t{head},
                                                    std::int64_t{v.bestOffset},
                                                    v.frequency,
                                                    std::int64_t{v.positional},
                                                    v.confidence,
                                                    v.queries};
            for (const int d : kShownOffsets) {
                row.emplace_back(acc.at(d).meanAttention);
            }
            csv.addRow(row);
        }
    }
    csv.writeFile(path);
    std::cerr << "attnscope-cli: wrote " << path << "\n";
}

}  // namespace

CLI::App* addPositionsCommand(CLI::App& app, PositionsArgs& args) {
    auto* cmd = app.add_subcommand(
        "positions", "Positional heads (Voita et al. 2019) and mean attention by offset, per head");
    addSentenceOptions(*cmd, args.sentence);
    auto* file = cmd->add_option("--sentences", args.sentencesFile,
                                 "Sentences to sum over: .txt (one per line) or CoNLL-U");
    file->excludes(cmd->get_option("--text"));
    file->excludes(cmd->get_option("--token-ids"));
    cmd->add_option("--max-sentences", args.maxSentences, "Use only the first N sentences")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--include-special", args.includeSpecial,
                  "Count special tokens ([CLS], [SEP], <s>, </s>) as queries too");
    cmd->add_flag("--skip-special-keys", args.skipSpecialKeys,
                  "Leave special tokens out as keys as well (argmax over the other keys)");
    cmd->add_option("--threshold", args.threshold,
                    "Positional when r* holds the row maximum this often")
        ->check(finiteRange(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option("--csv", args.csv, "Also write the table as CSV");
    cmd->callback([&args] {
        if (args.sentencesFile.empty()) {
            checkSentenceArgs(args.sentence);
        }
    });
    return cmd;
}

int runPositions(const PositionsArgs& args) {
    checkOutput("--csv", args.csv);
    const bool idsOnly = args.sentencesFile.empty() && !args.sentence.text;
    const auto model = loadModelWithWarnings(
        args.sentence.modelDir,
        idsOnly ? model::TokenizerLoading::VocabularyOnly : model::TokenizerLoading::Full,
        activationPrecision(args.sentence));
    refuseEncoderDecoder("positions", args.sentence.modelDir, *model);
    const forward::ForwardOptions options = forwardOptions(args.sentence);
    analysis::RelativePositionOptions how;
    how.skipSpecialQueries = !args.includeSpecial;
    how.skipSpecialKeys = args.skipSpecialKeys;
    ModelPositions positions(model->spec.nLayers, model->spec.nHeads, how);
    const Corpus corpus = args.sentencesFile.empty()
                              ? addOneSentence(args, *model, options, positions)
                              : addSentenceFile(args, *model, options, positions);
    printTable(positions, args.threshold, corpus);
    if (!args.csv.empty()) {
        writeCsv(args.csv, positions, args.threshold);
    }
    return 0;
}

}  // namespace attnscope::cli
