// The classic two-column token view (bertviz / Vig's "attention-head view") for the selected
// head, or several heads overlaid in distinct Okabe–Ito colours with a legend. A control row
// chooses the heads: "Selected head" follows the session's selection, "+ Add" overlays another
// layer/head, a legend chip removes it again. Long sentences scroll vertically; with many tokens
// weights below kManyTokensMinWeight are not drawn, and the view says so.
//
// Observes the AnalysisSession (result, selected head); the drawing is LineCanvas. GUI thread.
// Heads being recomputed (maps over the memory budget) are drawn once all of them are there;
// meanwhile the canvas says "Computing head L·H…".
#pragma once

#include <vector>

#include <QWidget>

#include "attnscope/base/head_id.h"

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QScrollArea;
class QSpinBox;
class QToolButton;

namespace attnscope::app {

class AnalysisSession;
class HeadRecordWatch;
class LineCanvas;

class LineView : public QWidget {
    Q_OBJECT

public:
    // More tokens than this and lines below kManyTokensMinWeight are skipped (at 512 tokens a
    // causal map has ~131k pairs, nearly all of them invisible anyway).
    static constexpr int kManyTokens = 64;
    static constexpr float kManyTokensMinWeight = 0.01f;

    explicit LineView(AnalysisSession* session, QWidget* parent = nullptr);

    // Heads drawn besides the selected one; at most kMaxOverlaySlots - 1 are kept, duplicates
    // and heads outside the current result are dropped when drawing.
    void setOverlayHeads(std::vector<HeadId> heads);

    std::vector<HeadId> overlayHeads() const { return m_extra; }

    void setFollowSelected(bool follow);
    bool followsSelected() const;

    // What is drawn, in legend order (selected head first when followed).
    std::vector<HeadId> drawnHeads() const;

    LineCanvas* canvas() const { return m_canvas; }

    QScrollArea* scrollArea() const { return m_scroll; }

    int lineCount() const;

signals:
    void overlayHeadsChanged();

protected:
    void changeEvent(QEvent* event) override;

private:
    void refresh();
    void rebuildLegend(const std::vector<HeadId>& heads);
    void addHeadFromSpins();
    void updateSpinRanges();

    AnalysisSession* m_session;
    std::vector<HeadId> m_extra;
    QCheckBox* m_follow;
    QSpinBox* m_layerSpin;
    QSpinBox* m_headSpin;
    QToolButton* m_add;
    QToolButton* m_clear;
    QHBoxLayout* m_legend;
    QLabel* m_note;
    QScrollArea* m_scroll;
    LineCanvas* m_canvas;
    HeadRecordWatch* m_records;
};

}  // namespace attnscope::app
