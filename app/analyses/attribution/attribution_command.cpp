#include "analyses/attribution/attribution_command.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/attribution.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/base/error.h"
#include "attnscope/export/attribution_export.h"
#include "cli/cli_checks.h"
#include "cli/scoring_support.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

using analysis::AttributionMethod;

std::string validNames() {
    std::string out;
    for (const AttributionMethod m : analysis::kAttributionMethods) {
        out += analysis::attributionMethodName(m) + ", ";
    }
    return out + "all";
}

// Raw first (it is always written), then the others in kAttributionMethods' order, each once.
// CLI::ValidationError (exit 2) for a name that is no method.
std::vector<AttributionMethod> requestedMethods(const std::vector<std::string>& names) {
    std::vector<bool> wanted(std::size(analysis::kAttributionMethods), false);
    wanted[0] = true;  // kAttributionMethods starts with Raw
    for (const std::string& name : names) {
        if (name == "all") {
            std::fill(wanted.begin(), wanted.end(), true);
            continue;
        }
        const std::optional<AttributionMethod> m = analysis::parseAttributionMethod(name);
        if (!m) {
            std::string reason = "unknown method '";
            reason.append(name).append("'; the methods are ").append(validNames());
            throw CLI::ValidationError("--method", reason);
        }
        const auto* at = std::find(std::begin(analysis::kAttributionMethods),
                                   std::end(analysis::kAttributionMethods), *m);
        wanted[static_cast<std::size_t>(at - std::begin(analysis::kAttributionMethods))] = true;
    }
    std::vector<AttributionMethod> out;
    for (std::size_t k = 0; k < wanted.size(); ++k) {
        if (wanted[k]) {
            out.push_back(analysis::kAttributionMethods[k]);
        }
    }
    return out;
}

// "attnscope-cli: value-zeroing 40%" on stderr, at most five times a second; the core may call
// it from a worker thread.
class MethodProgress {
public:
    explicit MethodProgress(AttributionMethod method)
        : m_name(analysis::attributionMethodName(method)) {}

    void report(double fraction) {
        const std::lock_guard lock(m_mutex);
        const auto now = Clock::now();
        if (now - m_shown < std::chrono::milliseconds(200) && fraction < 1.0) {
            return;
        }
        m_shown = now;
        m_drawn = true;
        std::cerr << "\rattnscope-cli: " << m_name << " " << static_cast<int>(100.0 * fraction)
                  << "%" << std::flush;
    }

    ~MethodProgress() {
        if (m_drawn) {
            std::cerr << "\n";
        }
    }

    MethodProgress(const MethodProgress&) = delete;
    MethodProgress& operator=(const MethodProgress&) = delete;

private:
    using Clock = std::chrono::steady_clock;
    std::string m_name;
    std::mutex m_mutex;
    Clock::time_point m_shown;
    bool m_drawn = false;
};

// While alive, turns Ctrl+C (InterruptCatcher's flag) into `cancel`: the core checks the token
// per layer and per key, while the flag is only read by the command's own code.
class InterruptWatch {
public:
    explicit InterruptWatch(CancelToken cancel)
        : m_thread([cancel](const std::stop_token& stop) {
              while (!stop.stop_requested() && !cancel.isCancelled()) {
                  if (interrupted()) {
                      cancel.cancel();
                  }
                  std::this_thread::sleep_for(std::chrono::milliseconds(50));
              }
          }) {}

private:
    std::jthread m_thread;
};

analysis::Attribution computeOne(const model::Model& m, const forward::ForwardResult& pass,
                                 AttributionMethod method, const CancelToken& cancel) {
    analysis::AttributionOptions options;
    options.cancel = cancel;
    if (!analysis::isSlow(method)) {
        return analysis::computeAttribution(m, pass, method, options);
    }
    MethodProgress progress(method);
    options.progress = [&progress](double f) { progress.report(f); };
    return analysis::computeAttribution(m, pass, method, options);
}

