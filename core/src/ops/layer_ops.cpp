#include "attnscope/ops/layer_ops.h"

#include <cmath>
#include <numbers>

#include <unsupported/Eigen/SpecialFunctions>

#include "attnscope/ops/half_matrix.h"
#include "weight_product.h"

namespace attnscope::ops {

Matrix linear(const Matrix& x, const model::Linear& layer) {
    const Eigen::Index outputs = layer.isHalf() ? layer.half.bits.rows() : layer.weight.rows();
    return linearRows(x, layer, 0, outputs);
}

Matrix linearRows(const Matrix& x, const model::Linear& layer, Eigen::Index first,
                  Eigen::Index count) {
    const float* bias = layer.bias.size() > 0 ? layer.bias.data() + first : nullptr;
    return layer.isHalf() ? halfProduct(x, layer.half, first, count, bias)
                          : detail::productNT(x, layer.weight.middleRows(first, count), bias);
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

// Eigen's vectorised erf, tanh and exp (a few ulp in float): libm's scalar erff alone was
// 4 % of a BERT-base pass.
void activate(Matrix& x, model::Activation activation) {
    using model::Activation;
    auto a = x.array();
    switch (activation) {
        case Activation::Gelu:
            a = 0.5f * a * (1.0f + (a * static_cast<float>(std::numbers::sqrt2 / 2)).erf());
            return;
        case Activation::GeluTanh: {
            // HF's NewGELUActivation: 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
            const float c = std::sqrt(2.0f / std::numbers::pi_v<float>);
            a = 0.5f * a * (1.0f + (c * (a + 0.044715f * a.cube())).tanh());
            return;
        }
        case Activation::Relu:
            a = a.max(0.0f);
            return;
        case Activation::Silu:
            a = a / (1.0f + (-a).exp());
            return;
    }
}

}  // namespace attnscope::ops
