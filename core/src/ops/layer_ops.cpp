#include "attnscope/ops/layer_ops.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <unsupported/Eigen/SpecialFunctions>

#include "attnscope/ops/half_matrix.h"
#include "attnscope/ops/product_batch.h"
#include "attnscope/ops/q8_product.h"
#include "row_product.h"
#include "weight_product.h"

namespace attnscope::ops {

namespace {

// Below this many elements a pass over the matrix is too short to share between threads.
constexpr Eigen::Index kParallelElements = 1 << 15;
constexpr Eigen::Index kActivationRows = 16;

template <class Block>
void activateBlock(Block a, Activation activation) {
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

// A matrix of x's shape with row r set by setRow(x.row(r), y.row(r)). Rows are independent:
// the compute threads split them (same bits at any thread count).
template <class SetRow>
Matrix byRows(const Matrix& x, SetRow setRow) {
    Matrix y(x.rows(), x.cols());
#pragma omp parallel for schedule(static) if (x.size() >= kParallelElements)
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        setRow(x.row(r), y.row(r));
    }
    return y;
}

}  // namespace

Matrix linear(const Matrix& x, const Linear& layer) {
    return linearRows(x, layer, 0, layer.outputs());
}

Matrix linearRows(const Matrix& x, const Linear& layer, Eigen::Index first, Eigen::Index count) {
    if (ProductBatch* batch = ProductBatch::current()) {  // this thread's pass shares its products
        return batch->linearRows(x, layer, first, count);
    }
    const float* bias = layer.bias.size() > 0 ? layer.bias.data() + first : nullptr;
    if (layer.isBlocks() && layer.blocks.int8Activations) {
        return q8Product(x, layer.blocks, first, count, bias);
    }
    if (detail::rowProductTakes(x, layer)) {  // a generation step
        return detail::rowProduct(x, layer, first, count, bias);
    }
    return layer.isStored() ? storedProduct(x, layer, first, count, bias)
                            : detail::productNT(x, layer.weight.middleRows(first, count), bias);
}

Matrix layerNorm(const Matrix& x, const Norm& norm, float eps) {
    const auto d = static_cast<float>(x.cols());
    return byRows(x, [&](const auto& in, auto&& out) {
        const float mean = in.sum() / d;
        const auto centered = (in.array() - mean).eval();
        const float var = centered.square().sum() / d;
        out = (centered / std::sqrt(var + eps)) * norm.weight.transpose().array();
        if (norm.bias.size() > 0) {
            out += norm.bias.transpose();
        }
    });
}

Matrix rmsNorm(const Matrix& x, const Norm& norm, float eps) {
    const auto d = static_cast<float>(x.cols());
    return byRows(x, [&](const auto& in, auto&& out) {
        const float meanSquare = in.squaredNorm() / d;
        out = (in * (1.0f / std::sqrt(meanSquare + eps))).array() * norm.weight.transpose().array();
    });
}

Matrix normalize(const Matrix& x, const Norm& norm, NormKind kind, float eps) {
    return kind == NormKind::RmsNorm ? rmsNorm(x, norm, eps) : layerNorm(x, norm, eps);
}

// Eigen's vectorised erf, tanh and exp (a few ulp in float): libm's scalar erff alone was
// 4 % of a BERT-base pass. Blocks of kActivationRows rows go to the compute threads; the
// blocks do not depend on the thread count, so neither do the bits.
void activate(Matrix& x, Activation activation) {
    const Eigen::Index blocks = (x.rows() + kActivationRows - 1) / kActivationRows;
#pragma omp parallel for schedule(static) if (x.size() >= kParallelElements)
    for (Eigen::Index b = 0; b < blocks; ++b) {
        const Eigen::Index first = b * kActivationRows;
        activateBlock(x.middleRows(first, std::min(kActivationRows, x.rows() - first)).array(),
                      activation);
    }
}

}  // namespace attnscope::ops
