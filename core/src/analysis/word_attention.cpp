#include "attnscope/analysis/word_attention.h"

#include <string>

#include "attnscope/base/enum_names.h"
#include "attnscope/base/error.h"

namespace attnscope::analysis {

namespace {

void checkUnits(Eigen::Index nTokens, const std::vector<std::vector<int>>& unitTokens) {
    std::vector<int> seen(static_cast<std::size_t>(nTokens), 0);
    for (std::size_t u = 0; u < unitTokens.size(); ++u) {
        if (unitTokens[u].empty()) {
            std::string msg = "word attention: unit ";
            msg.append(std::to_string(u));
            msg.append(" has no token");
            throw InvalidArgument(msg);
        }
        for (int t : unitTokens[u]) {
            if (t < 0 || t >= nTokens) {
                std::string msg = "word attention: unit ";
                msg.append(std::to_string(u));
                msg.append(": token ");
                msg.append(std::to_string(t));
                msg.append(" outside the map of ");
                msg.append(std::to_string(nTokens));
                msg.append(" tokens");
                throw InvalidArgument(msg);
            }
            ++seen[static_cast<std::size_t>(t)];
        }
    }
    for (std::size_t t = 0; t < seen.size(); ++t) {
        if (seen[t] != 1) {
            // A token in no unit would make rows sum to less than 1, in two units to more.
            std::string msg = "word attention: token ";
            msg.append(std::to_string(t));
            msg.append(" is in ");
            msg.append(std::to_string(seen[t]));
            msg.append(" units; expected exactly 1");
            throw InvalidArgument(msg);
        }
    }
}

}  // namespace

std::string_view aggregationName(FromAggregation agg) {
    static constexpr EnumName<FromAggregation> kNames[] = {{FromAggregation::Mean, "mean"},
                                                           {FromAggregation::First, "first"},
                                                           {FromAggregation::Max, "max"}};
    return nameIn(kNames, agg, "mean");
}

Matrix wordAttention(const Eigen::Ref<const Matrix>& tokenAttention,
                     const std::vector<std::vector<int>>& unitTokens, FromAggregation agg) {
    const Eigen::Index n = tokenAttention.rows();
    if (tokenAttention.cols() != n) {
        std::string msg = "word attention: map is ";
        msg.append(std::to_string(n));
        msg.append("x");
        msg.append(std::to_string(tokenAttention.cols()));
        msg.append("; expected a square token map");
        throw InvalidArgument(msg);
    }
    return wordAttention(tokenAttention, unitTokens, unitTokens, agg);
}

Matrix wordAttention(const Eigen::Ref<const Matrix>& tokenAttention,
                     const std::vector<std::vector<int>>& rowUnits,
                     const std::vector<std::vector<int>>& columnUnits, FromAggregation agg) {
    checkUnits(tokenAttention.rows(), rowUnits);
    checkUnits(tokenAttention.cols(), columnUnits);
    const auto nColumns = static_cast<Eigen::Index>(columnUnits.size());
    // TO side: sum the columns of each unit (Clark step 1), in double so long sums stay exact
    // to float precision.
    Eigen::MatrixXd toSummed = Eigen::MatrixXd::Zero(tokenAttention.rows(), nColumns);
    for (Eigen::Index u = 0; u < nColumns; ++u) {
        for (int t : columnUnits[static_cast<std::size_t>(u)]) {
            toSummed.col(u) += tokenAttention.col(t).cast<double>();
        }
    }
    const auto nRows = static_cast<Eigen::Index>(rowUnits.size());
    Matrix w(nRows, nColumns);
    for (Eigen::Index u = 0; u < nRows; ++u) {
        const std::vector<int>& rows = rowUnits[static_cast<std::size_t>(u)];
        Eigen::RowVectorXd row = toSummed.row(rows.front());
        if (agg == FromAggregation::Mean) {
            for (std::size_t k = 1; k < rows.size(); ++k) {
                row += toSummed.row(rows[k]);
            }
            row /= static_cast<double>(rows.size());
        } else if (agg == FromAggregation::Max) {
            for (std::size_t k = 1; k < rows.size(); ++k) {
                row = row.cwiseMax(toSummed.row(rows[k]));
            }
            const double sum = row.sum();
            if (sum > 0) {
                row /= sum;
            }
        }
        w.row(u) = row.cast<float>();
    }
    return w;
}

Matrix wordAttention(const Eigen::Ref<const Matrix>& tokenAttention, const WordAlignment& alignment,
                     FromAggregation agg) {
    return wordAttention(tokenAttention, alignment.unitTokens(), agg);
}

}  // namespace attnscope::analysis
