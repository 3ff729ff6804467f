#include "analyses/ablation/ablate_command.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/ablation_effects.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/base/error.h"
#include "attnscope/export/ablation_export.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/text/sentence_file.h"
#include "cli/cli_checks.h"
#include "cli/sentence_input.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

using forward::AblationKind;

AblationKind kindOf(const std::string& name) {
    return name == "mean" ? AblationKind::Mean
                          : (name == "sink" ? AblationKind::Sink : AblationKind::Zero);
}

std::vector<forward::HeadAblation> ablationList(const AblateArgs& args) {
    std::vector<forward::HeadAblation> list =
        forward::parseAblationList(args.heads, kindOf(args.kind));
    for (forward::HeadAblation& a : list) {
        a.kvGroup = a.kvGroup || args.kvGroup;
    }
    return list;
}

// The sentence as the passes see it: ids (masked positions hold the mask token) and labels of
// the original tokens.
struct Sentence {
    std::vector<std::int32_t> ids;
    std::vector<std::string> labels;
    std::vector<analysis::MaskedTarget> targets;
    std::vector<int> literalMasks;  // mask tokens of the text: targets are the clean top token
};

const tokenize::Tokenizer& tokenizerFor(const model::Model& m, const std::string& option) {
    if (!m.tokenizer) {
        throw InvalidArgument(m.dir.string() + ": " + option +
                              " needs the model's tokenizer files (tokenizer.json, vocab.txt, "
                              "vocab.json + merges.txt or tokenizer.model)");
    }
    return *m.tokenizer;
}

Sentence readSentence(const model::Model& m, const AblateArgs& args) {
    Sentence s;
    if (args.text) {
        for (const tokenize::Token& t : textTokens(m, tokenizerFor(m, "--text"), *args.text)) {
            s.ids.push_back(t.id);
            s.labels.push_back(analysis::tokenLabel(t.text));
        }
    } else {
        s.ids = checkedTokenIds(args.tokenIds);
        for (const std::int32_t id : s.ids) {
            s.labels.push_back(analysis::tokenLabel(analysis::idPiece(m, id)));
        }
    }
    return s;
}

void checkPosition(int position, const Sentence& s, const std::string& option) {
    const int n = static_cast<int>(s.ids.size());
    if (position < 0 || position >= n) {
        throw InvalidArgument(option + ": position " + std::to_string(position) +
                              " is outside the sentence's " + std::to_string(n) + " tokens (0.." +
                              std::to_string(n - 1) + ")");
    }
}

// "<dir> is a causal LM" / "<dir> has no prediction head", for refusals.
std::string modelKind(const model::Model& m) {
    return forward::hasPredictionHead(m)
               ? m.dir.string() + " is a " + forward::predictionKindName(m)
               : m.dir.string() + " has no prediction head (MLM or LM head tensors)";
}

// --mask: each position gets the mask token and is measured against its original id. Mask
// tokens already in the text are measured against the clean top prediction (filled in later).
void applyMasks(const model::Model& m, const AblateArgs& args, Sentence& s) {
    const bool masked = m.spec.prediction == model::PredictionKind::MaskedLm;
    if (!args.maskPositions.empty() && !masked) {
        throw InvalidArgument("--mask: masking is for masked LMs; " + modelKind(m));
    }
    const tokenize::TokenVocabulary* vocab = m.vocabulary();
    // -1, not an optional: GCC 12 warns of a maybe-uninitialized optional here.
    const std::int32_t maskId =
        vocab ? vocab->specialId(tokenize::SpecialRole::Mask).value_or(-1) : -1;
    if (!args.maskPositions.empty() && maskId < 0) {
        throw InvalidArgument("--mask: " + args.modelDir +
                              " has no mask token in its tokenizer files");
    }
    const std::vector<int> literal =
        masked ? forward::maskTokenPositions(m, s.ids) : std::vector<int>{};
    for (const int p : args.maskPositions) {
        checkPosition(p, s, "--mask");
        const std::int32_t original = s.ids[static_cast<std::size_t>(p)];
        if (original != maskId) {
            s.targets.push_back({p, original});
            s.ids[static_cast<std::size_t>(p)] = maskId;
        }
    }
    for (const int p : literal) {
        const bool asked =
            std::any_of(s.targets.begin(), s.targets.end(),
                        [p](const analysis::MaskedTarget& t) { return t.position == p; });
        if (!asked) {
            s.literalMasks.push_back(p);
        }
    }
}

