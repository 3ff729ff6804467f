// How many threads the core computes with. The core creates no std::thread of its own, but its
// parallel sections run on OpenMP teams of up to this size, started by OpenMP on the calling
// thread: the weight products (full and half precision), the row-wise norms and element-wise
// steps of large inputs, the heads of a layer in the forward pass, and Eigen's own products.
// Work over many sentences (analysis::scoreTreebank) runs on threads the caller supplies, each
// with its own teams, so such callers set 1 here.
//
// One by default: small products gain nothing from a team, and a team whose second core is
// busy elsewhere (another program, a second forward pass) spins and can run many times slower.
// Raise it for long inputs or large models on an otherwise idle machine (benchmarks,
// attnscope-cli).
//
// Process-wide; each forward pass applies it to the thread it runs on. The environment
// variable ATTNSCOPE_THREADS sets the starting value.
#pragma once

namespace attnscope {

// n >= 1; larger values are clamped to the number of hardware threads.
void setComputeThreads(int n);

int computeThreads();

// Makes the calling thread's products use computeThreads() threads (OpenMP's team size is a
// per-thread setting). Called by the forward pass and the other entry points that multiply.
void applyComputeThreads();

}  // namespace attnscope
