// Eigen aliases and shape names used throughout the core.
//
// Everything is row-major: a matrix row is a token (or a query), matching the layout of
// Hugging Face tensors on disk and of the HDF5 export, so no layout ever mixes.
// Shape names: nLayers, nHeads, nHeadsKv, headDimK, headDimV, dModel, dFfn, nQueries, nKeys.
#pragma once

#include <cstdint>

#include "attnscope/base/eigen_core.h"

namespace attnscope {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
// 1 = key allowed for this query, 0 = forbidden.
using BoolMatrix = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

}  // namespace attnscope
