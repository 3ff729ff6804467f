// The Compare tab's second mode (issue 32): the selected head in the model open (A) against the
// same head in a second model (B), drawn as two heads are, from the sentence through both
// models that an analysis gave the session (HeadOverlays::counterpart).
#include <QComboBox>

#include "analyses/compare/compare_view.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"

namespace attnscope::app {

void CompareView::showModels() {
    const auto pair = m_session->overlays().counterpart();
    if (!pair) {
        showNothing(
            tr("No second model to compare with on this sentence. Open one with "
               "File ▸ Compare with another model…; the Compare models tab says why a "
               "model open there compares nothing (another tokenization, say)."));
        return;
    }
    const forward::ForwardResult& own = pair->own->forward;
    const forward::ForwardResult& other = pair->other->forward;
    const HeadId head = m_session->selectedHead();
    if (head.layer >= own.nLayers || head.head >= own.nHeads) {
        showNothing({});
        return;
    }
    if (!own.mapsRecorded || !other.mapsRecorded) {
        // The comparison recomputed every head for its numbers; no map is kept to draw.
        showNothing(
            tr("This sentence's maps are over the memory budget, so neither model kept "
               "them: the Compare models tab still ranks every head. Shorten the "
               "sentence or raise the budget to see the maps."));
        return;
    }
    QStringList labels;
    for (int i = 0; i < own.nTokens; ++i) {
        labels << QString::fromStdString(pair->own->label(i));
    }
    m_keyLabels = labels;
    const Matrix mapA = own.attention(head);
    const Matrix mapB = other.attention(head);

    const struct {
        HeatmapWidget* widget;
        const Matrix& map;
        const forward::ForwardResult& pass;
        QString title;
    } sides[] = {{m_a, mapA, own, tr("A: %1").arg(pair->ownName)},
                 {m_b, mapB, other, tr("B: %1").arg(pair->otherName)}};

    for (const auto& side : sides) {
        render::ColorRange range;
        side.widget->setMap(render::heatmapImage(side.map, &side.pass.allowedFor(head.layer),
                                                 m_session->heatmapStyle(), &range),
                            range, labels, labels, side.pass.allowedFor(head.layer));
        side.widget->setTitle(
            tr("%1 — layer %2, head %3").arg(side.title).arg(head.layer).arg(head.head));
    }
    showComparison(labels, mapA, mapB, own.allowedFor(head.layer), pair->ownName, pair->otherName);
}

void CompareView::followCounterpart() {
    const auto pair = m_session->overlays().counterpart();
    if (pair && pair->otherName != m_counterpartName) {
        m_counterpartName = pair->otherName;
        if (mode() != Mode::Models) {
            setMode(Mode::Models);  // refreshes
            return;
        }
    }
    if (mode() == Mode::Models) {
        refresh();
    }
}

}  // namespace attnscope::app
