#include "attnscope/analysis/ablation_effects.h"

#include <cmath>
#include <limits>
#include <string>

#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/forward/prediction.h"

namespace attnscope::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kWhere = "ablation effects: ";

// p · (log p − log q) with 0 · log 0 = 0, as the reference's _plogq_terms.
double plogq(double p, double logP, double logQ) {
    return p > 0 ? p * (logP - logQ) : 0.0;
}

// One head's attention rows, from the recorded maps or recomputed (then owned here).
class HeadRows {
public:
    HeadRows(const model::Model& model, const forward::ForwardResult& r, HeadId h) {
        if (r.mapsRecorded) {
            m_map.emplace(r.attention(h));
        } else {
            m_owned = forward::recomputeHead(model, r, h).probs;
            m_map.emplace(m_owned.data(), m_owned.rows(), m_owned.cols());
        }
    }

    const ConstMatrixMap& rows() const { return *m_map; }

private:
    Matrix m_owned;
    std::optional<ConstMatrixMap> m_map;
};

// Jensen–Shannon divergence (natural log) of two attention rows, in double.
double rowJs(const ConstMatrixMap& clean, const ConstMatrixMap& ablated, Eigen::Index q) {
    double sumP = 0;
    double sumQ = 0;
    for (Eigen::Index k = 0; k < clean.cols(); ++k) {
        const double p = clean(q, k);
        const double r = ablated(q, k);
        if (p == r) {
            // Then m == p exactly and both terms are 0: skipping the logs changes no bit, and
            // unchanged heads (most of the ablated layer) cost no log at all.
            continue;
        }
        const double m = 0.5 * (p + r);
        const double logM = std::log(m);
        sumP += plogq(p, std::log(p), logM);
        sumQ += plogq(r, std::log(r), logM);
    }
    return 0.5 * (sumP + sumQ);
}

// Mean JS over the query rows where both sides have mass; NaN when no row is left.
double headJs(const ConstMatrixMap& clean, const ConstMatrixMap& ablated) {
    double total = 0;
    int kept = 0;
    for (Eigen::Index q = 0; q < clean.rows(); ++q) {
        // Weights are >= 0, so a row sums to 0 only when it is all 0 (zero ablation, fully
        // masked query); NaN rows are kept, as in the reference, and make the mean NaN.
        const double sumClean = clean.row(q).cast<double>().sum();
        const double sumAblated = ablated.row(q).cast<double>().sum();
        if (sumClean != 0 && sumAblated != 0) {
            total += rowJs(clean, ablated, q);
            ++kept;
        }
    }
    return kept > 0 ? total / kept : kNaN;
}

void requireSamePasses(const forward::ForwardResult& clean, const forward::ForwardResult& ablated) {
    const auto shape = [](const forward::ForwardResult& r) {
        return std::to_string(r.nLayers) + " layers x " + std::to_string(r.nHeads) + " heads x " +
               std::to_string(r.nTokens) + " tokens";
    };
    if (clean.nLayers != ablated.nLayers || clean.nHeads != ablated.nHeads ||
        clean.nTokens != ablated.nTokens) {
        throw InvalidArgument(std::string(kWhere) + "the clean pass has " + shape(clean) +
                              ", the ablated one " + shape(ablated));
    }
    if (clean.tokenIds != ablated.tokenIds) {
        throw InvalidArgument(std::string(kWhere) +
                              "the clean and the ablated pass ran over different token ids");
    }
}

int firstAblated(const forward::ForwardResult& ablated) {
    // Results built by hand carry no per-head record of their ablations: compare every layer.
    return ablated.ablated.empty()
               ? 0
               : forward::firstAblatedLayer(ablated.ablated, ablated.nLayers, ablated.nHeads);
}

// Log-softmax of each row in double over the whole vocabulary.
Eigen::MatrixXd logSoftmax(const Matrix& logits) {
    Eigen::MatrixXd out = logits.cast<double>();
    for (Eigen::Index i = 0; i < out.rows(); ++i) {
        const double top = out.row(i).maxCoeff();
        const double lse = top + std::log((out.row(i).array() - top).exp().sum());
        out.row(i).array() -= lse;
    }
    return out;
}

Matrix hiddenRows(const forward::ForwardResult& r, const std::vector<int>& positions) {
    Matrix out(static_cast<Eigen::Index>(positions.size()), r.hidden.cols());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        out.row(static_cast<Eigen::Index>(i)) = r.hidden.row(positions[i]);
    }
    return out;
}

