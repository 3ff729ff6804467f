// The 8-bit product's internals that tests reach: each instruction set's kernel and the scalar
// reference. Internal to attnscope_core.
#pragma once

#include <vector>

#include "attnscope/base/tensor.h"
#include "attnscope/ops/weight_types.h"
#include "q8_kernel.h"

namespace attnscope::ops::detail {

// The kernel q8Product runs: AVX-512 VNNI where the CPU has it (unless ATTNSCOPE_ISA=avx2),
// else AVX2. Chosen on first use, then fixed for the process.
const Q8Kernel& q8Kernel();

// Every kernel this CPU can run (AVX2 first).
std::vector<Q8Kernel> q8KernelsOnThisCpu();

// InvalidArgument unless x's rows fit W's and [first, first + count) lies in W.
void checkQ8Operands(const Eigen::Ref<const Matrix>& x, const BlockMatrix& w, Eigen::Index first,
                     Eigen::Index count);

// q8Product with a given kernel, on the compute threads.
Matrix q8ProductWith(const Q8Kernel& kernel, const Eigen::Ref<const Matrix>& x,
                     const BlockMatrix& w, Eigen::Index first, Eigen::Index count,
                     const float* bias);

// The same numbers, bit for bit, computed one output at a time from ggml's blocks with plain
// integer loops (q8_dot_scalar.cpp): the reference the kernels are tested against, and the
// product on a CPU without AVX2 (which AttnScope does not start on, so a test-only path today).
Matrix q8ProductScalar(const Eigen::Ref<const Matrix>& x, const BlockMatrix& w, Eigen::Index first,
                       Eigen::Index count, const float* bias);

}  // namespace attnscope::ops::detail
