#include "cli/scoring_support.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <iostream>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/batched_shares.h"
#include "attnscope/base/threads.h"

namespace attnscope::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void onInterrupt(int) {
    g_interrupted = 1;
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl+C is not ignored
}

void drawBar(const ScoringProgress& p) {
    constexpr std::size_t kWidth = 40;
    const std::size_t done = p.done;
    const std::size_t total = p.total;
    const std::size_t filled = total == 0 ? 0 : std::min(kWidth, kWidth * done / total);
    std::cerr << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, ' ') << "] "
              << done << "/" << total << " " << p.unit << std::flush;
}

}  // namespace

std::function<void(double)> percentProgress(ScoringProgress& progress) {
    progress.total = 100;
    progress.unit = "%";
    return
        [&progress](double f) { progress.done = static_cast<std::size_t>(std::floor(100.0 * f)); };
}

CLI::Option* addThreadsOption(CLI::App& command, int& threads) {
    return command.add_option("--threads", threads, "Worker threads")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
}

void oneComputeThreadPerShare(std::size_t shares) {
    if (shares > 1) {
        setComputeThreads(1);
    }
}

BatchedShares::BatchedShares(int threads, bool batched)
    : m_batch(threads),
      m_batched(batched),
      m_shares(static_cast<std::size_t>(std::max(threads, 1)) *
               (batched ? analysis::kBatchedSharesPerThread : 1)),
      m_savedThreads(computeThreads()) {
    oneComputeThreadPerShare(m_shares);
}

BatchedShares::~BatchedShares() {
    setComputeThreads(m_savedThreads);
}

analysis::ShareExecutor BatchedShares::executor(ScoringProgress& progress, CancelToken cancel) {
    analysis::ShareExecutor plain = threadsWithProgress(progress, std::move(cancel));
    return m_batched ? analysis::batchedShares(std::move(plain), m_batch) : plain;
}

CLI::Option* addNoBatchOption(CLI::App& command, bool& noBatch) {
    return command.add_flag("--no-batch", noBatch,
                            "Multiply each sentence's weights alone, not together with other "
                            "sentences' (slower; the same results bit for bit)");
}

InterruptCatcher::InterruptCatcher() {
    g_interrupted = 0;
    std::signal(SIGINT, onInterrupt);
}

InterruptCatcher::~InterruptCatcher() {
    std::signal(SIGINT, SIG_DFL);
}

bool interrupted() {
    return g_interrupted != 0;
}

void throwIfInterrupted() {
    if (interrupted()) {
        throw Cancelled();
    }
}

analysis::FromAggregation aggregation(const std::string& name) {
    return name == "first" ? analysis::FromAggregation::First
           : name == "max" ? analysis::FromAggregation::Max
                           : analysis::FromAggregation::Mean;
}

exporting::DumpedSentence dumpedInput(int line, std::string sentId, std::string text,
                                      const std::vector<tokenize::Token>& tokens,
                                      const forward::ForwardResult& result) {
    exporting::DumpedSentence d;
    d.line = line;
    d.sentId = std::move(sentId);
    d.text = std::move(text);
    for (const tokenize::Token& t : tokens) {
        d.offsets.emplace_back(t.charBegin, t.charEnd);
        d.special.push_back(t.special ? 1 : 0);
    }
    d.attention.assign(result.probs.begin(), result.probs.end());
    d.nLayers = result.nLayers;
    d.nHeads = result.nHeads;
    return d;
}

analysis::ShareExecutor threadsWithProgress(ScoringProgress& progress, CancelToken cancel) {
    return [&progress, cancel](std::size_t n, const std::function<void(std::size_t)>& task) {
        std::atomic<std::size_t> finished{0};
        std::vector<std::thread> workers;
        for (std::size_t t = 0; t < n; ++t) {
            workers.emplace_back([&task, &finished, t] {
                task(t);
                ++finished;
            });
        }
        while (finished < n) {
            if (interrupted()) {
                cancel.cancel();
            }
            drawBar(progress);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        for (std::thread& w : workers) {
            w.join();
        }
        drawBar(progress);
        std::cerr << "\n";
    };
}

}  // namespace attnscope::cli
