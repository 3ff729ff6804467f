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

HeadOverlays::Dropped HeadOverlays::dropModel() {
    const Dropped dropped{!m_labels.empty(), !m_labelFilter.isEmpty()};
    m_labels = {};
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
}

}  // namespace attnscope::app
