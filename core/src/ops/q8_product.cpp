// The 8-bit product's driver: quantize x, interleave it into panels, then split W's rows into
// blocks over the compute threads; each thread decodes its block (codes and integer scales,
// ~256 KiB at depth 4096, kept in L2) and runs the kernel on every panel against it.
//
// How llama.cpp batches the same work, for comparison: its x86 CPU backend quantizes the
// activations once per product (ggml_compute_forward_mul_mat, from_float of the vec_dot_type),
// then either repacks Q4_0/Q4_K/… weights once at load into 8-row interleaved blocks
// (ggml-cpu/repack.cpp, gemm 4 activation rows × 8 weight rows) or hands Q8_0/Q4_0 to
// llamafile's tinyBLAS (4×N tiles of block dot products), else calls vec_dot per pair in chunks
// of 16×16. Here the weights stay in the file's layout and are decoded per product, the
// activations are the interleaved side.
#include "attnscope/ops/q8_product.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include <omp.h>

#include "attnscope/base/error.h"
#include "q8_activations.h"
#include "q8_blocks.h"
#include "q8_panels.h"
#include "q8_product_detail.h"

namespace attnscope::ops {

namespace detail {

namespace {

// Weight rows per thread job: their decoded codes (64 × depth bytes) stay in L2 while every
// activation panel goes past.
constexpr Eigen::Index kBlockRows = 64;

bool cpuHasAvx512Vnni() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}

Q8Kernel chooseKernel() {
    const char* asked = std::getenv("ATTNSCOPE_ISA");
    if (asked != nullptr && std::string_view(asked) == "avx2") {
        return avx2Q8Kernel();
    }
    return cpuHasAvx512Vnni() ? avx512Q8Kernel() : avx2Q8Kernel();
}

}  // namespace

const Q8Kernel& q8Kernel() {
    static const Q8Kernel kernel = chooseKernel();
    return kernel;
}

std::vector<Q8Kernel> q8KernelsOnThisCpu() {
    std::vector<Q8Kernel> kernels{avx2Q8Kernel()};
    if (cpuHasAvx512Vnni()) {
        kernels.push_back(avx512Q8Kernel());
    }
    return kernels;
}

void checkQ8Operands(const Eigen::Ref<const Matrix>& x, const BlockMatrix& w, Eigen::Index first,
                     Eigen::Index count) {
    if (x.cols() != w.cols) {
        throw InvalidArgument("8-bit product: rows of " + std::to_string(x.cols()) +
                              " values against weights of " + std::to_string(w.cols));
    }
    if (first < 0 || count < 0 || first + count > w.rows) {
        throw InvalidArgument("8-bit product: rows [" + std::to_string(first) + ", " +
                              std::to_string(first + count) + ") of a matrix of " +
                              std::to_string(w.rows));
    }
}

Matrix q8ProductWith(const Q8Kernel& kernel, const Eigen::Ref<const Matrix>& x,
                     const BlockMatrix& w, Eigen::Index first, Eigen::Index count,
                     const float* bias) {
    checkQ8Operands(x, w, first, count);
    const Q8Format& f = requireQ8Format(w.type);
    const bool signedCodes = f.maxAbsCode > kernel.maxUnsignedWeight;
    const ActPanels acts(quantizeRows(x, f.activations), kernel.lanes, signedCodes);
    Matrix y(x.rows(), count);
    const Eigen::Index blocks = (count + kBlockRows - 1) / kBlockRows;
    const int team = static_cast<int>(
        std::clamp<Eigen::Index>(omp_get_max_threads(), 1, std::max<Eigen::Index>(1, blocks)));
#pragma omp parallel num_threads(team)
    {
        DecodedRows decoded;
#pragma omp for schedule(static)
        for (Eigen::Index b = 0; b < blocks; ++b) {
            const Eigen::Index o0 = b * kBlockRows;
            const Eigen::Index rows = std::min(kBlockRows, count - o0);
            const Eigen::Index padded =
                (rows + kernel.tileRows - 1) / kernel.tileRows * kernel.tileRows;
            decoded.decode(w, f, first + o0, rows, padded, signedCodes, kernel.pairedScales);
            for (Eigen::Index p = 0; p < acts.panels(); ++p) {
                kernel.run(Q8Job{acts.panel(p), decoded.view(), f.blockElements / 4, f.groups,
                                 f.hasMin, signedCodes, rows,
                                 y.data() + p * kernel.lanes * y.outerStride() + o0,
                                 y.outerStride(), bias ? bias + o0 : nullptr});
            }
        }
    }
    return y;
}

}  // namespace detail

std::optional<io::GgmlType> q8ActivationType(io::GgmlType weights) {
    const detail::Q8Format* f = detail::q8Format(weights);
    return f ? std::optional(f->activations) : std::nullopt;
}

std::string q8Unsupported(io::GgmlType weights) {
    return detail::q8Format(weights) ? std::string()
                                     : std::string(io::ggmlTypeName(weights)) +
                                           " weights are not supported in 8-bit mode";
}

Matrix q8Product(const Matrix& x, const BlockMatrix& w, Eigen::Index first, Eigen::Index count,
                 const float* bias) {
    return detail::q8ProductWith(detail::q8Kernel(), x, w, first, count, bias);
}

const char* q8ProductIsa() {
    return detail::q8Kernel().isa;
}

}  // namespace attnscope::ops
