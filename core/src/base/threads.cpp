#include "attnscope/base/threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include <omp.h>

namespace attnscope {

namespace {

int clampThreads(int n) {
    const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    return std::clamp(n, 1, hardware);
}

int initialThreads() {
    const char* env = std::getenv("ATTNSCOPE_THREADS");
    if (env == nullptr) {
        return 1;
    }
    try {
        return clampThreads(std::stoi(env));
    } catch (const std::exception&) {
        return 1;  // not a number: keep the safe default
    }
}

std::atomic<int>& threads() {
    static std::atomic<int> value{initialThreads()};
    return value;
}

}  // namespace

void setComputeThreads(int n) {
    threads().store(clampThreads(n));
}

int computeThreads() {
    return threads().load();
}

void applyComputeThreads() {
    // Not Eigen::setNbThreads: Eigen reads omp_get_max_threads() of the calling thread when it
    // was never set, and that is what this sets.
    omp_set_num_threads(computeThreads());
}

}  // namespace attnscope
