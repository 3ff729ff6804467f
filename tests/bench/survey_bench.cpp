// Where the corpus survey's time goes (issue 18), on the BERT-base-sized model of the other
// benchmarks; run with `cmake --build build --target bench-survey` (survey_bench.sh also times
// the whole `attnscope-cli survey` at 2 threads). Never part of the tests.
//
// One compute thread, one share, the first N sentences of a treebank (default: 500 of UD English
// EWT dev), each phase timed per sentence in the order the survey runs them:
//   forward     forward::runForward (every head recorded, as surveyCorpus runs it)
//   survey      analysis::surveySentence (S2-S11 of the sentence; S11's Jensen-Shannon pairs
//               are the part that grows as heads^2 x tokens^2)
//   stats only  the same surveyMaps with every head given head 0's map: S2-S10 cost the same,
//               while S11 meets equal maps and does no logarithm (so survey - stats only is
//               what the JS distances cost)
//   deps        DependencyAccumulator::addSentence (the dependency counts of a treebank run)
//   fold        SurveyAccumulator::add, and finish (S9/S10 verdicts and the MDS) once
// Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that other programs on a busy
// machine lengthen them less than wall time; the whole run's wall time is printed last.
// Options: --model DIR, --treebank FILE, --sentences N, --ids-out FILE (writes the surveyed id
// lists, one comma-separated line each, and the S1/S4 ids to FILE.options, for
// survey_reference.py as a peer).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "attnscope/analysis/survey_corpus.h"
#include "attnscope/base/threads.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"
#include "attnscope/text/conllu.h"

namespace {

using namespace attnscope;

// The thread's CPU time in seconds.
double cpuNow() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Args {
    std::string model = ATTNSCOPE_BENCH_MODEL_DIR;
    std::string treebank =
        std::string(ATTNSCOPE_SHARED_DIR) + "/data/ud/UD_English-EWT/en_ewt-ud-dev.conllu";
    std::size_t sentences = 500;
    std::string idsOut;
};

Args parseArgs(int argc, char** argv) {
    Args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        const std::string value = argv[i + 1];
        if (key == "--model") {
            a.model = value;
        } else if (key == "--treebank") {
            a.treebank = value;
        } else if (key == "--sentences") {
            a.sentences = std::stoul(value);
        } else if (key == "--ids-out") {
            a.idsOut = value;
        } else {
            throw std::runtime_error("survey_bench: unknown option " + key);
        }
    }
    return a;
}

double since(double t) {
    return cpuNow() - t;
}

std::string joined(const std::vector<std::int32_t>& ids) {
    std::string s;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i > 0) {
            s += ',';
        }
        s += std::to_string(ids[i]);
    }
    return s;
}

void writeIds(const std::string& path, const analysis::SurveyCorpus& corpus,
              const analysis::SurveyOptions& options) {
    std::ofstream out(path);
    for (const auto& ids : corpus.ids) {
        out << joined(ids) << "\n";
    }
    std::ofstream opts(path + ".options");
    opts << "--special-ids " << joined(options.specialIds) << " --punct-ids "
         << joined(options.punctIds) << " --period-ids " << joined(options.periodIds) << "\n";
}

enum Phase { Forward, Survey, StatsOnly, Deps, Fold, PhaseCount };

const char* const kPhaseNames[PhaseCount] = {"forward", "survey (S2-S11)", "  stats only (S2-S10)",
                                             "deps (treebank)", "fold + finish"};

void report(const double (&t)[PhaseCount], const analysis::SurveyCorpus& corpus) {
    double tokens = 0, squares = 0;
    for (const auto& ids : corpus.ids) {
        tokens += static_cast<double>(ids.size());
        squares += static_cast<double>(ids.size() * ids.size());
    }
    const double n = static_cast<double>(corpus.ids.size());
    // What the survey itself runs: stats only is a measurement, not its work.
    const double total = t[Forward] + t[Survey] + t[Deps] + t[Fold];
    std::printf("%zu sentences, %.1f tokens on average, mean n^2 %.0f; one thread, CPU time\n",
                corpus.ids.size(), tokens / n, squares / n);
    std::printf("%-24s %10s %10s %8s\n", "phase", "s", "ms/sent", "share");
    for (int p = 0; p < PhaseCount; ++p) {
        std::printf("%-24s %10.2f %10.2f %7.1f%%\n", kPhaseNames[p], t[p], 1e3 * t[p] / n,
                    100.0 * t[p] / total);
    }
    const double js = t[Survey] - t[StatsOnly];
    std::printf("%-24s %10.2f %10.2f %7.1f%%\n", "  JS distances (S11)", js, 1e3 * js / n,
                100.0 * js / total);
    std::printf("%-24s %10.2f %10.2f %7.1f%%\n", "total (all but stats only)", total,
                1e3 * total / n, 100.0);
}

void run(const Args& args) {
    setComputeThreads(1);
    const auto wallStart = std::chrono::steady_clock::now();
    const auto model = model::loadModel(args.model);
    text::ConlluResult treebank = text::readConllu(args.treebank);
    if (treebank.sentences.size() > args.sentences) {
        treebank.sentences.resize(args.sentences);
    }
    const analysis::SurveyCorpus corpus =
        analysis::surveyCorpusFromTreebank(*model, treebank.sentences);
    analysis::SurveyOptions options;
    analysis::addCorpusIds(*model, corpus, options);
    if (!args.idsOut.empty()) {
        writeIds(args.idsOut, corpus, options);
    }
    double t[PhaseCount] = {};
    analysis::SurveyAccumulator acc(model->spec.nLayers, model->spec.nHeads, options);
    analysis::DependencyAccumulator deps(model->spec.nLayers, model->spec.nHeads);
    for (std::size_t i = 0; i < corpus.ids.size(); ++i) {
        double start = cpuNow();
        const forward::ForwardResult r = forward::runForward(*model, {corpus.ids[i], {}});
        t[Forward] += since(start);
        start = cpuNow();
        const analysis::SentenceSurvey s = analysis::surveySentence(*model, r, options);
        t[Survey] += since(start);
        const std::vector<const float*> same(static_cast<std::size_t>(r.nLayers * r.nHeads),
                                             r.attention({0, 0}).data());
        start = cpuNow();
        (void)analysis::surveyMaps(same, r.nTokens, r.tokenIds, r.allowed, options);
        t[StatsOnly] += since(start);
        start = cpuNow();
        if (!corpus.gold[i].words.empty()) {
            deps.addSentence(corpus.gold[i], corpus.tokens[i], r);
        }
        t[Deps] += since(start);
        start = cpuNow();
        acc.add(s);
        t[Fold] += since(start);
    }
    const double start = cpuNow();
    const analysis::HeadSurvey survey = acc.finish();
    t[Fold] += since(start);
    report(t, corpus);
    std::printf(
        "wall time of all of it (load included) %.1f s\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count());
    std::printf("check: distance(0,1) = %.17g\n", survey.distance.at(1));
}

}  // namespace

int main(int argc, char** argv) {
    try {
        run(parseArgs(argc, argv));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "survey_bench: %s\n", e.what());
        return 1;
    }
}
