#include "analyses/dla/dla_document.h"

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

const QString kOwner = QStringLiteral("dla");

QString quoted(const std::string& piece) {
    return QStringLiteral("“%1”").arg(QString::fromStdString(analysis::tokenLabel(piece)));
}

}  // namespace

DlaDocument::DlaDocument(AnalysisSession& session) : AnalysisDocument(session) {
    connect(&session, &AnalysisSession::resultChanged, this, &DlaDocument::publish);
    connect(&session, &AnalysisSession::selectedTokenChanged, this, &DlaDocument::publish);
    connect(&session, &AnalysisSession::pickedTokensChanged, this, &DlaDocument::publish);
}

bool DlaDocument::isCurrent(const Run& run) const {
    const auto clean = session().cleanResult();
    return clean && run.forPass.lock() == clean &&
           run.attribution.position == session().predictionPosition() &&
           run.picked == session().pickedTokens();
}

void DlaDocument::setRun(std::shared_ptr<const Run> run) {
    if (!run || run->forPass.lock() != session().cleanResult()) {
        return;
    }
    m_run = std::move(run);
    publish();
    emit runChanged();
}

void DlaDocument::setShowOnGrid(bool on) {
    m_onGrid = on;
    publish();
}

void DlaDocument::publish() {
    HeadOverlays& overlays = session().overlays();
    if (!m_onGrid || !m_run || !isCurrent(*m_run)) {
        overlays.clearHeadScores(kOwner);
        return;
    }
    const Run& run = *m_run;
    QString name = tr("Direct logit attribution to %1").arg(quoted(run.targetPiece));
    if (run.attribution.distractor) {
        name += tr(" minus %1").arg(quoted(run.distractorPiece));
    }
    overlays.setHeadScores({name + tr(" (logit units)"), kOwner, true, run.nLayers, run.nHeads,
                            run.attribution.headMap(run.nLayers, run.nHeads)});
}

void DlaDocument::setViewed(bool viewed) {
    if (viewed != m_viewed) {
        m_viewed = viewed;
        emit viewedChanged(viewed);
    }
}

bool DlaDocument::dropModel() {
    const bool had = m_run != nullptr;
    m_run.reset();
    return had;
}

}  // namespace attnscope::app
