// Activation patching on a BERT-base-sized model (issue 34); run with
// `cmake --build build --target bench-patching`, never as part of the tests.
//
// HeadSweep: analysis::patchSweep over all 144 heads (denoising, every head's output at every
// position) of two 20-token prompts that differ in one word, against what the restarts cost in
// plain-pass time: for each patched head of layer L, the time layers L..11 take in a plain pass
// of the same prompt (one plain pass per iteration, its layers timed through
// ForwardOptions::progress, interleaved with the sweep so a busy machine slows both alike).
// Reported: the sweep (manual time), layers_above_ms (the sum over the 144 heads) and
// ratio = sweep / that sum (issue: at most 3, "restarts, not full passes").
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "attnscope/analysis/activation_patching.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace {

using namespace attnscope;
using Clock = std::chrono::steady_clock;

const char* const kClean =
    "the keys to the old wooden cabinet in the hall are on the kitchen table again today .";
const char* const kCorrupted =
    "the keys to the old wooden drawer in the hall are on the kitchen table again today .";

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

void headSweep(benchmark::State& state) {
    const auto model = benchModel();
    analysis::PatchingSetup setup;
    setup.clean = tokenize::ids(model->tokenizer->encode(kClean));
    setup.corrupted = tokenize::ids(model->tokenizer->encode(kCorrupted));
    if (setup.clean.size() != setup.corrupted.size()) {
        state.SkipWithError("the two prompts tokenize to different lengths");
        return;
    }
    setup.target = setup.clean[7];
    setup.distractor = setup.corrupted[7];
    setup.position = 7;
    const analysis::PatchingBase base = analysis::runPatchingBase(*model, setup, {});
    const int nLayers = model->spec.nLayers;
    std::vector<Clock::time_point> done(static_cast<std::size_t>(nLayers) + 1);
    forward::ForwardOptions plain;
    int finished = 0;
    plain.progress = [&](double) { done[static_cast<std::size_t>(++finished)] = Clock::now(); };
    double sweepTotal = 0;
    double aboveTotal = 0;
    for (auto _ : state) {
        finished = 0;
        done[0] = Clock::now();
        benchmark::DoNotOptimize(
            forward::runForward(*model, {setup.corrupted, {}}, plain).hidden.data());
        const auto end = Clock::now();
        double above = 0;
        for (int layer = 0; layer < nLayers; ++layer) {
            above += model->spec.nHeads * seconds(done[static_cast<std::size_t>(layer)], end);
        }
        const auto start = Clock::now();
        const auto grid = analysis::patchSweep(*model, base, analysis::PatchSweep::Head,
                                               analysis::PatchDirection::Denoise);
        benchmark::DoNotOptimize(grid.ld.data());
        const double took = seconds(start, Clock::now());
        state.SetIterationTime(took);
        sweepTotal += took;
        aboveTotal += above;
    }
    const auto n = static_cast<double>(state.iterations());
    state.counters["tokens"] = static_cast<double>(setup.clean.size());
    state.counters["layers_above_ms"] = 1e3 * aboveTotal / n;
    state.counters["ratio"] = sweepTotal / aboveTotal;
}

}  // namespace

BENCHMARK(headSweep)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK_MAIN();
