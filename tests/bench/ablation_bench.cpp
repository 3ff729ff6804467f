// Head ablation and head importance on a BERT-base-sized model (issue 17); run with
// `cmake --build build --target bench-ablation`, never as part of the tests.
//
// OneHeadAblation/L: zero-ablating head L-0 of a 20-token sentence with forward::runForwardFrom
// (restarting at layer L from a clean pass made once), against the time layers L..11 take in a
// plain pass of the same sentence, timed in the same iteration (interleaved, so that a busy
// machine slows both alike). The plain pass reports each finished layer (ForwardOptions::
// progress); "layers above" = its end minus the moment layer L-1 finished (for L = 0, minus the
// call: that also counts checking the input and embedding). Reported: the ablated pass
// (manual time), layers_above_ms and ratio = ablated / layers above (issue: at most 1.1).
//
// Importance144: analysis::headImportance of all 144 heads (zero ablation) on the first 100
// sentences of UD English EWT dev (masked LM, 15 %, seed 0), 2 shares on 2 threads with one
// compute thread each; one run, wall time (issue: at most 5 minutes). Skipped with a message
// when the treebank is absent.
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "../core/support/executors.h"
#include "attnscope/analysis/head_importance.h"
#include "attnscope/base/threads.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"
#include "attnscope/text/conllu.h"

namespace {

using namespace attnscope;
using Clock = std::chrono::steady_clock;

// 20 tokens with [CLS] and [SEP] under the bert-base-uncased vocabulary (interactive_bench's).
const char* const kSentence =
    "the keys to the old wooden cabinet in the hall are on the kitchen table again today .";
constexpr int kSentences = 100;

std::shared_ptr<const model::Model> benchModel() {
    static const auto model = [] {
        const char* dir = std::getenv("ATTNSCOPE_BENCH_MODEL");
        return model::loadModel(dir != nullptr ? dir : ATTNSCOPE_BENCH_MODEL_DIR);
    }();
    return model;
}

double seconds(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

void oneHeadAblation(benchmark::State& state) {
    const auto model = benchModel();
    const int layer = static_cast<int>(state.range(0));
    const forward::ForwardInput input{tokenize::ids(model->tokenizer->encode(kSentence)), {}};
    forward::ForwardOptions keep;
    keep.keepLayerStates = true;
    const forward::ForwardResult clean = forward::runForward(*model, input, keep);
    forward::ForwardOptions ablate;
    ablate.interventions.ablations.push_back({layer, 0, false, forward::AblationKind::Zero});

    const int nLayers = model->spec.nLayers;
    std::vector<Clock::time_point> done(static_cast<std::size_t>(nLayers) + 1);
    forward::ForwardOptions plain;
    int finished = 0;
    plain.progress = [&](double) { done[static_cast<std::size_t>(++finished)] = Clock::now(); };
    double ablatedTotal = 0;
    double aboveTotal = 0;
    for (auto _ : state) {
        finished = 0;
        done[0] = Clock::now();
        benchmark::DoNotOptimize(forward::runForward(*model, input, plain).hidden.data());
        const double above = seconds(done[static_cast<std::size_t>(layer)], Clock::now());
        const auto start = Clock::now();
        const auto r = forward::runForwardFrom(*model, clean, input, ablate);
        benchmark::DoNotOptimize(r.hidden.data());
        const double took = seconds(start, Clock::now());
        state.SetIterationTime(took);
        ablatedTotal += took;
        aboveTotal += above;
    }
    const auto n = static_cast<double>(state.iterations());
    state.counters["tokens"] = static_cast<double>(input.tokenIds.size());
    state.counters["layers_above_ms"] = 1e3 * aboveTotal / n;
    state.counters["ratio"] = ablatedTotal / aboveTotal;
}

std::vector<std::string> ewtSentences() {
    const std::filesystem::path file =
        std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data/ud/UD_English-EWT/en_ewt-ud-dev.conllu";
    std::vector<std::string> out;
    if (!std::filesystem::exists(file)) {
        return out;
    }
    text::ConlluReader reader(file);
    while (out.size() < kSentences) {
        auto s = reader.next();
        if (!s) {
            break;
        }
        out.push_back(s->text);
    }
    return out;
}

void importance144(benchmark::State& state) {
    const auto model = benchModel();
    const std::vector<std::string> sentences = ewtSentences();
    if (sentences.size() < kSentences) {
        state.SkipWithError("UD English EWT dev (../shared/data/ud) is absent: nothing to run");
        return;
    }
    const int threadsBefore = computeThreads();
    setComputeThreads(1);  // parallel over shares, not inside products
    analysis::ImportanceOptions options;
    options.shares = 2;
    try {
        const analysis::ImportanceCorpus corpus =
            analysis::importanceCorpus(*model, sentences, options);
        analysis::ImportanceResult r;
        for (auto _ : state) {  // one thread per share: what attnscope-cli supplies
            r = analysis::headImportance(*model, corpus.items, options,
                                         attnscope::testing::runOnThreads);
        }
        std::size_t tokens = 0;
        for (const auto& item : corpus.items) {
            tokens += item.ids.size();
        }
        state.counters["items"] = static_cast<double>(r.items);
        state.counters["tokens"] = static_cast<double>(tokens);
        state.counters["targets"] = static_cast<double>(r.targets);
        state.counters["units"] = static_cast<double>(r.nLayers * r.nUnits);
        state.counters["clean_loss"] = r.cleanLoss;
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
    setComputeThreads(threadsBefore);
}

}  // namespace

BENCHMARK(oneHeadAblation)
    ->Arg(0)
    ->Arg(6)
    ->Arg(11)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(11)
    ->ReportAggregatesOnly(true);
BENCHMARK(importance144)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK_MAIN();