std::optional<std::int32_t> pieceId(const model::Model& m, const std::string& piece) {
    if (piece.size() > 1 && piece[0] == '#' &&
        piece.find_first_not_of("0123456789", 1) == std::string::npos && piece.size() < 11) {
        return static_cast<std::int32_t>(std::stoll(piece.substr(1)));
    }
    const tokenize::TokenVocabulary* vocab = m.vocabulary();
    if (vocab == nullptr) {
        return std::nullopt;
    }
    if (auto id = vocab->tokenToId(piece)) {
        return id;
    }
    // The readable spelling tokenLabel prints: "·the" is "Ġthe" (byte-level) or "▁the" (SPM).
    const std::string dot = "\xC2\xB7";
    if (piece.rfind(dot, 0) == 0) {
        for (const char* space : {"\xC4\xA0", "\xE2\x96\x81"}) {
            if (auto id = vocab->tokenToId(space + piece.substr(dot.size()))) {
                return id;
            }
        }
    }
    return std::nullopt;
}

// POS:A:B; A and B may themselves hold ':' (the first split where both are pieces wins).
analysis::LogitDiffRequest parseLogitDiff(const model::Model& m, const std::string& text,
                                          const Sentence& s) {
    const std::size_t colon = text.find(':');
    const std::string pos = text.substr(0, colon);
    if (colon == std::string::npos || pos.empty() ||
        pos.find_first_not_of("0123456789") != std::string::npos || pos.size() > 9) {
        throw InvalidArgument("--logit-diff: '" + text +
                              "' is not POS:A:B (a position, then two pieces or #IDs)");
    }
    if (m.spec.prediction != model::PredictionKind::CausalLm) {
        throw InvalidArgument("--logit-diff: a logit difference is a causal LM measure; " +
                              modelKind(m));
    }
    analysis::LogitDiffRequest request;
    request.position = std::stoi(pos);
    checkPosition(request.position, s, "--logit-diff");
    const std::string rest = text.substr(colon + 1);
    for (std::size_t i = rest.find(':'); i != std::string::npos; i = rest.find(':', i + 1)) {
        const auto a = pieceId(m, rest.substr(0, i));
        const auto b = pieceId(m, rest.substr(i + 1));
        if (a && b) {
            request.a = *a;
            request.b = *b;
            return request;
        }
    }
    throw InvalidArgument("--logit-diff: '" + rest + "' is not two vocabulary pieces of " +
                          m.dir.string() + " (A:B; write #ID for a token id)");
}

// What mean ablation averages over when no --mean-corpus is given: the input exactly as the
// passes see it, so positions given to --mask hold the mask token in the means too.
constexpr const char* kInputItself = "the input itself, as fed (masks in place)";

std::shared_ptr<const forward::HeadMeans> headMeans(const model::Model& m, const AblateArgs& args,
                                                    const Sentence& s) {
    std::vector<std::vector<std::int32_t>> corpus;
    if (args.meanCorpus) {
        const tokenize::Tokenizer& tokenizer = tokenizerFor(m, "--mean-corpus");
        corpus = withContext("--mean-corpus", [&] {
            std::vector<std::vector<std::int32_t>> out;
            for (const std::string& line : text::readSentences(*args.meanCorpus)) {
                std::vector<std::int32_t> ids;
                for (const tokenize::Token& t : tokenizer.encode(line)) {
                    ids.push_back(t.id);
                }
                out.push_back(std::move(ids));
            }
            return out;
        });
        if (corpus.empty()) {
            throw InvalidArgument("--mean-corpus: " + *args.meanCorpus + ": no sentences");
        }
    } else {
        corpus.push_back(s.ids);
    }
    auto means = std::make_shared<forward::HeadMeans>(
        withContext("--mean-corpus " + args.meanCorpus.value_or("(the input)"),
                    [&] { return forward::computeHeadMeans(m, corpus, {}); }));
    std::cout << "means pooled over " << corpus.size() << " sentence"
              << (corpus.size() == 1 ? "" : "s") << " of "
              << (args.meanCorpus ? *args.meanCorpus : std::string(kInputItself)) << " ("
              << means->rows << " token positions)\n";
    return means;
}

double millisSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

// `text` padded with spaces to `width` columns, counting UTF-8 code points, not bytes ("·").
std::string padded(const std::string& text, std::size_t width) {
    const auto points =
        static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
            return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        }));
    return points >= width ? text + " " : text + std::string(width - points, ' ');
}

void printAblations(const forward::Interventions& iv,
                    const std::vector<std::optional<AblationKind>>& resolved, int nHeads) {
    std::cout << "ablated:";
    for (std::size_t i = 0; i < iv.ablations.size(); ++i) {
        std::cout << (i ? ", " : " ") << forward::describe(iv.ablations[i]);
    }
    std::cout << "\nheads:  ";
    for (std::size_t i = 0; i < resolved.size(); ++i) {
        if (resolved[i]) {
            const int index = static_cast<int>(i);
            std::cout << " " << HeadId{index / nHeads, index % nHeads}.toString();
        }
    }
    std::cout << "\n";
}

void printMasked(const analysis::AblationEffects& e, const Sentence& s, const model::Model& m) {
    std::cout << "\n# masked LM: log p of the original token at each masked position\n";
    if (e.masked.empty()) {
        std::cout << "no masked position (give --mask POS,... or put the mask token in the "
                     "text); only the heads' changes are measured\n";
        return;
    }
    if (!s.literalMasks.empty()) {
        std::cout << "positions marked * hold the mask token in the text: measured against the "
                     "clean pass's top prediction\n";
    }
    std::cout << std::setw(4) << "pos"
              << "  " << std::left << std::setw(14) << "token" << std::setw(14) << "target"
              << std::right << std::setw(13) << "logp_clean" << std::setw(13) << "logp_ablated"
              << std::setw(13) << "delta_logp"
              << "\n";
    for (const analysis::MaskedTargetEffect& t : e.masked) {
        const bool literal = std::find(s.literalMasks.begin(), s.literalMasks.end(),
                                       t.target.position) != s.literalMasks.end();
        const std::string label = s.labels[static_cast<std::size_t>(t.target.position)];
        std::cout << std::setw(4) << t.target.position << "  "
                  << padded(literal ? label + "*" : label, 14)
                  << padded(analysis::tokenLabel(analysis::idPiece(m, t.target.originalId)), 14)
                  << std::setw(13) << t.logpClean << std::setw(13) << t.logpAblated << std::setw(13)
                  << t.deltaLogp << "\n";
    }
}

void printCausal(const analysis::CausalEffects& c, const Sentence& s, const model::Model& m) {
    const auto piece = [&m](std::int32_t id) {
        return analysis::tokenLabel(analysis::idPiece(m, id));
    };
    std::cout << "\n# causal LM: mean next-token NLL over "
              << (s.ids.size() > 1 ? s.ids.size() - 1 : 0) << " predictions\n"
              << "nll_clean " << c.nllClean << "  nll_ablated " << c.nllAblated << "  delta_nll "
              << c.deltaNll << "\n\n";
    std::cout << std::setw(4) << "pos"
              << "  " << std::left << std::setw(12) << "token" << std::setw(12) << "next"
              << std::setw(12) << "top_clean" << std::right << std::setw(12) << "p_top_clean"
              << std::setw(14) << "p_top_ablated" << std::setw(13) << "delta_p_top" << std::setw(13)
              << "kl"
              << "\n";
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
        std::cout << std::setw(4) << i << "  " << padded(s.labels[i], 12)
                  << padded(i + 1 < s.ids.size() ? s.labels[i + 1] : "-", 12)
                  << padded(piece(c.topIds[i]), 12) << std::setw(12) << c.pTopClean[i]
                  << std::setw(14) << c.pTopAblated[i] << std::setw(13) << c.deltaPTop[i]
                  << std::setw(13) << c.kl[i] << "\n";
    }
    if (c.logitDiff) {
        const analysis::LogitDiffEffect& d = *c.logitDiff;
        std::cout << "\nlogit difference at " << d.request.position << " ("
                  << s.labels[static_cast<std::size_t>(d.request.position)] << "): l("
                  << piece(d.request.a) << ") - l(" << piece(d.request.b) << ")  clean " << d.clean
                  << "  ablated " << d.ablated << "  delta " << d.delta << "\n";
    }
}

