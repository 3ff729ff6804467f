#include "analyses/circuits/circuits_job.h"

#include "analyses/circuits/circuits_document.h"
#include "session/analysis_session.h"

namespace attnscope::app {

CircuitsJob::CircuitsJob(ComputeService& service) : CorpusJob(service, tr("Circuits")) {
    auto& document = session().document<CircuitsDocument>();
    connect(&session(), &AnalysisSession::modelChanged, this, [this] {
        m_cancelled = false;
        m_started.reset();
        follow();
    });
    connect(&document, &CircuitsDocument::viewedChanged, this, &CircuitsJob::follow);
}

void CircuitsJob::cancelRun() {
    m_cancelled = isRunning();
    cancel();
}

void CircuitsJob::restart() {
    m_cancelled = false;
    m_started.reset();
    follow();
}

void CircuitsJob::follow() {
    auto& document = session().document<CircuitsDocument>();
    const auto m = model();
    if (!document.isViewed() || !m || m_cancelled ||
        !analysis::weightCircuitsUnsupportedReason(*m).empty()) {
        return;
    }
    if (const auto shown = document.run(); shown && shown->forModel.lock() == m) {
        return;
    }
    if (isRunning() && m_started.lock() == m) {
        return;
    }
    m_started = m;
    Work work = [this, m](const CancelToken& cancel,
                          JobProgress& progress) -> JobRunner::ApplyStep {
        auto run = std::make_shared<CircuitsDocument::Run>();
        run->forModel = m;
        run->circuits = analysis::weightCircuits(*m, cancel, passesDone(progress));
        return [this, run = std::shared_ptr<const CircuitsDocument::Run>(std::move(run))] {
            session().document<CircuitsDocument>().setRun(run);
        };
    };
    CorpusJob::start(QString(), std::move(work),
                     {tr("The weight-space circuits failed: "),
                      tr("The weight-space circuits were cancelled.")});
}

}  // namespace attnscope::app
