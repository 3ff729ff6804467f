// The ablation half of the ComputeService's forward job (private to app/service): the means a
// Mean ablation needs, the ablated pass restarted from the cached clean pass, its statistics
// and effect measures, and predictions compared between the two passes. Pure functions run on
// a worker; GUI-thread state stays in the ComputeService.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <QString>

#include "attnscope/analysis/ablation_effects.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/forward_pass.h"
#include "session/analysis_session.h"
#include "session/treebank.h"

namespace attnscope::app {

// Where Mean ablation takes its means: the session's treebank (its first kMaxMeanSentences
// sentences) when one is loaded, else the sentence being analysed. Means are cached per
// model, settings and source; `key` tells whether a cached set still fits.
struct MeanSource {
    std::shared_ptr<const model::Model> model;
    std::shared_ptr<const Treebank> treebank;  // null: the current sentence
    std::string sentence;                      // the text analysed, without a treebank
    quint64 settings = 0;                      // the service's settings generation

    bool operator==(const MeanSource&) const = default;
};

struct CachedMeans {
    MeanSource key;
    std::shared_ptr<const forward::HeadMeans> means;
    QString
        description;  // "200 treebank sentences (UD_English-EWT.conllu)", "the current sentence"
};

inline constexpr std::size_t kMaxMeanSentences = 200;

// What the forward job needs to ablate, captured on the GUI thread.
struct AblationPlan {
    std::vector<forward::HeadAblation> ablations;
    MeanSource meanSource;
    std::shared_ptr<const CachedMeans> cachedMeans;  // null or of another source: recompute

    bool needsMeans() const;
};

struct AblationOutcome {
    std::shared_ptr<const analysis::SentenceAnalysis> ablated;
    std::shared_ptr<const analysis::AblationEffects> effects;
    std::shared_ptr<const CachedMeans> means;  // used (and maybe computed) for this pass; or null
};

// The ablated pass over `clean`'s input: forward::runForwardFrom from the first ablated layer,
// head statistics, and analysis::measureAblation (masked LM: the clean top token at each mask
// token; causal LM: the sentence's measures). `options` are the clean pass's.
AblationOutcome runAblation(const model::Model& model,
                            const std::shared_ptr<const analysis::SentenceAnalysis>& clean,
                            const forward::ForwardOptions& options, const AblationPlan& plan);

// Token `id`'s probability and rank at `position` of `r` (an encoder-decoder's actual target
// token; `model` the top-level model, whose head reads r's hidden states).
PredictionShift standingOf(const model::Model& model, const forward::ForwardResult& r, int position,
                           std::int32_t id);

// The top `k` at `position` of the ablated pass and of the clean pass, each with its
// probability and rank in the other pass.
Predictions comparePredictions(const model::Model& model,
                               const std::shared_ptr<const analysis::SentenceAnalysis>& clean,
                               const std::shared_ptr<const analysis::SentenceAnalysis>& ablated,
                               int position, int k);

}  // namespace attnscope::app
