// Weight-space circuits' background job (issue 34): analysis::weightCircuits on the session's
// model, handed to the CircuitsDocument. Runs on the ComputeService's background pool the first
// time the Circuits tab is on screen for a model (the composition is O((L·H)²·d·d_head): seconds
// on a 12 × 12-head model), with its progress and Cancel; a new model drops it. A sentence does
// not start it: the scores are of the weights alone.
#pragma once

#include <memory>

#include "attnscope/model/model.h"
#include "service/corpus_job.h"

namespace attnscope::app {

class CircuitsJob : public CorpusJob {
    Q_OBJECT

public:
    explicit CircuitsJob(ComputeService& service);

    // Starts a run unless the tab is hidden, the scores of the session's model are shown or
    // under way, a cancelled run is not to restart by itself, or the model has none (the view
    // says why).
    void follow();

    // The view's Cancel: the run stops and waits for restart() (not again each time the tab
    // comes back).
    void cancelRun();

    // Runs again after a cancel (the view's Compute button).
    void restart();

private:
    std::weak_ptr<const model::Model> m_started;
    bool m_cancelled = false;  // the user cancelled this model's run: wait for restart()
};

}  // namespace attnscope::app
