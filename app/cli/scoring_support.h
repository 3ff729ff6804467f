// What the corpus-scoring commands (deps, coref) share: the --from option's values, Ctrl+C
// handling, and an executor that runs the shares on std::threads while the calling thread draws
// a progress bar on stderr and turns Ctrl+C into a cancel, so an interrupted run stops at the
// next sentence or window and writes nothing (the output files are only ever renamed into place
// when complete).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/analysis/word_attention.h"
#include "attnscope/base/cancel.h"
#include "attnscope/export/dependency_export.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/ops/product_batch.h"
#include "attnscope/tokenize/tokenizer.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace attnscope::cli {

// "mean" (the paper), "first" (Clark's code) or "max"; anything else is Mean (CLI11 checks).
analysis::FromAggregation aggregation(const std::string& name);

// One model input for an attention dump (tests/reference re-scores from it), with the tokens'
// code-point offsets (Python str indices).
exporting::DumpedSentence dumpedInput(int line, std::string sentId, std::string text,
                                      const std::vector<tokenize::Token>& tokens,
                                      const forward::ForwardResult& result);

// Progress shared by the workers (they count `done`) and the bar; `total` may be set later.
struct ScoringProgress {
    std::atomic<std::size_t> done{0};
    std::atomic<std::size_t> total{0};
    std::string unit;  // "sentences", "windows"
};

// The runs that report a fraction done (importance, survey): `progress` becomes a percent bar and
// the returned callback moves it.
std::function<void(double)> percentProgress(ScoringProgress& progress);

// --threads: how many shares a corpus run is cut into, 1 to 64.
CLI::Option* addThreadsOption(CLI::App& command, int& threads);

// A run cut into more than one share is parallel over its sentences or windows, so each keeps its
// products on one thread rather than oversubscribing the cores.
void oneComputeThreadPerShare(std::size_t shares);

// A corpus run on `threads` threads with its passes' weight products batched
// (analysis/batched_shares.h): shares() many shares, run by executor(): each share a thread and a
// member of one batch, whose joint products use the `threads` cores. Sets one compute thread
// per share while it lives. Unbatched (--no-batch): `threads` shares, each sentence's products
// alone, as before batching (the same results, bit for bit; for comparison and timing).
class BatchedShares {
public:
    explicit BatchedShares(int threads, bool batched = true);
    ~BatchedShares();
    BatchedShares(const BatchedShares&) = delete;
    BatchedShares& operator=(const BatchedShares&) = delete;

    std::size_t shares() const { return m_shares; }

    analysis::ShareExecutor executor(ScoringProgress& progress, CancelToken cancel);

private:
    ops::ProductBatch m_batch;
    bool m_batched;
    std::size_t m_shares;
    int m_savedThreads;
};

// --no-batch, for BatchedShares.
CLI::Option* addNoBatchOption(CLI::App& command, bool& noBatch);

// While one is alive, the first Ctrl+C (SIGINT) only sets a flag, read by interrupted(); the
// second one ends the process as usual. A command holds one for its whole run, so an interrupt
// while the model or the corpus is read still ends the run cleanly.
class InterruptCatcher {
public:
    InterruptCatcher();
    ~InterruptCatcher();
    InterruptCatcher(const InterruptCatcher&) = delete;
    InterruptCatcher& operator=(const InterruptCatcher&) = delete;
};

bool interrupted();
void throwIfInterrupted();  // throws Cancelled

// Runs the shares on one std::thread each, drawing `progress` every 200 ms and cancelling
// `cancel` once interrupted().
analysis::ShareExecutor threadsWithProgress(ScoringProgress& progress, CancelToken cancel);

}  // namespace attnscope::cli
