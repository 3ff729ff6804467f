#include "analyses/offsets/positions_command.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/partial_state.h"
#include "attnscope/analysis/relative_position.h"
#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "attnscope/io/json_access.h"
#include "attnscope/text/sentence_file.h"
#include "cli/cli_checks.h"
#include "cli/seq2seq_input.h"
#include "cli/shard_support.h"

namespace attnscope::cli {

namespace {

using analysis::ModelPositions;

constexpr std::array<int, 5> kShownOffsets = {-2, -1, 0, 1, 2};

struct Corpus {
    std::int64_t analyzed = 0;
    std::int64_t skipped = 0;
    std::int64_t firstSkipSentence = 0;  // 1-based; 0: none skipped
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

void addSentence(const model::Model& m, const std::string& sentence, std::size_t i,
                 const forward::ForwardOptions& options, ModelPositions& positions, Corpus& c) {
    try {
        const auto a = analysis::analyzeText(m, sentence, options);
        positions.add(a.forward, analysis::specialFlags(a.tokens));
        ++c.analyzed;
    } catch (const InvalidArgument& e) {
        if (c.skipped++ == 0) {
            c.firstSkipSentence = static_cast<std::int64_t>(i + 1);
            c.firstSkipReason = "sentence " + std::to_string(i + 1) + ": " + e.what();
        }
    }
}

// Runs every sentence of the file (with --shard, those of the shard); sentences the model
// cannot take (too long, unknown characters without [UNK]) are skipped and counted, as `deps`
// does.
Corpus addSentenceFile(const PositionsArgs& args, const model::Model& m,
                       const forward::ForwardOptions& options, ModelPositions& positions,
                       std::size_t* units) {
    std::vector<std::string> sentences = text::readSentences(args.sentencesFile);
    if (args.maxSentences && sentences.size() > static_cast<std::size_t>(*args.maxSentences)) {
        sentences.resize(static_cast<std::size_t>(*args.maxSentences));
    }
    *units = sentences.size();
    const std::optional<exporting::Shard> shard = shardOf(args.shard);
    Corpus c;
    Progress progress;
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        if (!shard || shard->owns(i)) {
            addSentence(m, sentences[i], i, options, positions, c);
        }
        progress.report(i + 1, sentences.size());
    }
    if (c.analyzed == 0 && !shard) {  // a shard may hold only skipped sentences; merge checks
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
    return {1, 0, 0, {}};
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

analysis::RelativePositionOptions positionOptions(const PositionsArgs& args) {
    analysis::RelativePositionOptions how;
    how.skipSpecialQueries = !args.includeSpecial;
    how.skipSpecialKeys = args.skipSpecialKeys;
    return how;
}

// Every option that changes the sums or the table; merge rebuilds PositionsArgs from it.
nlohmann::json partOptions(const PositionsArgs& args) {
    return {{"mask", args.sentence.mask},
            {"int8_activations", args.sentence.int8Activations},
            {"max_sentences", args.maxSentences ? nlohmann::json(*args.maxSentences) : nullptr},
            {"include_special", args.includeSpecial},
            {"skip_special_keys", args.skipSpecialKeys},
            {"threshold", args.threshold}};
}

PositionsArgs argsOfPart(const exporting::PartialResult& part) {
    const io::JsonAt at = io::JsonAt{part.file}["options"];
    const nlohmann::json& o = part.options;
    PositionsArgs args;
    args.sentence.modelDir = part.modelPath();
    args.sentencesFile = part.corpusPath();
    args.includeSpecial = io::asBool(io::member(o, at, "include_special"), at["include_special"]);
    args.skipSpecialKeys =
        io::asBool(io::member(o, at, "skip_special_keys"), at["skip_special_keys"]);
    args.threshold = io::asNumber(io::member(o, at, "threshold"), at["threshold"]);
    if (!(args.threshold >= 0.0 && args.threshold <= 1.0)) {
        io::failAt(at["threshold"], "expected a number from 0 to 1");
    }
    return args;
}

// The sentences analyzed and skipped in a part; the first skip is the earliest sentence's.
void addCorpusCounts(const nlohmann::json& state, const io::JsonAt& at, Corpus& corpus) {
    corpus.analyzed += analysis::partialCount(io::member(state, at, "analyzed"), at["analyzed"]);
    const std::int64_t skipped =
        analysis::partialCount(io::member(state, at, "skipped"), at["skipped"]);
    corpus.skipped += skipped;
    const std::int64_t first = analysis::partialCount(io::member(state, at, "first_skip_sentence"),
                                                      at["first_skip_sentence"]);
    if (skipped > 0 && (corpus.firstSkipSentence == 0 || first < corpus.firstSkipSentence)) {
        corpus.firstSkipSentence = first;
        corpus.firstSkipReason =
            io::asString(io::member(state, at, "first_skip_reason"), at["first_skip_reason"]);
    }
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
    auto* shard = addShardOption(*cmd, args.shard, "sentences of --sentences");
    shard->needs(file);
    cmd->add_option("--out", args.out, "With --shard: the partial result (.part.json)")
        ->needs(shard);
    cmd->callback([cmd, &args] {
        if (args.sentencesFile.empty()) {
            checkSentenceArgs(args.sentence);
        }
        checkShardOutput(*cmd, args.shard, args.out, {"--csv"});
    });
    return cmd;
}

int runPositions(const PositionsArgs& args) {
    checkOutput("--csv", args.csv);
    checkOutput("--out", args.out);
    const bool idsOnly = args.sentencesFile.empty() && !args.sentence.text;
    const auto model = loadModelWithWarnings(
        args.sentence.modelDir,
        idsOnly ? model::TokenizerLoading::VocabularyOnly : model::TokenizerLoading::Full,
        activationPrecision(args.sentence));
    refuseEncoderDecoder("positions", args.sentence.modelDir, *model);
    const forward::ForwardOptions options = forwardOptions(args.sentence);
    ModelPositions positions(model->spec.nLayers, model->spec.nHeads, positionOptions(args));
    std::size_t units = 1;
    const Corpus corpus = args.sentencesFile.empty()
                              ? addOneSentence(args, *model, options, positions)
                              : addSentenceFile(args, *model, options, positions, &units);
    if (const auto shard = shardOf(args.shard)) {
        exporting::PartialResult part;
        part.command = "positions";
        part.options = partOptions(args);
        part.model = exporting::modelFingerprint(*model, args.sentence.modelDir);
        part.corpus =
            exporting::corpusFingerprint(args.sentencesFile, static_cast<std::int64_t>(units));
        part.shard = *shard;
        part.state = analysis::positionsState(positions);
        part.state["analyzed"] = corpus.analyzed;
        part.state["skipped"] = corpus.skipped;
        part.state["first_skip_sentence"] = corpus.firstSkipSentence;
        part.state["first_skip_reason"] = corpus.firstSkipReason;
        writePart(args.out, part, static_cast<std::size_t>(corpus.analyzed + corpus.skipped),
                  "sentences");
        return 0;
    }
    printTable(positions, args.threshold, corpus);
    if (!args.csv.empty()) {
        writeCsv(args.csv, positions, args.threshold);
    }
    return 0;
}

int mergePositions(const std::vector<exporting::PartialResult>& parts, const std::string& out) {
    if (std::filesystem::path(out).extension() != ".csv") {
        throw InvalidArgument("--out: " + out + ": positions writes .csv (as its --csv)");
    }
    const exporting::PartialResult& first = parts.front();
    const PositionsArgs args = argsOfPart(first);
    const analysis::RelativePositionOptions how = positionOptions(args);
    ModelPositions merged(first.shape().layers, first.shape().heads, how);
    Corpus corpus;
    for (const exporting::PartialResult& part : parts) {
        const io::JsonAt at = io::JsonAt{part.file}["state"];
        merged.merge(analysis::positionsFromState(part.state, at, part.shape(), how));
        addCorpusCounts(part.state, at, corpus);
    }
    if (corpus.analyzed == 0) {
        throw InvalidArgument(
            args.sentencesFile + ": no sentence could be analyzed" +
            (corpus.firstSkipReason.empty() ? "" : "; " + corpus.firstSkipReason));
    }
    printTable(merged, args.threshold, corpus);
    writeCsv(out, merged, args.threshold);
    return 0;
}

}  // namespace attnscope::cli
