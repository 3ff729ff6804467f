// The logit lens's background job (issue 34): every stage at every position of the session's
// clean pass (analysis::logitLens), its top-k tokens, the target's probability and rank and the
// KL from the final stage, handed to the LensDocument. The clean pass already keeps the layer
// states the lens reads (the service runs it so for ablations), so no pass is run again. Runs on
// the ComputeService's background pool while the tab is on screen; a new sentence, pick or top-k
// cancels a running job (newest wins), a new model drops it.
#pragma once

#include <memory>
#include <optional>

#include "analyses/lens/lens_document.h"
#include "service/corpus_job.h"

namespace attnscope::app {

class LensJob : public CorpusJob {
    Q_OBJECT

public:
    explicit LensJob(ComputeService& service);

    // Starts a run unless the one shown or under way is what the session asks for, or the
    // model has no logit lens (the view says why).
    void follow();

private:
    struct Asked {
        std::weak_ptr<const analysis::SentenceAnalysis> pass;
        int topK = 0;
        std::optional<LensDocument::PickedAt> picked;
    };

    Asked m_started;
};

}  // namespace attnscope::app
