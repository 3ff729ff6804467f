// Share executors (analysis::ShareExecutor) for tests of corpus-level analyses: one that runs the
// shares one after another on the calling thread, and one that gives each share its own thread,
// so that a test can check a result does not depend on how its shares ran.
#pragma once

#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace attnscope::testing {

inline void runInline(std::size_t n, const std::function<void(std::size_t)>& task) {
    for (std::size_t i = 0; i < n; ++i) {
        task(i);
    }
}

inline void runOnThreads(std::size_t n, const std::function<void(std::size_t)>& task) {
    std::vector<std::thread> workers;
    for (std::size_t i = 0; i < n; ++i) {
        workers.emplace_back(task, i);
    }
    for (std::thread& w : workers) {
        w.join();
    }
}

}  // namespace attnscope::testing
