// One head, large: its heatmap with token labels, colour bar and hover details (exact weight,
// pre-softmax logit, masked or not). Arrow keys move between heads (Left/Right) and layers
// (Up/Down, PageUp/PageDown). With the custom mask chosen, clicking a cell forbids or allows it.
#pragma once

#include <QWidget>

#include "attnscope/base/head_id.h"

class QLabel;
class QSpinBox;

namespace attnscope::app {

class AnalysisSession;
class HeatmapWidget;

class HeadView : public QWidget {
    Q_OBJECT

public:
    explicit HeadView(AnalysisSession* session, QWidget* parent = nullptr);

    HeatmapWidget* heatmap() const { return m_heatmap; }

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void refresh();
    void step(int dLayer, int dHead);
    void toggleMaskCell(int row, int col);
    QString tooltip(int row, int col) const;

    AnalysisSession* m_session;
    QSpinBox* m_layer;
    QSpinBox* m_head;
    QLabel* m_info;
    HeatmapWidget* m_heatmap;
};

}  // namespace attnscope::app
