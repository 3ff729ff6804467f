// The interactive path on a BERT-base-sized model: one keystroke in a 20-token sentence (tokenize,
// forward pass recording all 144 heads, per-head statistics) and building the model grid's 144
// thumbnails. Reported as medians over repetitions; run with `cmake --build build --target
// bench-interactive`, never as part of the tests.
#include <cstdlib>
#include <iostream>

#include <benchmark/benchmark.h>

#include "attnscope/analysis/sentence_analysis.h"
#include "render/heatmap_image.h"

namespace {

using namespace attnscope;

// 20 tokens with [CLS] and [SEP] under the bert-base-uncased vocabulary (the counter checks).
const char* const kSentence =
    "the keys to the old wooden cabinet in the hall are on the kitchen table again today .";

std::shared_ptr<const model::Model> benchModel() {
    static const auto model = [] {
        const char* dir = std::getenv("ATTNSCOPE_BENCH_MODEL");
        return model::loadModel(dir != nullptr ? dir : ATTNSCOPE_BENCH_MODEL_DIR);
    }();
    return model;
}

void keystroke(benchmark::State& state) {
    const auto model = benchModel();
    std::size_t tokens = 0;
    for (auto _ : state) {
        const auto a = analysis::analyzeText(*model, kSentence, {});
        tokens = a.tokens.size();
        benchmark::DoNotOptimize(a.forward.probs.data());
    }
    state.counters["tokens"] = static_cast<double>(tokens);
}

void gridThumbnails(benchmark::State& state) {
    const auto model = benchModel();
    const auto a = analysis::analyzeText(*model, kSentence, {});
    const auto& f = a.forward;
    for (auto _ : state) {
        for (int layer = 0; layer < f.nLayers; ++layer) {
            for (int head = 0; head < f.nHeads; ++head) {
                benchmark::DoNotOptimize(
                    render::heatmapImage(f.attention({layer, head}), &f.allowed, {}));
            }
        }
    }
}

}  // namespace

BENCHMARK(keystroke)->Unit(benchmark::kMillisecond)->Repetitions(21)->ReportAggregatesOnly(true);
BENCHMARK(gridThumbnails)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(21)
    ->ReportAggregatesOnly(true);
BENCHMARK_MAIN();
