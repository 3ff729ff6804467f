// The whole model at once: a table of small heatmaps, one per layer × head, with layer and
// head labels. Hover shows the head's statistics, a click selects the head (head A) and a
// double-click (or Enter) opens it. Ctrl+click, a middle-click or the context menu's "Compare
// with this head" makes a head the Compare tab's head B without changing the selection; it also
// ablates the head or its key/value group. Ablated heads are crossed out with their kind, and
// heads whose map the ablation changed get an orange frame and corner that grow with the JS
// change. With a corpus survey, each cell shows its strongest label's tag in a corner; with a
// label filter (the session's, also set from the context menu), the heads outside it are dimmed.
// With head scores (the session's: how far each head moved in a second model, say), each cell
// has a green bar under its thumbnail, as long as its score's share of the largest.
// The thumbnails come from HeadGridModel; this view only paints them.
#pragma once

#include <memory>

#include <QStyledItemDelegate>
#include <QTableView>

#include "attnscope/base/head_id.h"

class QMenu;

namespace attnscope::app {

class AnalysisSession;
class HeadGridModel;

// Paints a thumbnail with a frame, a highlight for the selected head and a thin strip whose
// colour encodes the head's normalised entropy (dark = focused, bright = broad), then the
// ablation marks, the survey label's tag and the label filter's dimming.
class HeadThumbnailDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

class HeadGridView : public QTableView {
    Q_OBJECT

public:
    HeadGridView(AnalysisSession* session, HeadGridModel* model, QWidget* parent = nullptr);

    // The on-screen rectangle of a head's cell (for tests).
    QRect headRect(HeadId head) const;

    // The right-click menu of a head: select, compare, open, the ablation entries
    // (views/ablation_menu.h) and, with a survey, "Show heads labelled <tag>" for the head's
    // tags (actions named "showLabel:<tag>") and "Clear label filter" ("clearLabelFilter").
    std::unique_ptr<QMenu> contextMenuFor(HeadId head);

signals:
    void headActivated(attnscope::HeadId head);  // double-click or Enter: open the head view

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void fitCells();
    void fitColumnLabels(int side);
    void syncSelection();
    void addLabelActions(QMenu* menu, HeadId head);

    AnalysisSession* m_session;
    HeadGridModel* m_model;
};

}  // namespace attnscope::app