void checkPosition(int position, int nTokens, const std::string& what) {
    if (position < 0 || position >= nTokens) {
        throw InvalidArgument(std::string(kWhere) + what + ": position " +
                              std::to_string(position) + " is outside the input's tokens 0.." +
                              std::to_string(nTokens - 1));
    }
}

void checkId(std::int32_t id, int vocabSize, const std::string& what) {
    if (id < 0 || id >= vocabSize) {
        throw InvalidArgument(std::string(kWhere) + what + ": id " + std::to_string(id) +
                              " is outside the vocabulary 0.." + std::to_string(vocabSize - 1));
    }
}

// Without a known mask token (no tokenizer files) the position cannot be checked.
void checkHoldsMask(const model::Model& model, const forward::ForwardResult& clean, int position,
                    const std::string& what) {
    const tokenize::TokenVocabulary* pieces = model.vocabulary();
    // -1, not an optional: GCC 12 warns of a maybe-uninitialized optional here.
    const std::int32_t maskId =
        pieces ? pieces->specialId(tokenize::SpecialRole::Mask).value_or(-1) : -1;
    const std::int32_t id = clean.tokenIds[static_cast<std::size_t>(position)];
    if (maskId >= 0 && id != maskId) {
        throw InvalidArgument(std::string(kWhere) + what + ": position " +
                              std::to_string(position) + " holds id " + std::to_string(id) +
                              ", not the mask token " + std::to_string(maskId));
    }
}

void checkRequest(const model::Model& model, const forward::ForwardResult& clean,
                  const EffectRequest& request) {
    const bool masked = model.spec.prediction == model::PredictionKind::MaskedLm;
    const bool causal = model.spec.prediction == model::PredictionKind::CausalLm;
    if (!forward::hasPredictionHead(model) && (!request.targets.empty() || request.logitDiff)) {
        throw InvalidArgument(std::string(kWhere) + model.dir.string() +
                              ": the checkpoint has no prediction head, so it has no masked "
                              "targets or logit differences to measure");
    }
    if (!request.targets.empty() && !masked) {
        throw InvalidArgument(std::string(kWhere) +
                              "masked targets are a masked LM measure; this model is a " +
                              forward::predictionKindName(model));
    }
    if (request.logitDiff && !causal) {
        throw InvalidArgument(std::string(kWhere) +
                              "a logit difference is a causal LM measure; this model is a " +
                              forward::predictionKindName(model));
    }
    const int vocab = model.spec.vocabSize;
    for (std::size_t i = 0; i < request.targets.size(); ++i) {
        const MaskedTarget& t = request.targets[i];
        const std::string what = "masked target " + std::to_string(i);
        checkPosition(t.position, clean.nTokens, what);
        checkId(t.originalId, vocab, what);
        checkHoldsMask(model, clean, t.position, what);
    }
    if (request.logitDiff) {
        checkPosition(request.logitDiff->position, clean.nTokens, "logit difference");
        checkId(request.logitDiff->a, vocab, "logit difference");
        checkId(request.logitDiff->b, vocab, "logit difference");
    }
}

std::vector<MaskedTargetEffect> maskedEffects(const model::Model& model,
                                              const forward::ForwardResult& clean,
                                              const forward::ForwardResult& ablated,
                                              const std::vector<MaskedTarget>& targets) {
    if (targets.empty()) {
        return {};
    }
    std::vector<int> positions;
    for (const MaskedTarget& t : targets) {
        positions.push_back(t.position);
    }
    // Only the target rows go through the prediction head: a masked LM is asked nowhere else.
    const Eigen::MatrixXd lc =
        logSoftmax(forward::vocabularyLogits(model, hiddenRows(clean, positions)));
    const Eigen::MatrixXd la =
        logSoftmax(forward::vocabularyLogits(model, hiddenRows(ablated, positions)));
    std::vector<MaskedTargetEffect> out;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        MaskedTargetEffect e;
        e.target = targets[i];
        const auto row = static_cast<Eigen::Index>(i);
        e.logpClean = lc(row, targets[i].originalId);
        e.logpAblated = la(row, targets[i].originalId);
        e.deltaLogp = e.logpAblated - e.logpClean;
        out.push_back(e);
    }
    return out;
}