void printTopHeads(const analysis::AblationEffects& e,
                   const std::vector<std::optional<AblationKind>>& resolved, int top) {
    std::vector<int> order;
    for (std::size_t i = 0; i < e.js.size(); ++i) {
        if (!resolved[i] && e.js[i] > 0) {  // NaN and unchanged heads are left out
            order.push_back(static_cast<int>(i));
        }
    }
    std::stable_sort(order.begin(), order.end(), [&e](int a, int b) {
        return e.js[static_cast<std::size_t>(a)] > e.js[static_cast<std::size_t>(b)];
    });
    order.resize(std::min(order.size(), static_cast<std::size_t>(top)));
    std::cout << "\n# downstream heads whose maps changed most: Jensen-Shannon divergence of "
                 "clean and ablated rows (nats, mean over query rows; the ablated heads "
                 "themselves left out)\n";
    if (order.empty()) {
        std::cout << "no other head's map changed\n";
        return;
    }
    std::cout << std::setw(4) << "rank"
              << "  " << std::left << std::setw(6) << "head" << std::right << std::setw(13) << "js"
              << "\n";
    for (std::size_t r = 0; r < order.size(); ++r) {
        const int i = order[r];
        std::cout << std::setw(4) << r + 1 << "  "
                  << padded(HeadId{i / e.nHeads, i % e.nHeads}.toString(), 6) << std::setw(13)
                  << e.js[static_cast<std::size_t>(i)] << "\n";
    }
}

// --out: every measure at full precision, with what the run was.
void writeOutput(const AblateArgs& args, const model::Model& m, const Sentence& s,
                 const forward::Interventions& iv,
                 const std::vector<std::optional<AblationKind>>& resolved,
                 const analysis::AblationEffects& e) {
    exporting::AblationFileInfo info;
    info.model = args.modelDir;
    info.objective = forward::predictionKindName(m);
    info.kind = args.kind;
    for (std::size_t i = 0; i < iv.ablations.size(); ++i) {
        info.ablations += (i ? ", " : "") + forward::describe(iv.ablations[i]);
    }
    if (kindOf(args.kind) == AblationKind::Mean) {
        info.meanCorpus = args.meanCorpus.value_or(kInputItself);
    }
    info.tokenIds = s.ids;
    info.tokens = s.labels;
    for (const auto& kind : resolved) {
        info.headAblated.push_back(kind.has_value());
    }
    info.textMasks = s.literalMasks;
    info.piece = [&m](std::int32_t id) { return analysis::tokenLabel(analysis::idPiece(m, id)); };
    if (isH5Path(*args.out)) {
        exporting::writeAblationH5(*args.out, e, info);
    } else {
        exporting::writeAblationCsv(*args.out, e, info);
    }
    std::cout << "\nwrote: " << *args.out << "\n";
}

}  // namespace

CLI::App* addAblateCommand(CLI::App& app, AblateArgs& args) {
    auto* cmd = app.add_subcommand(
        "ablate",
        "Ablate heads in one sentence and print what changes: masked LM delta log p, causal LM "
        "delta NLL / KL / delta p top / logit difference, and the heads whose maps changed");
    addModelDirArgument(*cmd, args.modelDir);
    auto* text = cmd->add_option("--text", args.text, "Input text (needs a tokenizer)");
    addIdListOption(*cmd, "--token-ids", args.tokenIds,
                    "Token ids instead of text, e.g. 101,7592,102")
        ->excludes(text);
    cmd->add_option("--heads", args.heads,
                    "Heads to ablate, LAYER-HEAD (or LAYER-gGROUP), 0-based: 3-7,5-1")
        ->required()
        ->check(CLI::Validator(
            [](const std::string& value) {
                try {
                    forward::parseAblationList(value);
                    return std::string();
                } catch (const InvalidArgument& e) {
                    return std::string(e.what());
                }
            },
            "LIST"));
    cmd->add_option("--kind", args.kind,
                    "zero (HF head_mask), mean (corpus mean output), sink "
                    "(attend to the first token)")
        ->check(CLI::IsMember({"zero", "mean", "sink"}))
        ->capture_default_str();
    cmd->add_flag("--kv-group", args.kvGroup,
                  "Each LAYER-N names key/value group N: every query head sharing it");
    cmd->add_option("--mask", args.maskPositions,
                    "Masked LM: token positions (0-based) to replace by the mask token and "
                    "measure against their original tokens")
        ->delimiter(',');
    cmd->add_option("--logit-diff", args.logitDiff,
                    "Causal LM: POS:A:B, the change of l(A) - l(B) at POS (pieces or #ID)");
    cmd->add_option("--mean-corpus", args.meanCorpus,
                    "Sentences (.txt or .conllu) the mean kind averages over (default: the "
                    "input itself)");
    cmd->add_option("--top", args.top, "How many changed heads to list")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    cmd->add_option("--out", args.out,
                    "Also write every measure at full precision: ablation.csv (one table; every "
                    "head's js with head_ablated) or ablation.h5 (arrays)")
        ->check(csvOrH5Output());
    cmd->callback([&args] {
        if (!args.text && args.tokenIds.empty()) {
            throw CLI::RequiredError("--text or --token-ids");
        }
    });
    return cmd;
}

