// Head importance on a corpus: one clean pass per sentence, one restarted pass per unit and
// sentence, then the pruning curve (head_importance.h).
//
// Work is split over items, not units: an item's clean pass (with every layer state) is needed
// by all its unit passes and by nothing else, so it lives only while its share works on it and
// memory stays a few passes per share, whatever the corpus size. Every pass's loss is stored
// per [unit][item] and summed in item order afterwards, so the result does not depend on the
// number of shares.
#include "attnscope/analysis/head_importance.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <sstream>
#include <tuple>

#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"

namespace attnscope::analysis {

namespace {

// Logits of several passes' target rows go through the decoder together: one product of
// [rows, dModel] x [dModel, vocab] reads the decoder once for the whole group, where one pass at
// a time would stream it (94 MB for BERT-base) from memory for each handful of rows. The group
// is bounded so its logits stay near this many bytes.
constexpr std::size_t kLogitBytes = std::size_t{64} << 20;

struct ItemScore {
    double loss = 0;  // Σ −log p(target)
    std::int64_t correct = 0;
};

// Everything the passes share.
struct Job {
    const model::Model& model;
    const std::vector<ImportanceItem>& items;
    const ImportanceOptions& options;
    int perLayer = 0;  // units per layer
    int nUnits = 0;    // in all
    std::size_t groupSize = 1;
    forward::ForwardOptions clean;
    std::shared_ptr<const forward::HeadMeans> means;
    std::atomic<std::size_t>* done = nullptr;
    std::size_t total = 1;

