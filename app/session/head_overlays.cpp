#include "session/head_overlays.h"

#include "session/analysis_session.h"

namespace attnscope::app {

void HeadOverlays::setLabels(HeadLabels labels) {
    m_labels = std::move(labels);
    emit labelsChanged();
}

void HeadOverlays::setLabelFilter(const QString& tag) {
    if (tag == m_labelFilter) {
        return;
    }
    m_labelFilter = tag;
    emit labelFilterChanged(m_labelFilter);
}

void HeadOverlays::setWindowGoldSource(WindowGoldSource source) {
    m_windowGoldSource = std::move(source);
    refreshWindowGold();
}

void HeadOverlays::refreshWindowGold() {
    // Gold arcs are one sentence's: an encoder-decoder's maps may join two.
    const auto& result = m_session.result();
    const bool oneSentence = result && !m_session.seq2seq();
    m_windowGold = m_windowGoldSource && oneSentence ? m_windowGoldSource(*result) : nullptr;
}

void HeadOverlays::setHeadScores(HeadScores scores) {
    if (scores == m_scores) {
        return;
    }
    m_scores = std::move(scores);
    emit headScoresChanged();
}

void HeadOverlays::clearHeadScores(const QString& owner) {
    if (!m_scores.empty() && m_scores.owner == owner) {
        setHeadScores({});
    }
}

void HeadOverlays::setCounterpart(std::shared_ptr<const CounterpartPass> counterpart) {
    if (counterpart == m_counterpart) {
        return;
    }
    m_counterpart = std::move(counterpart);
    emit counterpartChanged();
}

HeadOverlays::Dropped HeadOverlays::dropModel() {
    const Dropped dropped{!m_labels.empty(), !m_labelFilter.isEmpty(), !m_scores.empty(),
                          m_counterpart != nullptr};
    m_labels = {};
    m_scores = {};
    m_counterpart.reset();  // a pass of the old model's heads
    m_labelFilter.clear();
    m_windowGoldSource = nullptr;  // of the old model's windows
    m_windowGold.reset();
    return dropped;
}

void HeadOverlays::announceDropped(Dropped dropped) {
    if (dropped.labels) {
        emit labelsChanged();
    }
    if (dropped.filter) {
        emit labelFilterChanged(m_labelFilter);
    }
    if (dropped.scores) {
        emit headScoresChanged();
    }
    if (dropped.counterpart) {
        emit counterpartChanged();
    }
}

}  // namespace attnscope::app
