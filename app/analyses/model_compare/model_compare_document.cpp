#include "analyses/model_compare/model_compare_document.h"

#include <QFileInfo>

#include "session/analysis_session.h"

namespace attnscope::app {

QString ModelCompareDocument::nameA() const {
    return QFileInfo(session().modelPath()).fileName();
}

QString ModelCompareDocument::nameB() const {
    return QFileInfo(m_second.path).fileName();
}

void ModelCompareDocument::setSecondModel(SecondModel second) {
    m_second = std::move(second);
    m_refusal.clear();
    m_comparison.reset();
    changeNotice({});
    publish();
    emit secondModelChanged();
    emit comparisonChanged();
}

void ModelCompareDocument::refuse(const QString& why) {
    m_refusal = why;
    session().reportError(why);
    emit secondModelChanged();
}

bool ModelCompareDocument::setComparison(std::shared_ptr<const Comparison> comparison) {
    if (comparison &&
        (comparison->modelA != session().model() || comparison->modelB != m_second.model ||
         comparison->a != session().cleanResult())) {
        return false;
    }
    m_comparison = std::move(comparison);
    changeNotice({});
    publish();
    emit comparisonChanged();
    return true;
}

void ModelCompareDocument::setNotice(const QString& notice) {
    m_comparison.reset();
    changeNotice(notice);
    publish();
    emit comparisonChanged();
}

void ModelCompareDocument::clearComparison() {
    if (!m_comparison && m_notice.isEmpty()) {
        return;
    }
    setNotice({});
}

// The message bar tells once when the comparison turns off (the tab says so as long as it is);
// the message goes when the comparison is back.
void ModelCompareDocument::changeNotice(const QString& notice) {
    const bool turnsOff = m_notice.isEmpty() && !notice.isEmpty();
    m_notice = notice;
    if (turnsOff) {
        m_reported = notice;
        session().reportError(notice);
    } else if (notice.isEmpty() && !m_reported.isEmpty()) {
        session().withdrawMessage(m_reported);
        m_reported.clear();
    }
}

void ModelCompareDocument::setShowOnGrid(bool on) {
    m_onGrid = on;
    publish();
}

HeadScores ModelCompareDocument::scoresOf(const Comparison& comparison, const QString& nameB) {
    const analysis::ModelComparison& c = comparison.heads;
    HeadScores scores{tr("JS divergence from %1 (nats per query row)").arg(nameB),
                      QStringLiteral("modelCompare"),
                      false,
                      c.nLayers,
                      c.nHeads,
                      {}};
    scores.values.reserve(c.heads.size());
    for (const analysis::HeadDivergence& d : c.heads) {
        scores.values.push_back(d.mean);
    }
    return scores;
}

void ModelCompareDocument::publish() {
    HeadOverlays& overlays = session().overlays();
    if (!m_comparison) {
        overlays.setCounterpart(nullptr);
        overlays.clearHeadScores(QStringLiteral("modelCompare"));
        return;
    }
    overlays.setCounterpart(std::make_shared<const CounterpartPass>(
        CounterpartPass{nameA(), nameB(), m_comparison->a, m_comparison->b}));
    if (m_onGrid) {
        overlays.setHeadScores(scoresOf(*m_comparison, nameB()));
    } else {
        overlays.clearHeadScores(QStringLiteral("modelCompare"));
    }
}

bool ModelCompareDocument::dropModel() {
    // The session drops the overlays itself, before anyone hears of the model.
    const bool had = m_second.model || m_comparison || !m_notice.isEmpty() || !m_refusal.isEmpty();
    m_second = {};
    m_refusal.clear();
    m_comparison.reset();
    m_notice.clear();
    m_reported.clear();
    return had;
}

void ModelCompareDocument::announceDropped() {
    emit secondModelChanged();
    emit comparisonChanged();
}

}  // namespace attnscope::app
