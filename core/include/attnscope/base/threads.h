// How many threads the core's matrix products use. The core starts no threads of its own:
// Eigen splits each large product over an OpenMP team. The setting belongs to the calling
// thread (OpenMP's per-thread nthreads), so code that already runs several forward passes in
// parallel (attnscope-cli deps --threads N, the app's dependency scoring) sets 1 in each of its
// workers and the two levels do not oversubscribe the cores. The default is one per core.
#pragma once

namespace attnscope {

// n >= 1 for the calling thread; larger values are clamped to the hardware threads.
void setComputeThreads(int n);

int computeThreads();

}  // namespace attnscope
