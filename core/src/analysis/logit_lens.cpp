#include "attnscope/analysis/logit_lens.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/ops/layer_ops.h"

namespace attnscope::analysis {

namespace {

// log softmax of one row, in double.
Eigen::VectorXd logSoftmax(const Eigen::Ref<const RowVector>& logits) {
    const Eigen::VectorXd x = logits.transpose().cast<double>();
    const double top = x.maxCoeff();
    const double lse = top + std::log((x.array() - top).exp().sum());
    return x.array() - lse;
}

// 1 + the tokens ranked above `id`: larger logits, or equal ones with lower ids.
int rankOf(const Eigen::Ref<const RowVector>& logits, std::int32_t id) {
    const float v = logits[id];
    int rank = 1;
    for (Eigen::Index j = 0; j < logits.size(); ++j) {
        rank += logits[j] > v || (logits[j] == v && j < id) ? 1 : 0;
    }
    return rank;
}

std::vector<LensToken> topTokens(const Eigen::Ref<const RowVector>& logits,
                                 const Eigen::VectorXd& logProbs, int k) {
    std::vector<std::int32_t> ids(static_cast<std::size_t>(logits.size()));
    std::iota(ids.begin(), ids.end(), 0);
    const auto count = std::min<std::size_t>(static_cast<std::size_t>(k), ids.size());
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(count), ids.end(),
                      [&](std::int32_t a, std::int32_t b) {
                          return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
                      });
    std::vector<LensToken> out;
    for (std::size_t i = 0; i < count; ++i) {
        out.push_back({ids[i], static_cast<float>(std::exp(logProbs[ids[i]]))});
    }
    return out;
}

void checkPass(const model::Model& m, const forward::ForwardResult& r) {
    if (const std::string why = lensUnsupportedReason(m); !why.empty()) {
        throw InvalidArgument(m.dir.string() + ": " + why);
    }
    const bool finalKept = !m.spec.finalNorm || r.finalResidual.rows() == r.nTokens;
    if (r.layerStates.size() != static_cast<std::size_t>(m.spec.nLayers) || !finalKept) {
        throw InvalidArgument("logit lens: the pass kept no layer states");
    }
}

}  // namespace

std::string lensUnsupportedReason(const model::Model& m) {
    if (m.isEncoderDecoder()) {
        return "the logit lens is for one-stack models, not encoder-decoder models";
    }
    if (!forward::hasPredictionHead(m)) {
        return "the checkpoint has no prediction head to read the residual stream with";
    }
    return {};
}

Matrix lensLogits(const model::Model& m, const forward::ForwardResult& r, int stage) {
    checkPass(m, r);
    if (stage < 0 || stage > m.spec.nLayers) {
        throw InvalidArgument("logit lens: stage " + std::to_string(stage) + " is outside 0.." +
                              std::to_string(m.spec.nLayers));
    }
    if (stage == m.spec.nLayers && !m.spec.finalNorm) {
        return forward::vocabularyLogits(m, r.hidden);  // post-LN: the last layer's output
    }
    const Matrix& x =
        stage < m.spec.nLayers ? r.layerStates[static_cast<std::size_t>(stage)] : r.finalResidual;
    if (!m.spec.finalNorm) {
        return forward::vocabularyLogits(m, x);
    }
    return forward::vocabularyLogits(
        m, ops::normalize(x, m.weights.finalNorm, m.spec.normKind, m.spec.normEps));
}

LogitLens logitLens(const model::Model& m, const forward::ForwardResult& r, int topK,
                    const std::vector<std::int32_t>& targets, const CancelToken& cancel) {
    checkPass(m, r);
    if (topK < 1) {
        throw InvalidArgument("logit lens: top-k must be at least 1");
    }
    if (!targets.empty() && targets.size() != static_cast<std::size_t>(r.nTokens)) {
        throw InvalidArgument("logit lens: " + std::to_string(targets.size()) + " targets for " +
                              std::to_string(r.nTokens) + " positions");
    }
    for (const std::int32_t id : targets) {
        if (id < 0 || id >= m.spec.vocabSize) {
            throw InvalidArgument("logit lens: target id " + std::to_string(id) +
                                  " is outside the vocabulary");
        }
    }
    LogitLens lens{m.spec.nLayers + 1, r.nTokens, {}};
    lens.cells.resize(static_cast<std::size_t>(lens.nStages) * static_cast<std::size_t>(r.nTokens));
    const Matrix last = lensLogits(m, r, m.spec.nLayers);
    std::vector<Eigen::VectorXd> finalLog;
    for (int p = 0; p < r.nTokens; ++p) {
        finalLog.push_back(logSoftmax(last.row(p)));
    }
    for (int stage = 0; stage < lens.nStages; ++stage) {
        cancel.throwIfCancelled();
        const Matrix logits = stage == m.spec.nLayers ? last : lensLogits(m, r, stage);
        for (int p = 0; p < r.nTokens; ++p) {
            const auto row = logits.row(p);
            const Eigen::VectorXd logP = logSoftmax(row);
            const Eigen::VectorXd& logQ = finalLog[static_cast<std::size_t>(p)];
            std::int32_t target = 0;
            if (targets.empty()) {
                last.row(p).maxCoeff(&target);  // the first maximum: the lower id
            } else {
                target = targets[static_cast<std::size_t>(p)];
            }
            LensCell& c = lens.cells[static_cast<std::size_t>(stage * r.nTokens + p)];
            c.top = topTokens(row, logP, topK);
            c.target = target;
            c.targetProbability = static_cast<float>(std::exp(logP[target]));
            c.targetRank = rankOf(row, target);
            c.klFromFinal = (logQ.array().exp() * (logQ - logP).array()).sum();
        }
    }
    return lens;
}

}  // namespace attnscope::analysis