    void passDone() const {
        const std::size_t now = ++*done;
        if (options.progress) {
            options.progress(static_cast<double>(now) / static_cast<double>(total));
        }
    }
};

void checkOptions(const ImportanceOptions& o) {
    if (!(o.maskFraction > 0.0 && o.maskFraction <= 1.0)) {
        throw InvalidArgument("head importance: mask fraction " + std::to_string(o.maskFraction) +
                              " is outside (0, 1]");
    }
    for (const double f : o.pruningFractions) {
        if (!(f >= 0.0 && f <= 1.0)) {
            throw InvalidArgument("head importance: pruning fraction " + std::to_string(f) +
                                  " is outside [0, 1]");
        }
    }
}

void checkItems(const model::Model& model, const std::vector<ImportanceItem>& items) {
    if (items.empty()) {
        throw InvalidArgument(
            "head importance: the corpus has no sentence with a target (every sentence was "
            "empty or too short)");
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        const ImportanceItem& item = items[i];
        const auto where = "head importance: item " + std::to_string(i) + ": ";
        if (item.targets.empty()) {
            throw InvalidArgument(where + "no target");
        }
        for (const auto& [position, id] : item.targets) {
            if (position < 0 || static_cast<std::size_t>(position) >= item.ids.size() || id < 0 ||
                id >= model.spec.vocabSize) {
                throw InvalidArgument(where + "target (" + std::to_string(position) + ", " +
                                      std::to_string(id) + ") is outside its " +
                                      std::to_string(item.ids.size()) + " tokens or the " +
                                      std::to_string(model.spec.vocabSize) + " ids");
            }
        }
    }
}

ItemScore scoreRow(const Matrix& logits, Eigen::Index row, std::int32_t target) {
    const auto vocab = logits.cols();
    Eigen::Index best = 0;
    float bestLogit = logits(row, 0);
    for (Eigen::Index j = 1; j < vocab; ++j) {
        if (logits(row, j) > bestLogit) {  // strict: ties keep the lower id
            bestLogit = logits(row, j);
            best = j;
        }
    }
    double sum = 0.0;  // log-softmax in double: tens of thousands of terms
    for (Eigen::Index j = 0; j < vocab; ++j) {
        sum += std::exp(static_cast<double>(logits(row, j)) - static_cast<double>(bestLogit));
    }
    const double logp =
        static_cast<double>(logits(row, target)) - static_cast<double>(bestLogit) - std::log(sum);
    return {-logp, best == target ? 1 : 0};
}

// The score of each final hidden state [nTokens, dModel] of `item`'s passes.
std::vector<ItemScore> scorePasses(const model::Model& model, const ImportanceItem& item,
                                   const std::vector<Matrix>& hidden) {
    const auto k = static_cast<Eigen::Index>(item.targets.size());
    Matrix rows(k * static_cast<Eigen::Index>(hidden.size()), hidden.front().cols());
    for (std::size_t p = 0; p < hidden.size(); ++p) {
        for (Eigen::Index t = 0; t < k; ++t) {
            const int position = item.targets[static_cast<std::size_t>(t)].first;
            rows.row(static_cast<Eigen::Index>(p) * k + t) = hidden[p].row(position);
        }
    }
    const Matrix logits = forward::vocabularyLogits(model, rows);
    std::vector<ItemScore> out(hidden.size());
    for (std::size_t p = 0; p < hidden.size(); ++p) {
        for (Eigen::Index t = 0; t < k; ++t) {
            const ItemScore s = scoreRow(logits, static_cast<Eigen::Index>(p) * k + t,
                                         item.targets[static_cast<std::size_t>(t)].second);
            out[p].loss += s.loss;
            out[p].correct += s.correct;
        }
    }
    return out;
}

forward::ForwardInput inputOf(const ImportanceItem& item) {
    return {item.ids, item.tokenTypeIds};
}

// Runs `ablations[j]` for j = 0.. on item `i` from its clean pass, scores each into
// `scores[j][i]`, and the clean pass itself into `clean[i]` when given.
void runItem(const Job& job, std::size_t i,
             const std::vector<std::vector<forward::HeadAblation>>& ablations,
             std::vector<std::vector<ItemScore>>& scores, std::vector<ItemScore>* clean) {
    const ImportanceItem& item = job.items[i];
    const forward::ForwardInput input = inputOf(item);
    job.options.cancel.throwIfCancelled();
    const forward::ForwardResult base = forward::runForward(job.model, input, job.clean);
    if (clean != nullptr) {
        (*clean)[i] = scorePasses(job.model, item, {base.hidden}).front();
    }
    job.passDone();
    forward::ForwardOptions o = job.clean;
    o.keepLayerStates = false;
    o.interventions.means = job.means;
    std::vector<Matrix> hidden;
    std::size_t first = 0;  // of the group in `hidden`
    for (std::size_t j = 0; j < ablations.size(); ++j) {
        job.options.cancel.throwIfCancelled();
        o.interventions.ablations = ablations[j];
        hidden.push_back(forward::runForwardFrom(job.model, base, input, o).hidden);
        job.passDone();
        if (hidden.size() == job.groupSize || j + 1 == ablations.size()) {
            const std::vector<ItemScore> s = scorePasses(job.model, item, hidden);
            for (std::size_t g = 0; g < s.size(); ++g) {
                scores[first + g][i] = s[g];
            }
            first += hidden.size();
            hidden.clear();
        }
    }
}

// Every item through runItem, items spread over the shares.
void runItems(const Job& job, const ShareExecutor& run,
              const std::vector<std::vector<forward::HeadAblation>>& ablations,
              std::vector<std::vector<ItemScore>>& scores, std::vector<ItemScore>* clean) {
    const std::size_t n = std::max<std::size_t>(job.options.shares, 1);
    runShares(n, job.options.cancel, run, [&](std::size_t share) {
        for (std::size_t i = share; i < job.items.size(); i += n) {
            runItem(job, i, ablations, scores, clean);
        }
    });
}

forward::HeadAblation unitAblation(const Job& job, int unit) {
    return {unit / job.perLayer, unit % job.perLayer, job.options.kvGroups, job.options.kind};
}

// Corpus loss and accuracy from per-item scores, summed in item order.
std::pair<double, double> corpusScore(const std::vector<ItemScore>& items, std::int64_t targets) {
    double loss = 0;
    std::int64_t correct = 0;
    for (const ItemScore& s : items) {
        loss += s.loss;
        correct += s.correct;
    }
    const auto n = static_cast<double>(targets);
    return {loss / n, static_cast<double>(correct) / n};
}

// Least important first: increasing deltaLoss, ties (and NaN, put last) by unit index, which is
// layer-major.
std::vector<int> pruningOrder(const std::vector<double>& delta) {
    std::vector<int> order(delta.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const double da = delta[static_cast<std::size_t>(a)];
        const double db = delta[static_cast<std::size_t>(b)];
        if (std::isnan(da) || std::isnan(db)) {
            return !std::isnan(da) && std::isnan(db);
        }
        return da < db;
    });
    return order;
}

Job makeJob(const model::Model& model, const std::vector<ImportanceItem>& items,
            const ImportanceOptions& options, std::atomic<std::size_t>& done) {
    Job job{model, items, options, 0, 0, 1, {}, nullptr, &done, 1};
    const model::ModelSpec& spec = model.spec;
    job.perLayer = options.kvGroups && spec.nKvHeads > 0 ? spec.nKvHeads : spec.nHeads;
    job.nUnits = spec.nLayers * job.perLayer;
    std::size_t maxTargets = 1;
    for (const ImportanceItem& item : items) {
        maxTargets = std::max(maxTargets, item.targets.size());
    }
    const std::size_t rowBytes =
        static_cast<std::size_t>(std::max(spec.vocabSize, 1)) * sizeof(float) * maxTargets;
    job.groupSize = std::max<std::size_t>(1, kLogitBytes / rowBytes);
    // The passes keep per-head summaries, not maps: importance reads only the final states, and
    // the clean pass and its restarts must record alike (runForwardFrom checks).
    job.clean.mapBudgetBytes = 0;
    job.clean.keepLayerStates = true;
    job.clean.cancel = options.cancel;
    return job;
}

std::shared_ptr<const forward::HeadMeans> corpusMeans(const Job& job) {
    std::vector<std::vector<std::int32_t>> sequences;
    for (const ImportanceItem& item : job.items) {
        sequences.push_back(item.ids);
    }
    forward::ForwardOptions o;
    o.cancel = job.options.cancel;
    return std::make_shared<forward::HeadMeans>(forward::computeHeadMeans(job.model, sequences, o));
}

// The pruning points that ablate something, and their ablation lists.
std::vector<std::vector<forward::HeadAblation>> pruningAblations(const Job& job,
                                                                 const ImportanceResult& r) {
    std::vector<std::vector<forward::HeadAblation>> out;
    for (const PruningPoint& p : r.pruning) {
        if (p.removed > 0) {
            std::vector<forward::HeadAblation>& list = out.emplace_back();
            for (int k = 0; k < p.removed; ++k) {
                list.push_back(unitAblation(job, r.order[static_cast<std::size_t>(k)]));
            }
        }
    }
    return out;
}

void fillPruning(const Job& job, const ShareExecutor& run, ImportanceResult& r) {
    for (const double f : job.options.pruningFractions) {
        const double removed = std::floor(f * static_cast<double>(job.nUnits) + 0.5);
        r.pruning.push_back({f, static_cast<int>(removed), r.cleanLoss, r.cleanAccuracy});
    }
    const auto ablations = pruningAblations(job, r);
    if (ablations.empty()) {
        return;  // only fraction 0: the clean pass is the answer
    }
    std::vector<std::vector<ItemScore>> scores(ablations.size(),
                                               std::vector<ItemScore>(job.items.size()));
    runItems(job, run, ablations, scores, nullptr);
    std::size_t next = 0;
    for (PruningPoint& p : r.pruning) {
        if (p.removed > 0) {
            std::tie(p.loss, p.accuracy) = corpusScore(scores[next++], r.targets);
        }
    }
}

// The masked LM's targets as the files list them (ImportanceResult::masked).
void fillMasked(const std::vector<ImportanceItem>& items, const ImportanceOptions& options,
                ImportanceResult& r) {
    if (r.objective != ImportanceObjective::MaskedLm) {
        return;
    }
    if (!options.sentenceOf.empty() && options.sentenceOf.size() != items.size()) {
        throw InvalidArgument("head importance: " + std::to_string(options.sentenceOf.size()) +
                              " source sentences given for " + std::to_string(items.size()) +
                              " items");
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::size_t sentence = options.sentenceOf.empty() ? i : options.sentenceOf[i];
        for (const auto& [position, id] : items[i].targets) {
            r.masked.push_back({sentence, position, id});
        }
    }
}

}  // namespace

