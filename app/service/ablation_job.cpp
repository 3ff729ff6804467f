#include "service/ablation_job.h"

#include <algorithm>
#include <cmath>

#include <QFileInfo>

#include "attnscope/analysis/head_stats.h"
#include "attnscope/forward/prediction.h"
#include "service/compute_service.h"

namespace attnscope::app {

namespace {

using ResultPtr = std::shared_ptr<const analysis::SentenceAnalysis>;

// The clean pass fitted a custom mask drawn for an earlier sentence to this one
// (analysis::analyzeTokens); the restart must be given the same mask.
forward::MaskChoice fittedMask(forward::MaskChoice mask, int n) {
    if (mask.kind == forward::MaskKind::Custom && mask.custom && mask.custom->rows() != n) {
        BoolMatrix fitted = BoolMatrix::Ones(n, n);
        const auto keep = std::min<Eigen::Index>(n, mask.custom->rows());
        fitted.topLeftCorner(keep, keep) = mask.custom->topLeftCorner(keep, keep);
        mask.custom = std::move(fitted);
    }
    return mask;
}

std::shared_ptr<const CachedMeans> computeMeans(const model::Model& model,
                                                const analysis::SentenceAnalysis& clean,
                                                const forward::ForwardOptions& options,
                                                const MeanSource& source) {
    forward::ForwardOptions meanOptions = options;
    std::vector<std::vector<std::int32_t>> sequences;
    QString description;
    // Without a tokenizer (a model read by token ids) no treebank sentence can be encoded.
    if (source.treebank && model.tokenizer) {
        // A custom mask and padding belong to the sentence on screen, not to other sentences.
        if (meanOptions.mask.kind == forward::MaskKind::Custom) {
            meanOptions.mask.kind = forward::MaskKind::ModelDefault;
            meanOptions.mask.custom.reset();
        }
        meanOptions.mask.paddingTokens = 0;
        const auto limit = static_cast<std::size_t>(model.spec.maxTokens());
        for (const std::string& text : source.treebank->texts) {
            if (sequences.size() == kMaxMeanSentences) {
                break;
            }
            std::vector<std::int32_t> ids = tokenize::ids(model.tokenizer->encode(text));
            ids.resize(std::min(ids.size(), limit));
            if (!ids.empty()) {
                sequences.push_back(std::move(ids));
            }
        }
        description = QObject::tr("%1 sentences of %2")
                          .arg(sequences.size())
                          .arg(QFileInfo(source.treebank->path).fileName());
    }
    if (sequences.empty()) {
        meanOptions.mask = fittedMask(options.mask, clean.forward.nTokens);
        sequences.push_back(clean.forward.tokenIds);
        description = QObject::tr("the current sentence");
    }
    auto means = std::make_shared<const forward::HeadMeans>(
        forward::computeHeadMeans(model, sequences, meanOptions));
    return std::make_shared<const CachedMeans>(CachedMeans{source, means, description});
}

// Masked LM: Δ log p, at every mask token, of the token the clean pass puts there (typed text
// has no original token). Causal LM: the sentence's measures need no request.
analysis::EffectRequest effectRequest(const model::Model& model, const ResultPtr& clean) {
    analysis::EffectRequest request;
    if (!forward::hasPredictionHead(model) ||
        model.spec.prediction == model::PredictionKind::CausalLm) {
        return request;
    }
    for (const int p : forward::maskTokenPositions(model, clean->forward.tokenIds)) {
        const auto top = forward::topPredictions(model, clean->forward, p, 1);
        request.targets.push_back({p, top.front().id});
    }
    return request;
}

// Softmax of one position's vocabulary logits, in double.
std::vector<double> probabilities(const model::Model& model, const forward::ForwardResult& r,
                                  int position) {
    const Matrix hidden = r.hidden.row(position);
    const Matrix logits = forward::vocabularyLogits(model, hidden);
    std::vector<double> p(static_cast<std::size_t>(logits.cols()));
    const double top = logits.maxCoeff();
    double sum = 0;
    for (Eigen::Index j = 0; j < logits.cols(); ++j) {
        p[static_cast<std::size_t>(j)] = std::exp(static_cast<double>(logits(0, j)) - top);
        sum += p[static_cast<std::size_t>(j)];
    }
    for (double& v : p) {
        v /= sum;
    }
    return p;
}

// 1-based rank of `id`, ties broken by the lower id as topPredictions does.
int rankOf(const std::vector<double>& p, std::int32_t id) {
    const double mine = p[static_cast<std::size_t>(id)];
    int rank = 1;
    for (std::size_t j = 0; j < p.size(); ++j) {
        rank += p[j] > mine || (p[j] == mine && static_cast<std::int32_t>(j) < id) ? 1 : 0;
    }
    return rank;
}

std::vector<PredictionShift> shifts(const std::vector<forward::TokenPrediction>& top,
                                    const std::vector<double>& other) {
    std::vector<PredictionShift> out;
    for (const forward::TokenPrediction& t : top) {
        out.push_back(
            {static_cast<float>(other[static_cast<std::size_t>(t.id)]), rankOf(other, t.id)});
    }
    return out;
}

}  // namespace

bool AblationPlan::needsMeans() const {
    return std::any_of(ablations.begin(), ablations.end(), [](const forward::HeadAblation& a) {
        return a.kind == forward::AblationKind::Mean;
    });
}

AblationOutcome runAblation(const model::Model& model, const ResultPtr& clean,
                            const forward::ForwardOptions& options, const AblationPlan& plan) {
    AblationOutcome out;
    forward::ForwardOptions ablate = options;
    ablate.mask = fittedMask(options.mask, clean->forward.nTokens);
    ablate.interventions.ablations = plan.ablations;
    if (plan.needsMeans()) {
        out.means = plan.cachedMeans && plan.cachedMeans->key == plan.meanSource
                        ? plan.cachedMeans
                        : computeMeans(model, *clean, options, plan.meanSource);
        ablate.interventions.means = out.means->means;
    }
    auto ablated = std::make_shared<analysis::SentenceAnalysis>();
    ablated->text = clean->text;
    ablated->tokens = clean->tokens;
    ablated->forward =
        forward::runForwardFrom(model, clean->forward, {clean->forward.tokenIds, {}}, ablate);
    ablated->stats = analysis::headStats(ablated->forward);
    out.effects = std::make_shared<const analysis::AblationEffects>(analysis::measureAblation(
        model, clean->forward, ablated->forward, effectRequest(model, clean), options.cancel));
    out.ablated = std::move(ablated);
    return out;
}

PredictionShift standingOf(const model::Model& model, const forward::ForwardResult& r, int position,
                           std::int32_t id) {
    const std::vector<double> p = probabilities(model, r, position);
    return {static_cast<float>(p.at(static_cast<std::size_t>(id))), rankOf(p, id)};
}

Predictions comparePredictions(const model::Model& model, const ResultPtr& clean,
                               const ResultPtr& ablated, int position, int k) {
    Predictions out;
    out.result = ablated;
    out.position = position;
    out.top = forward::topPredictions(model, ablated->forward, position, k);
    out.cleanTop = forward::topPredictions(model, clean->forward, position, k);
    out.cleanTopInAblated = shifts(out.cleanTop, probabilities(model, ablated->forward, position));
    out.topInClean = shifts(out.top, probabilities(model, clean->forward, position));
    return out;
}

JobRunner::ApplyStep ComputeService::applyAblated(const model::Model& model, ResultPtr clean,
                                                  bool fresh,
                                                  const forward::ForwardOptions& options,
                                                  const AblationPlan& plan,
                                                  const QElapsedTimer& timer) {
    AblationOutcome outcome;
    if (!plan.ablations.empty()) {
        outcome = runAblation(model, clean, options, plan);
    }
    const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    // Runs on the GUI thread, only while this is the newest pass.
    return [this, clean, fresh, outcome, ms] {
        m_lastMs = ms;
        m_cleanPass = clean;
        m_cleanPasses += fresh ? 1 : 0;
        if (outcome.means) {
            m_means = outcome.means;
        }
        if (outcome.ablated) {
            m_session->setAblatedResult({clean, outcome.ablated, outcome.effects,
                                         outcome.means ? outcome.means->description : QString()});
        } else {
            m_session->setResult(clean);
        }
        emit computeFinished(ms);
    };
}

AblationPlan ComputeService::ablationPlan() const {
    AblationPlan plan;
    plan.ablations = m_session->ablations();
    const std::shared_ptr<const Treebank> treebank = m_session->treebank();
    plan.meanSource = {m_session->model(),
                       treebank && !treebank->texts.empty() ? treebank : nullptr,
                       {},
                       m_settingsGeneration};
    if (!plan.meanSource.treebank) {
        plan.meanSource.sentence = m_session->text().toStdString();
    }
    plan.cachedMeans = m_means;
    return plan;
}

}  // namespace attnscope::app
