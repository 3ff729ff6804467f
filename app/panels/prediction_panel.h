// The "Predictions" panel: what the model predicts at one token position — the five most
// probable next tokens of a causal LM, or the five best fillers of a [MASK] for a masked LM —
// as a ranked list with probability bars. The position is the query row clicked in the head
// view (or chosen in the panel's list); by default the last token (causal) or the first mask
// token (masked LM). The ComputeService computes them; the panel shows the session's.
#pragma once

#include <vector>

#include <QWidget>

#include "attnscope/forward/prediction.h"

class QComboBox;
class QLabel;

namespace attnscope::app {

class AnalysisSession;

// Ranked candidates drawn as labelled bars; empty shows nothing.
class PredictionBars : public QWidget {
    Q_OBJECT

public:
    explicit PredictionBars(QWidget* parent = nullptr);

    void setPredictions(std::vector<forward::TokenPrediction> predictions);

    const std::vector<forward::TokenPrediction>& predictions() const { return m_predictions; }

    QSize sizeHint() const override;
    // Room for a short token, a bar and the widest percentage ("100.0%") side by side.
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<forward::TokenPrediction> m_predictions;
};

class PredictionPanel : public QWidget {
    Q_OBJECT

public:
    explicit PredictionPanel(AnalysisSession* session, QWidget* parent = nullptr);

    // The position shown, -1 for none (tests).
    int position() const { return m_position; }

    const PredictionBars* bars() const { return m_bars; }

signals:
    void predictionsShown();  // after the bars changed (tests wait for it)

private:
    void refresh();
    void fillPositions();
    void showPredictions();

    AnalysisSession* m_session;
    QLabel* m_heading;
    QComboBox* m_positions;
    PredictionBars* m_bars;
    QLabel* m_note;
    int m_position = -1;
};

}  // namespace attnscope::app
