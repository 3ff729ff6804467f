#include "attnscope/ops/layer_ops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace attnscope::ops {

namespace {

// Widens rows [first, first + count) of half-precision weights into `out` ([count, in]).
// BF16 is the top half of an fp32 bit pattern; F16 goes through Eigen::half (F16C with
// -march=native).
void widenRows(const model::HalfMatrix& h, Eigen::Index first, Eigen::Index count, Matrix& out) {
    const Eigen::Index cols = h.bits.cols();
    out.resize(count, cols);
    const std::uint16_t* src = h.bits.data() + first * cols;
    const Eigen::Index n = count * cols;
    float* dst = out.data();
    if (h.bfloat16) {
        for (Eigen::Index i = 0; i < n; ++i) {
            dst[i] = std::bit_cast<float>(static_cast<std::uint32_t>(src[i]) << 16);
        }
    } else {
        const Eigen::Map<const Eigen::Array<Eigen::half, Eigen::Dynamic, 1>> halves(
            reinterpret_cast<const Eigen::half*>(src), n);
        Eigen::Map<Eigen::ArrayXf>(dst, n) = halves.cast<float>();
    }
}

// x·Wᵀ with W kept half precision: one block of output rows is widened at a time, so the
// fp32 copy in flight stays around 256 KiB whatever the layer's size.
Matrix halfLinear(const Matrix& x, const model::HalfMatrix& h) {
    const Eigen::Index outputs = h.bits.rows();
    const Eigen::Index block =
        std::max<Eigen::Index>(16, 65536 / std::max<Eigen::Index>(1, h.bits.cols()));
    Matrix y(x.rows(), outputs);
    Matrix widened;
    for (Eigen::Index first = 0; first < outputs; first += block) {
        const Eigen::Index count = std::min(block, outputs - first);
        widenRows(h, first, count, widened);
        y.middleCols(first, count).noalias() = x * widened.transpose();
    }
    return y;
}

}  // namespace

Matrix linear(const Matrix& x, const model::Linear& layer) {
    Matrix y = layer.half.bits.size() > 0 ? halfLinear(x, layer.half)
                                          : Matrix(x * layer.weight.transpose());
    if (layer.bias.size() > 0) {
        y.rowwise() += layer.bias.transpose();
    }
    return y;
}

Matrix layerNorm(const Matrix& x, const model::Norm& norm, float eps) {
    Matrix y(x.rows(), x.cols());
    const auto d = static_cast<float>(x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const float mean = x.row(r).sum() / d;
        const auto centered = (x.row(r).array() - mean).eval();
        const float var = centered.square().sum() / d;
        y.row(r) = centered / std::sqrt(var + eps);
    }
    y.array().rowwise() *= norm.weight.transpose().array();
    if (norm.bias.size() > 0) {
        y.rowwise() += norm.bias.transpose();
    }
    return y;
}

Matrix rmsNorm(const Matrix& x, const model::Norm& norm, float eps) {
    Matrix y(x.rows(), x.cols());
    const auto d = static_cast<float>(x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const float meanSquare = x.row(r).squaredNorm() / d;
        y.row(r) = x.row(r) * (1.0f / std::sqrt(meanSquare + eps));
    }
    y.array().rowwise() *= norm.weight.transpose().array();
    return y;
}

Matrix normalize(const Matrix& x, const model::Norm& norm, model::NormKind kind, float eps) {
    return kind == model::NormKind::RmsNorm ? rmsNorm(x, norm, eps) : layerNorm(x, norm, eps);
}

void activate(Matrix& x, model::Activation activation) {
    using model::Activation;
    switch (activation) {
        case Activation::Gelu:
            x = x.unaryExpr([](float v) {
                return 0.5f * v *
                       (1.0f + std::erf(v * static_cast<float>(std::numbers::sqrt2 / 2)));
            });
            return;
        case Activation::GeluTanh: {
            // HF's NewGELUActivation: 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
            const float c = std::sqrt(2.0f / std::numbers::pi_v<float>);
            x = x.unaryExpr([c](float v) {
                return 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v)));
            });
            return;
        }
        case Activation::Relu:
            x = x.cwiseMax(0.0f);
            return;
        case Activation::Silu:
            x = x.unaryExpr([](float v) { return v / (1.0f + std::exp(-v)); });
            return;
    }
}

}  // namespace attnscope::ops
