// Direct logit attribution's background job (issue 34): at the session's prediction position, on
// its clean pass, the logit of the picked target (else the top prediction there) minus the picked
// distractor taken apart into its terms (analysis::directLogitAttribution), checked to add up to
// the logit (analysis::checkSum), and handed to the DlaDocument. The clean pass already keeps
// the layer states DLA reads (the service runs it so for ablations), so no pass is run again.
// Runs on the ComputeService's background pool while the tab is on screen; a new sentence,
// position or pick replaces a running job (newest wins), a new model drops it.
#pragma once

#include <memory>

#include "attnscope/analysis/sentence_analysis.h"
#include "service/corpus_job.h"
#include "session/predictions.h"

namespace attnscope::app {

class DlaJob : public CorpusJob {
    Q_OBJECT

public:
    explicit DlaJob(ComputeService& service);

    // Starts a run unless the one shown or under way is of the session's pass, position and
    // picks, or the model has no direct logit attribution (the view says why).
    void follow();

private:
    struct Asked {
        std::weak_ptr<const analysis::SentenceAnalysis> pass;
        int position = -1;
        PickedTokens picked;
    };

    Asked m_started;
};

}  // namespace attnscope::app
