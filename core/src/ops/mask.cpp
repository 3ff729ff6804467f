#include "attnscope/ops/mask.h"

#include <algorithm>
#include <limits>
#include <string>

#include "attnscope/base/error.h"

namespace attnscope::ops {

namespace {

void checkShape(Eigen::Index rows, Eigen::Index cols, int nQueries, int nKeys, const char* what) {
    if (rows != nQueries || cols != nKeys) {
        throw InvalidArgument(std::string(what) + " mask is " + std::to_string(rows) + "x" +
                              std::to_string(cols) + ", expected " + std::to_string(nQueries) +
                              "x" + std::to_string(nKeys) + " (queries x keys)");
    }
}

}  // namespace

Matrix buildBias(const MaskSpec& mask, int nQueries, int nKeys) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    Matrix bias = Matrix::Zero(nQueries, nKeys);
    if (mask.causal) {
        const int offset = mask.causalOffset.value_or(nKeys - nQueries);
        for (int q = 0; q < nQueries; ++q) {
            for (int k = std::max(0, q + offset + 1); k < nKeys; ++k) {
                bias(q, k) = kNegInf;
            }
        }
    }
    if (mask.window) {
        if (*mask.window <= 0) {
            throw InvalidArgument("sliding window must be positive, got " +
                                  std::to_string(*mask.window));
        }
        const int offset = mask.causalOffset.value_or(nKeys - nQueries);
        for (int q = 0; q < nQueries; ++q) {
            const int first = std::clamp(q + offset - *mask.window + 1, 0, nKeys);
            bias.row(q).head(first).setConstant(kNegInf);
        }
    }
    if (mask.allowed) {
        checkShape(mask.allowed->rows(), mask.allowed->cols(), nQueries, nKeys, "boolean");
        bias = (mask.allowed->array() != 0).select(bias, kNegInf);
    }
    if (mask.additive) {
        checkShape(mask.additive->rows(), mask.additive->cols(), nQueries, nKeys, "additive");
        bias += *mask.additive;
    }
    return bias;
}

BoolMatrix allowedFromBias(const Matrix& bias) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    return (bias.array() != kNegInf).cast<std::uint8_t>();
}

bool isTrivial(const MaskSpec& mask) {
    return !mask.causal && !mask.window && !mask.allowed && !mask.additive;
}

}  // namespace attnscope::ops
