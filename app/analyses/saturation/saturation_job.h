// The saturation lab's baseline (issue 33): while a what-if is on, the sentence on screen is run
// again through the model as it is — its own QK-norm, soft-cap and scale, the session's mask, no
// ablation — on the clean pass's token ids, on the ComputeService's background pool, and its
// per-head statistics go to the SaturationDocument; the newest run wins. Without a what-if the
// session's own pass is the model as it is, and the baseline is dropped.
#pragma once

#include <memory>

#include "attnscope/analysis/sentence_analysis.h"
#include "service/corpus_job.h"

namespace attnscope::app {

class SaturationJob : public CorpusJob {
public:
    explicit SaturationJob(ComputeService& service);

    // Starts a baseline run unless one for the session's clean pass is shown or under way.
    void follow();

private:
    std::weak_ptr<const analysis::SentenceAnalysis> m_started;
};

}  // namespace attnscope::app