// Every requested method; flow runs right after the raw maps, so a sentence too long for it
// fails before the slow value zeroing rather than after.
std::vector<analysis::Attribution> computeAll(const model::Model& m,
                                              const forward::ForwardResult& pass,
                                              std::vector<AttributionMethod> methods) {
    std::stable_partition(methods.begin(), methods.end(), [](AttributionMethod x) {
        return x == AttributionMethod::Raw || x == AttributionMethod::Flow;
    });
    const CancelToken cancel;
    const InterruptWatch watch(cancel);
    std::vector<analysis::Attribution> out;
    for (const AttributionMethod method : methods) {
        try {
            out.push_back(computeOne(m, pass, method, cancel));
        } catch (const InvalidArgument& e) {
            if (method != AttributionMethod::Flow || pass.nTokens <= analysis::kFlowMaxTokens) {
                throw;
            }
            throw InvalidArgument(std::string(e.what()) +
                                  "; leave flow out of --method for this sentence");
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return static_cast<int>(a.method) < static_cast<int>(b.method);
    });
    return out;
}

void printSummary(const AttributionArgs& args, const model::Model& m,
                  const std::vector<analysis::Attribution>& all) {
    const analysis::Attribution& raw = all.front();
    std::cout << "model:   " << args.sentence.modelDir << " (" << m.spec.modelType << ", "
              << (m.spec.normPlacement == model::NormPlacement::Pre ? "pre-LN" : "post-LN") << ")\n"
              << "tokens:  " << raw.nTokens << " (" << raw.nLayers << " layers x " << raw.nHeads
              << " heads)\n"
              << "methods:";
    for (const analysis::Attribution& a : all) {
        std::cout << " " << analysis::attributionMethodName(a.method);
    }
    std::cout << "\n";
    for (const analysis::Attribution& a : all) {
        if (a.method != AttributionMethod::Alti) {
            continue;
        }
        std::ostringstream errors;
        errors << std::scientific << std::setprecision(2);
        for (const double e : a.reconstructionError) {
            errors << " " << e;
        }
        std::cout << "ALTI reconstruction error per layer (max |y^ - y|):" << errors.str() << "\n";
    }
    std::cout << "wrote:   " << args.out << "\n";
}

}  // namespace

CLI::App* addAttributionCommand(CLI::App& app, AttributionArgs& args) {
    auto* command = app.add_subcommand(
        "attribution",
        "Attribution maps of one sentence (norm, rollout, flow, ALTI, value zeroing) to HDF5");
    addSentenceOptions(*command, args.sentence);
    command
        ->add_option("--method", args.methods,
                     "Methods, comma-separated: raw, norm, rollout, flow, alti, value-zeroing, or "
                     "all (the raw attention is always written)")
        ->delimiter(',')
        ->required();
    command->add_option("--out", args.out, "Output file (.h5)")->required();
    command->callback([&args] {
        checkSentenceArgs(args.sentence);
        requestedMethods(args.methods);
    });
    return command;
}

int runAttribution(const AttributionArgs& args) {
    const InterruptCatcher interrupts;
    checkOutput("--out", args.out);
    const SentenceArgs& sentence = args.sentence;
    const auto m = loadModelWithWarnings(
        sentence.modelDir,
        sentence.text ? model::TokenizerLoading::Full : model::TokenizerLoading::VocabularyOnly,
        activationPrecision(sentence));
    refuseEncoderDecoder("attribution", sentence.modelDir, *m);
    const forward::ForwardOptions options =
        analysis::attributionPassOptions(forwardOptions(sentence));
    const analysis::SentenceAnalysis a =
        sentence.text ? analysis::analyzeText(*m, *sentence.text, options)
                      : analysis::analyzeIds(*m, checkedTokenIds(sentence.tokenIds), options);
    printResultWarnings(a.forward);
    throwIfInterrupted();
    const std::vector<analysis::Attribution> all =
        computeAll(*m, a.forward, requestedMethods(args.methods));
    throwIfInterrupted();
    exporting::AttributionFileInfo info;
    info.model = sentence.modelDir;
    info.modelType = m->spec.modelType;
    info.maskKind = a.forward.maskKind;
    info.text = a.text;
    info.tokenIds = a.forward.tokenIds;
    for (const tokenize::Token& t : a.tokens) {
        info.tokens.push_back(t.text);
    }
    exporting::writeAttributionHdf5(args.out, all, info);
    printSummary(args, *m, all);
    return 0;
}

}  // namespace attnscope::cli