int runAblate(const AblateArgs& args) {
    checkOutput("--out", args.out.value_or(""));  // before any work (issue 30)
    const auto model = loadModelWithWarnings(
        args.modelDir, args.text || args.meanCorpus ? model::TokenizerLoading::Full
                                                    : model::TokenizerLoading::VocabularyOnly);
    refuseEncoderDecoder("ablate", args.modelDir, *model);
    const model::Model& m = *model;
    const model::ModelSpec& spec = m.spec;
    Sentence s = readSentence(m, args);
    applyMasks(m, args, s);
    analysis::EffectRequest request;
    request.targets = s.targets;
    if (args.logitDiff) {
        request.logitDiff = parseLogitDiff(m, *args.logitDiff, s);
    }
    forward::Interventions iv;
    iv.ablations = ablationList(args);
    std::cout << "model: " << args.modelDir << " (" << forward::predictionKindName(m) << ", "
              << spec.nLayers << " layers x " << spec.nHeads << " heads), " << s.ids.size()
              << " tokens, " << args.kind << " ablation\n";
    if (kindOf(args.kind) == AblationKind::Mean) {
        iv.means = headMeans(m, args, s);
    }
    const auto resolved = withContext("--heads", [&] {
        return forward::resolveAblations(iv, spec.nLayers, spec.nHeads, spec.nKvHeads,
                                         spec.headDimV);
    });
    printAblations(iv, resolved, spec.nHeads);

    forward::ForwardOptions options;
    options.keepLayerStates = true;
    auto start = std::chrono::steady_clock::now();
    const forward::ForwardResult clean = forward::runForward(m, {s.ids, {}}, options);
    const double cleanMs = millisSince(start);
    options.interventions = iv;
    start = std::chrono::steady_clock::now();
    const forward::ForwardResult ablated = forward::runForwardFrom(m, clean, {s.ids, {}}, options);
    const double ablatedMs = millisSince(start);
    printResultWarnings(ablated);
    const int first = forward::firstAblatedLayer(resolved, spec.nLayers, spec.nHeads);
    std::cout << "first ablated layer: " << first << "; the ablated pass reran layers " << first
              << ".." << spec.nLayers - 1 << " in " << std::fixed << std::setprecision(1)
              << ablatedMs << " ms (the clean pass of all " << spec.nLayers
              << " layers: " << cleanMs << " ms)\n";
    std::cout.unsetf(std::ios::floatfield);
    std::cout << std::setprecision(6);

    for (const int p : s.literalMasks) {
        request.targets.push_back({p, forward::topPredictions(m, clean, p, 1).front().id});
    }
    const analysis::AblationEffects e = analysis::measureAblation(m, clean, ablated, request);
    if (spec.prediction == model::PredictionKind::MaskedLm) {
        printMasked(e, s, m);
    } else if (e.causal) {
        printCausal(*e.causal, s, m);
    }
    printTopHeads(e, resolved, args.top);
    if (args.out) {
        writeOutput(args, m, s, iv, resolved, e);
    }
    return 0;
}

}  // namespace attnscope::cli
