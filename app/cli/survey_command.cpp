#include "survey_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <set>
#include <vector>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/head_survey.h"
#include "attnscope/base/error.h"
#include "attnscope/base/threads.h"
#include "attnscope/export/survey_export.h"
#include "attnscope/model/model.h"
#include "attnscope/text/sentence_file.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "attnscope/tokenize/unicode.h"
#include "scoring_support.h"

namespace attnscope::cli {

namespace {

using analysis::HeadSurvey;

constexpr int kTop = 5;  // heads listed per kind

// The corpus as the model's ids, without the sentences its positions cannot hold.
struct SurveyCorpus {
    std::vector<std::vector<std::int32_t>> sentences;
    std::set<std::int32_t> specialIds;  // ids the tokenizer marked special in these sentences
    std::size_t read = 0;
    std::size_t tooLong = 0;
};

SurveyCorpus tokenizeCorpus(const model::Model& model, const SurveyArgs& args) {
    std::vector<std::string> lines = text::readSentences(args.corpus);
    if (args.maxSentences && lines.size() > static_cast<std::size_t>(*args.maxSentences)) {
        lines.resize(static_cast<std::size_t>(*args.maxSentences));
    }
    SurveyCorpus corpus;
    corpus.read = lines.size();
    const auto positions = static_cast<std::size_t>(model.spec.maxPositions);
    for (const std::string& line : lines) {
        throwIfInterrupted();
        const std::vector<tokenize::Token> tokens = model.tokenizer->encode(line);
        if (positions > 0 && tokens.size() > positions) {
            ++corpus.tooLong;
            continue;
        }
        for (const tokenize::Token& t : tokens) {
            if (t.special) {
                corpus.specialIds.insert(t.id);
            }
        }
        corpus.sentences.push_back(tokenize::ids(tokens));
    }
    return corpus;
}

// A piece as text, without its word-boundary mark: WordPiece's "##", byte-level BPE's stand-in
// characters turned back into bytes (so "Ġ" is a space, and "âĢĶ" is "—"), SentencePiece's "▁".
// Empty when the piece is not valid UTF-8 (a lone byte of a longer character).
std::u32string pieceText(const tokenize::Tokenizer& tokenizer, const std::string& piece) {
    std::string text = piece;
    if (tokenizer.kind() == tokenize::TokenizerKind::ByteLevelBpe) {
        const auto& table = tokenize::byteToUnicode();
        text.clear();
        for (const char32_t cp : tokenize::decodeUtf8(piece, "piece").chars) {
            const auto it = std::find(table.begin(), table.end(), cp);
            if (it == table.end()) {
                return {};  // an added token spelled outside the byte table
            }
            text.push_back(static_cast<char>(it - table.begin()));
        }
    }
    if (tokenize::findInvalidUtf8(text)) {
        return {};
    }
    std::u32string chars = tokenize::decodeUtf8(text, "piece").chars;
    if (tokenizer.kind() == tokenize::TokenizerKind::WordPiece && chars.rfind(U"##", 0) == 0) {
        chars.erase(0, 2);
    } else if (!chars.empty() && (chars.front() == U' ' || chars.front() == U'\u2581')) {
        chars.erase(0, 1);
    }
    return chars;
}

// S4's punct and period ids. A piece is punctuation when, after pieceText, it is non-empty and
// made only of BERT's punctuation (Unicode P* categories plus ASCII symbols such as '$'); a
// period when it is exactly ".". Special tokens are neither.
void vocabularyIds(const tokenize::Tokenizer& tokenizer, analysis::SurveyOptions& options) {
    const std::set<std::int32_t> special(options.specialIds.begin(), options.specialIds.end());
    const auto size = static_cast<std::int32_t>(tokenizer.vocabSize());
    for (std::int32_t id = 0; id < size; ++id) {
        const std::string piece = tokenizer.idToToken(id);
        if (piece.empty() || special.count(id) > 0) {
            continue;
        }
        const std::u32string chars = pieceText(tokenizer, piece);
        if (chars.empty() ||
            !std::all_of(chars.begin(), chars.end(), tokenize::isBertPunctuation)) {
            continue;
        }
        options.punctIds.push_back(id);
        if (chars == U".") {
            options.periodIds.push_back(id);
        }
    }
}

// Mean over heads of a layer, NaN left out ("-" in the table when none is defined).
std::string layerMean(const HeadSurvey& s, const std::string& name, int layer) {
    const std::vector<double>& v = s.score(name);
    double sum = 0;
    int count = 0;
    for (int h = 0; h < s.nHeads; ++h) {
        const double x = v[static_cast<std::size_t>(layer * s.nHeads + h)];
        if (std::isfinite(x)) {
            sum += x;
            ++count;
        }
    }
    if (count == 0) {
        return "         -";
    }
    char cell[32];
    std::snprintf(cell, sizeof cell, "%10.3f", sum / count);
    return cell;
}

const std::vector<std::string>& headlineScores() {
    static const std::vector<std::string> names = {
        "prev", "first", "first_mass", "entropy_norm", "tl_induction_mul", "probe_induction"};
    return names;
}

void printLayerTable(const HeadSurvey& s) {
    std::cout << "per layer, mean over heads:\n  layer";
    for (const std::string& name : headlineScores()) {
        char cell[32];
        std::snprintf(cell, sizeof cell, " %16s", name.c_str());
        std::cout << cell;
    }
    std::cout << "\n";
    for (int layer = 0; layer < s.nLayers; ++layer) {
        char cell[32];
        std::snprintf(cell, sizeof cell, "  %5d", layer);
        std::cout << cell;
        for (const std::string& name : headlineScores()) {
            std::cout << "       " << layerMean(s, name, layer);
        }
        std::cout << "\n";
    }
}

// The kTop heads with the largest finite `name`, as "layer-head value".
void printTop(const HeadSurvey& s, const std::string& title, const std::string& name) {
    const std::vector<double>& v = s.score(name);
    std::vector<int> heads;
    for (std::size_t k = 0; k < v.size(); ++k) {
        if (std::isfinite(v[k])) {
            heads.push_back(static_cast<int>(k));
        }
    }
    std::stable_sort(heads.begin(), heads.end(), [&v](int a, int b) {
        return v[static_cast<std::size_t>(a)] > v[static_cast<std::size_t>(b)];
    });
    heads.resize(std::min(heads.size(), static_cast<std::size_t>(kTop)));
    std::cout << "  " << title << " (" << name << "):";
    if (heads.empty()) {
        std::cout << " undefined";
    }
    for (const int k : heads) {
        char cell[48];
        std::snprintf(cell, sizeof cell, "  %d-%d %.3f", k / s.nHeads, k % s.nHeads,
                      v[static_cast<std::size_t>(k)]);
        std::cout << cell;
    }
    std::cout << "\n";
}

void printSummary(const HeadSurvey& s, const SurveyCorpus& corpus,
                  const analysis::SurveyOptions& options, const SurveyArgs& args) {
    std::cout << "corpus: " << args.corpus << ": " << corpus.read << " sentences, " << s.sentences
              << " surveyed, " << corpus.tooLong
              << " longer than the model's positions (left out), " << s.skipped << " empty\n"
              << "ids: " << options.specialIds.size() << " special, " << options.punctIds.size()
              << " punctuation, " << options.periodIds.size() << " period\n";
    printLayerTable(s);
    const bool probed =
        std::any_of(s.score("probe_induction").begin(), s.score("probe_induction").end(),
                    [](double x) { return std::isfinite(x); });
    std::cout << "top heads:\n";
    printTop(s, "previous token", "prev");
    printTop(s, "induction", probed ? "probe_induction" : "tl_induction_mul");
    printTop(s, "duplicate token", "tl_dup_mul");
    printTop(s, "sink", "sink_rate");
    printTop(s, "positional", "positional_frequency");
    if (!s.mdsError.empty()) {
        std::cout << "no MDS map: " << s.mdsError << "\n";
    }
}

analysis::SurveyOptions surveyOptions(const SurveyArgs& args) {
    analysis::SurveyOptions options;
    options.sinkEps = args.sinkEps;
    options.positionalThreshold = args.positionalThreshold;
    options.rareTop = args.rareTop;
    options.probeRepeats = args.probeRepeats;
    options.probeLength = args.probeLength;
    options.probeSeed = args.probeSeed;
    options.shares = static_cast<std::size_t>(args.threads);
    return options;
}

}  // namespace

CLI::App* addSurveyCommand(CLI::App& app, SurveyArgs& args) {
    auto* cmd = app.add_subcommand(
        "survey",
        "What every head does over a corpus: surface statistics, detectors, probe, "
        "sinks, positional and rare-word heads, head distances and their MDS map");
    cmd->add_option("MODEL_DIR", args.modelDir, "Hugging Face model folder")->required();
    cmd->add_option("CORPUS", args.corpus, "Sentences: .txt (one a line) or .conllu")->required();
    cmd->add_option("--out", args.out, "survey.csv (one row per head) or survey.h5 (arrays)")
        ->required()
        ->check([](const std::string& out) {
            const std::string ext = std::filesystem::path(out).extension().string();
            return ext == ".csv" || ext == ".h5" ? std::string()
                                                 : std::string("--out must end in .csv or .h5");
        });
    cmd->add_option("--max-sentences", args.maxSentences, "Use only the first N sentences")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--threads", args.threads, "Worker threads")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    cmd->add_option("--probe-repeats", args.probeRepeats,
                    "Causal models: random sequences of the induction probe (0: no probe)")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    cmd->add_option("--probe-length", args.probeLength,
                    "Causal models: tokens of each probe half (the probe is 2N + 1 long)")
        ->check(CLI::Range(2, 100000))
        ->capture_default_str();
    cmd->add_option("--probe-seed", args.probeSeed, "Seed of the probe's tokens")
        ->capture_default_str();
    cmd->add_option("--sink-eps", args.sinkEps,
                    "A sentence is a sink for a head when key 0 gets more than this")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option("--rare-top", args.rareTop,
                    "Rare-word heads: a sentence counts when its rarest token is not among the "
                    "corpus's N most frequent")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd->add_option("--positional-threshold", args.positionalThreshold,
                    "A head is positional when one offset wins at least this share of its rows")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    return cmd;
}

