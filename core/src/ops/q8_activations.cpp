// Activation quantization, written from ggml's src/ggml-cpu/arch/x86/quants.c
// (quantize_row_q8_0, its AVX path) and src/ggml-quants.c (quantize_row_q8_K_ref, which the x86
// quantize_row_q8_K calls). Built with -ffp-contract=off: each product rounds on its own, as in
// the C source.
#include "q8_activations.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <span>
#include <string>

#include <omp.h>

#include "attnscope/base/error.h"
#include "attnscope/ops/q8_product.h"
#include "q8_blocks.h"

namespace attnscope::ops {

namespace detail {

namespace {

constexpr Eigen::Index kQ8_0Block = 32;
constexpr Eigen::Index kQ8_KBlock = 256;

Eigen::Index blockOf(io::GgmlType type) {
    if (type == io::GgmlType::Q8_0) {
        return kQ8_0Block;
    }
    if (type == io::GgmlType::Q8_K) {
        return kQ8_KBlock;
    }
    throw InvalidArgument("8-bit activations are Q8_0 or Q8_K, not " +
                          std::string(io::ggmlTypeName(type)));
}

// _mm256_cvtps_epi32 of an already rounded value, then the two saturating packs to int8:
// NaN and values outside int32 become INT32_MIN, hence −128.
std::int8_t packedCode(float rounded) {
    if (!(rounded >= -2147483648.0f && rounded < 2147483648.0f)) {
        return -128;
    }
    return static_cast<std::int8_t>(std::clamp(static_cast<std::int32_t>(rounded), -128, 127));
}

// quantize_row_q8_0's AVX path on one block of 32.
void q8_0Block(const float* x, std::int8_t* codes, std::uint16_t& half) {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) {
        amax = std::max(amax, std::fabs(x[j]));
    }
    const float d = amax / 127.0f;
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    half = floatToHalf(d);
    for (int j = 0; j < 32; ++j) {
        const float scaled = x[j] * id;
        codes[j] = packedCode(std::nearbyint(scaled));  // ties to even, as _MM_ROUND_NEAREST
    }
}

// ggml's nearest_int: adding 1.5·2^23 rounds to an integer (ties to even) in the low mantissa.
int nearestInt(float value) {
    const float shifted = value + 12582912.0f;
    return static_cast<int>(std::bit_cast<std::uint32_t>(shifted) & 0x007fffffu) - 0x00400000;
}

// quantize_row_q8_K_ref on one block of 256.
void q8_KBlock(const float* x, std::int8_t* codes, float& d, std::int16_t* sums) {
    float max = 0.0f;
    float amax = 0.0f;
    for (int j = 0; j < 256; ++j) {
        const float ax = std::fabs(x[j]);
        if (ax > amax) {
            amax = ax;
            max = x[j];
        }
    }
    if (amax == 0.0f) {
        d = 0.0f;
        std::fill_n(codes, 256, std::int8_t{0});
        std::fill_n(sums, 16, std::int16_t{0});
        return;
    }
    const float iscale = -127.0f / max;
    for (int j = 0; j < 256; ++j) {
        const float scaled = iscale * x[j];
        codes[j] = static_cast<std::int8_t>(std::min(127, nearestInt(scaled)));  // wraps as C
    }
    for (int g = 0; g < 16; ++g) {
        int sum = 0;
        for (int l = 0; l < 16; ++l) {
            sum += codes[16 * g + l];
        }
        sums[g] = static_cast<std::int16_t>(sum);
    }
    d = 1.0f / iscale;
}

void quantizeRow(QuantizedRows& q, const float* x, Eigen::Index r) {
    std::int8_t* codes = q.codes.data() + r * q.depth;
    for (Eigen::Index b = 0; b < q.blocks; ++b) {
        const auto i = static_cast<std::size_t>(r * q.blocks + b);
        if (q.type == io::GgmlType::Q8_0) {
            q8_0Block(x + b * kQ8_0Block, codes + b * kQ8_0Block, q.half[i]);
            q.d[i] = halfToFloat(q.half[i]);
        } else {
            q8_KBlock(x + b * kQ8_KBlock, codes + b * kQ8_KBlock, q.d[i], q.sums.data() + i * 16);
        }
    }
}

}  // namespace

QuantizedRows quantizeRows(const Eigen::Ref<const Matrix>& x, io::GgmlType type) {
    const Eigen::Index block = blockOf(type);
    if (x.cols() % block != 0) {
        throw InvalidArgument("8-bit activations: a row of " + std::to_string(x.cols()) +
                              " values is not whole blocks of " + std::to_string(block));
    }
    QuantizedRows q;
    q.type = type;
    q.rows = x.rows();
    q.depth = x.cols();
    q.blocks = x.cols() / block;
    const auto blocks = static_cast<std::size_t>(q.rows * q.blocks);
    q.codes.resize(static_cast<std::size_t>(q.rows * q.depth));
    q.d.resize(blocks);
    if (type == io::GgmlType::Q8_0) {
        q.half.resize(blocks);
    } else {
        q.sums.resize(blocks * 16);
    }
    const bool contiguous = x.outerStride() == x.cols();
#pragma omp parallel for schedule(static) if (q.rows * q.depth > 65536)
    for (Eigen::Index r = 0; r < q.rows; ++r) {
        if (contiguous) {
            quantizeRow(q, x.data() + r * x.outerStride(), r);
        } else {
            const Eigen::VectorXf row = x.row(r).transpose();
            quantizeRow(q, row.data(), r);
        }
    }
    return q;
}

}  // namespace detail

void quantizeActivationRow(io::GgmlType activationType, std::span<const float> x,
                           std::span<std::byte> out) {
    const auto n = static_cast<Eigen::Index>(x.size());
    const Eigen::Map<const Matrix> row(x.data(), 1, n);
    const detail::QuantizedRows q = detail::quantizeRows(row, activationType);
    const bool q8_0 = activationType == io::GgmlType::Q8_0;
    const std::size_t blockBytes = q8_0 ? 34 : 292;
    const auto elements = static_cast<std::size_t>(q8_0 ? 32 : 256);
    if (out.size() != static_cast<std::size_t>(q.blocks) * blockBytes) {
        throw InvalidArgument("8-bit activations: " + std::to_string(out.size()) + " bytes for " +
                              std::to_string(q.blocks) + " blocks of " +
                              std::to_string(blockBytes));
    }
    for (std::size_t b = 0; b < static_cast<std::size_t>(q.blocks); ++b) {
        std::byte* dst = out.data() + b * blockBytes;
        const std::int8_t* codes = q.codes.data() + b * elements;
        if (q8_0) {
            std::memcpy(dst, &q.half[b], 2);
            std::memcpy(dst + 2, codes, 32);
        } else {
            std::memcpy(dst, &q.d[b], 4);
            std::memcpy(dst + 4, codes, 256);
            std::memcpy(dst + 260, q.sums.data() + b * 16, 32);
        }
    }
}

}  // namespace attnscope::ops
