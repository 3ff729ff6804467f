#include "attnscope/base/threads.h"

#include <algorithm>
#include <thread>

#include <omp.h>

namespace attnscope {

void setComputeThreads(int n) {
    const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    // Not Eigen::setNbThreads: that one is process-wide and would override every thread's own
    // choice; Eigen falls back to omp_get_max_threads(), which is per thread.
    omp_set_num_threads(std::clamp(n, 1, hardware));
}

int computeThreads() {
    return omp_get_max_threads();
}

}  // namespace attnscope