double meanNll(const Eigen::MatrixXd& logp, const std::vector<std::int32_t>& ids) {
    if (ids.size() < 2) {
        return kNaN;
    }
    double sum = 0;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
        sum -= logp(static_cast<Eigen::Index>(i), ids[i + 1]);
    }
    return sum / static_cast<double>(ids.size() - 1);
}

// The lowest id among the row's largest logits.
std::int32_t argmaxLowest(const Matrix& logits, Eigen::Index row) {
    Eigen::Index best = 0;
    for (Eigen::Index j = 1; j < logits.cols(); ++j) {
        if (logits(row, j) > logits(row, best)) {
            best = j;
        }
    }
    return static_cast<std::int32_t>(best);
}

LogitDiffEffect logitDiffEffect(const Matrix& clean, const Matrix& ablated,
                                const LogitDiffRequest& d) {
    const auto diff = [&d](const Matrix& l) {
        return static_cast<double>(l(d.position, d.a)) - static_cast<double>(l(d.position, d.b));
    };
    LogitDiffEffect e;
    e.request = d;
    e.clean = diff(clean);
    e.ablated = diff(ablated);
    e.delta = e.ablated - e.clean;
    return e;
}

CausalEffects causalEffects(const model::Model& model, const forward::ForwardResult& clean,
                            const forward::ForwardResult& ablated,
                            const std::optional<LogitDiffRequest>& logitDiff) {
    const Matrix logitsClean = forward::vocabularyLogits(model, clean.hidden);
    const Matrix logitsAblated = forward::vocabularyLogits(model, ablated.hidden);
    const Eigen::MatrixXd lc = logSoftmax(logitsClean);
    const Eigen::MatrixXd la = logSoftmax(logitsAblated);
    CausalEffects c;
    c.nllClean = meanNll(lc, clean.tokenIds);
    c.nllAblated = meanNll(la, clean.tokenIds);
    c.deltaNll = c.nllAblated - c.nllClean;
    for (Eigen::Index i = 0; i < lc.rows(); ++i) {
        double kl = 0;
        for (Eigen::Index j = 0; j < lc.cols(); ++j) {
            kl += plogq(std::exp(lc(i, j)), lc(i, j), la(i, j));
        }
        const std::int32_t top = argmaxLowest(logitsClean, i);
        c.kl.push_back(kl);
        c.topIds.push_back(top);
        c.pTopClean.push_back(std::exp(lc(i, top)));
        c.pTopAblated.push_back(std::exp(la(i, top)));
        c.deltaPTop.push_back(c.pTopAblated.back() - c.pTopClean.back());
    }
    if (logitDiff) {
        c.logitDiff = logitDiffEffect(logitsClean, logitsAblated, *logitDiff);
    }
    return c;
}

}  // namespace

std::vector<double> headJsChange(const model::Model& model, const forward::ForwardResult& clean,
                                 const forward::ForwardResult& ablated, const CancelToken& cancel) {
    requireSamePasses(clean, ablated);
    std::vector<double> js(static_cast<std::size_t>(clean.nLayers * clean.nHeads), 0.0);
    // Below the first ablated layer both passes computed the same maps: exactly 0.
    for (int layer = firstAblated(ablated); layer < clean.nLayers; ++layer) {
        for (int head = 0; head < clean.nHeads; ++head) {
            cancel.throwIfCancelled();
            const HeadId h{layer, head};
            // One head of each pass at a time: without recorded maps only these two exist.
            const HeadRows c(model, clean, h);
            const HeadRows a(model, ablated, h);
            js[static_cast<std::size_t>(headIndex(h, clean.nHeads))] = headJs(c.rows(), a.rows());
        }
    }
    return js;
}

AblationEffects measureAblation(const model::Model& model, const forward::ForwardResult& clean,
                                const forward::ForwardResult& ablated, const EffectRequest& request,
                                const CancelToken& cancel) {
    requireSamePasses(clean, ablated);
    checkRequest(model, clean, request);
    AblationEffects out;
    out.nLayers = clean.nLayers;
    out.nHeads = clean.nHeads;
    out.js = headJsChange(model, clean, ablated, cancel);
    out.masked = maskedEffects(model, clean, ablated, request.targets);
    if (model.spec.prediction == model::PredictionKind::CausalLm) {
        out.causal = causalEffects(model, clean, ablated, request.logitDiff);
    }
    return out;
}

}  // namespace attnscope::analysis