int runSurvey(const SurveyArgs& args) {
    const InterruptCatcher interrupts;
    const auto model = model::loadModel(args.modelDir);
    throwIfInterrupted();
    if (!model->tokenizer) {
        throw Error(args.modelDir + ": no tokenizer to read the corpus with");
    }
    const SurveyCorpus corpus = tokenizeCorpus(*model, args);
    if (corpus.sentences.empty()) {
        throw Error(args.corpus + ": no sentence to survey (" + std::to_string(corpus.read) +
                    " read, " + std::to_string(corpus.tooLong) +
                    " longer than the model's positions); nothing written");
    }
    analysis::SurveyOptions options = surveyOptions(args);
    options.specialIds.assign(corpus.specialIds.begin(), corpus.specialIds.end());
    vocabularyIds(*model->tokenizer, options);
    options.bosId = model->tokenizer->specialId(tokenize::SpecialRole::Bos);
    std::cerr << "attnscope-cli: survey of " << model->spec.nLayers << " x " << model->spec.nHeads
              << " heads on " << corpus.sentences.size() << " sentences";
    if (corpus.tooLong > 0) {
        std::cerr << " (" << corpus.tooLong << " longer than the model's "
                  << model->spec.maxPositions << " positions left out)";
    }
    std::cerr << "; Ctrl+C stops it\n";
    ScoringProgress progress;
    progress.total = 100;
    progress.unit = "%";
    options.progress = [&progress](double f) {
        progress.done = static_cast<std::size_t>(std::floor(100.0 * f));
    };
    if (options.shares > 1) {
        setComputeThreads(1);  // parallel over sentences, not inside products
    }
    const HeadSurvey survey = analysis::surveyCorpus(*model, corpus.sentences, options,
                                                     threadsWithProgress(progress, options.cancel));
    throwIfInterrupted();
    if (std::filesystem::path(args.out).extension() == ".h5") {
        exporting::writeSurveyH5(args.out, survey, options,
                                 {args.modelDir, args.corpus, corpus.tooLong});
    } else {
        exporting::writeSurveyCsv(args.out, survey);
    }
    printSummary(survey, corpus, options, args);
    std::cerr << "attnscope-cli: wrote " << args.out << "\n";
    return 0;
}

}  // namespace attnscope::cli
