#include "attnscope/analysis/head_compare.h"

#include <cmath>
#include <string>

#include "attnscope/base/error.h"

namespace attnscope::analysis {

namespace {

// Clark's smoothing: P = 0.001/n + 0.999·A, which keeps every term of the sum finite.
constexpr double kSmoothing = 0.001;

double rowJs(const Eigen::Ref<const RowVector>& a, const Eigen::Ref<const RowVector>& b) {
    const auto n = static_cast<double>(a.size());
    double js = 0.0;
    for (Eigen::Index k = 0; k < a.size(); ++k) {
        const double p = kSmoothing / n + (1.0 - kSmoothing) * a[k];
        const double q = kSmoothing / n + (1.0 - kSmoothing) * b[k];
        const double m = 0.5 * (p + q);
        js += p * std::log(p / m) + q * std::log(q / m);
    }
    return 0.5 * js;
}

}  // namespace

HeadComparison compareHeads(const Eigen::Ref<const Matrix>& a, const Eigen::Ref<const Matrix>& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) {
        throw InvalidArgument("compare heads: maps are " + std::to_string(a.rows()) + "x" +
                              std::to_string(a.cols()) + " and " + std::to_string(b.rows()) + "x" +
                              std::to_string(b.cols()));
    }
    HeadComparison c;
    c.difference = a - b;
    c.rowDivergence.resize(static_cast<std::size_t>(a.rows()));
    double total = 0.0;
    for (Eigen::Index q = 0; q < a.rows(); ++q) {
        // A fully masked row has no distribution to compare.
        const bool empty = a.row(q).sum() == 0.0f || b.row(q).sum() == 0.0f;
        const double js = empty ? 0.0 : rowJs(a.row(q), b.row(q));
        c.rowDivergence[static_cast<std::size_t>(q)] = static_cast<float>(js);
        total += js;
    }
    c.totalDivergence = static_cast<float>(total);
    return c;
}

}  // namespace attnscope::analysis