ImportanceResult headImportance(const model::Model& model, const std::vector<ImportanceItem>& items,
                                const ImportanceOptions& options, const ShareExecutor& run) {
    ImportanceResult r;
    r.objective = importanceObjective(model);
    checkOptions(options);
    checkItems(model, items);
    std::atomic<std::size_t> done{0};
    Job job = makeJob(model, items, options, done);
    std::size_t pruningPasses = 0;
    for (const double f : options.pruningFractions) {
        pruningPasses += std::floor(f * job.nUnits + 0.5) > 0 ? 1 : 0;
    }
    // Passes: clean + one per unit for each item, then clean + one per pruning point again.
    job.total = items.size() * (1 + static_cast<std::size_t>(job.nUnits) +
                                (pruningPasses > 0 ? 1 + pruningPasses : 0));
    if (options.kind == forward::AblationKind::Mean) {
        job.means = corpusMeans(job);
    }
    r.nLayers = model.spec.nLayers;
    r.nUnits = job.perLayer;
    r.kvGroups = options.kvGroups;
    r.kind = options.kind;
    r.maskFraction = options.maskFraction;
    r.seed = options.seed;
    r.items = items.size();
    for (const ImportanceItem& item : items) {
        r.targets += static_cast<std::int64_t>(item.targets.size());
    }
    fillMasked(items, options, r);
    std::vector<std::vector<forward::HeadAblation>> units;
    for (int u = 0; u < job.nUnits; ++u) {
        units.push_back({unitAblation(job, u)});
    }
    std::vector<std::vector<ItemScore>> scores(units.size(), std::vector<ItemScore>(items.size()));
    std::vector<ItemScore> clean(items.size());
    runItems(job, run, units, scores, &clean);
    std::tie(r.cleanLoss, r.cleanAccuracy) = corpusScore(clean, r.targets);
    for (const std::vector<ItemScore>& unit : scores) {
        const auto [loss, accuracy] = corpusScore(unit, r.targets);
        r.ablatedLoss.push_back(loss);
        r.deltaLoss.push_back(loss - r.cleanLoss);
        r.ablatedAccuracy.push_back(accuracy);
    }
    r.order = pruningOrder(r.deltaLoss);
    fillPruning(job, run, r);
    return r;
}

std::string describeObjective(const ImportanceResult& result) {
    if (result.objective == ImportanceObjective::CausalLm) {
        return "causal LM, next token";
    }
    std::ostringstream out;
    out << "masked LM, " << result.maskFraction * 100.0 << " % masked (seed " << result.seed << ")";
    return out.str();
}

}  // namespace attnscope::analysis
