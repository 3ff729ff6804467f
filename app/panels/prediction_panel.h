// The "Predictions" panel: what the model predicts at one token position — the five most
// probable next tokens of a causal LM, or the five best fillers of a [MASK] for a masked LM —
// as a ranked list with probability bars. The position is the query row clicked in the head
// view (or chosen in the panel's list); by default the last token (causal) or the first mask
// token (masked LM). The ComputeService computes them; the panel shows the session's.
//
// With ablations set, the clean and the ablated predictions stand side by side (above each
// other in a narrow dock) at the same position: each clean token with its Δp and its rank
// after the ablation, each ablated token with its Δp and its rank before.
//
// A click on a token picks it as the target the logit views explain (AnalysisSession::
// pickTarget), Ctrl+click as the distractor subtracted from it; the right-click menu offers the
// same and going back to the top prediction. The picked tokens are framed in the list.
#pragma once

#include <vector>

#include <QWidget>

#include "attnscope/forward/prediction.h"
#include "session/analysis_session.h"

class QBoxLayout;
class QComboBox;
class QLabel;

namespace attnscope::app {

class AnalysisSession;

// Ranked candidates drawn as labelled bars; empty shows nothing. A row may carry a note under
// its bar ("−12.3 pp · #4"), tinted by the sign of its change.
class PredictionBars : public QWidget {
    Q_OBJECT

public:
    struct Note {
        QString text;
        double change = 0;  // < 0 red, > 0 green
    };

    explicit PredictionBars(QWidget* parent = nullptr);

    void setPredictions(std::vector<forward::TokenPrediction> predictions,
                        std::vector<Note> notes = {});

    const std::vector<forward::TokenPrediction>& predictions() const { return m_predictions; }

    const std::vector<Note>& notes() const { return m_notes; }

    // Frames the rows of the picked target (solid) and distractor (dashed).
    void setPicked(const PickedTokens& picked);

    // The row of the token at `pos` (widget coordinates); -1 for none.
    int rowAt(QPoint pos) const;

    // The centre of row `row`, where a click picks its token (tests).
    QPoint rowCenter(int row) const;

    QSize sizeHint() const override;
    // Room for a short token, a bar and the widest percentage ("100.0%") side by side.
    QSize minimumSizeHint() const override;

signals:
    // A left click on the token of row `row` (the modifiers held: Ctrl picks a distractor).
    void tokenClicked(int row, Qt::KeyboardModifiers modifiers);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    int rowHeight() const;
    void paintPickedFrame(QPainter& p, int row) const;

    std::vector<forward::TokenPrediction> m_predictions;
    std::vector<Note> m_notes;
    PickedTokens m_picked;
};

class TokenPickField;

class PredictionPanel : public QWidget {
    Q_OBJECT

public:
    explicit PredictionPanel(AnalysisSession* session, QWidget* parent = nullptr);

    // The position shown, -1 for none (tests).
    int position() const { return m_position; }

    // The shown result's predictions (ablated when ablations are set) and, with ablations,
    // the clean ones beside them.
    const PredictionBars* bars() const { return m_bars; }

    const PredictionBars* cleanBars() const { return m_cleanBars; }

    // True while the clean column is shown (ablations set).
    bool comparing() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

signals:
    void predictionsShown();  // after the bars changed (tests wait for it)

private:
    std::vector<PredictionBars::Note> targetNotes(const Predictions& p);
    // What a click (or the menu) on `bars`' row does: pick its token as target or distractor.
    void followPicks(PredictionBars* bars);
    void showPickMenu(PredictionBars* bars, QPoint pos);
    void showPicked();
    void refresh();
    void fillPositions();
    void showPredictions();
    void fitColumns();

    AnalysisSession* m_session;
    QLabel* m_heading;
    QComboBox* m_positions;
    QWidget* m_columns;
    QBoxLayout* m_columnLayout;
    QLabel* m_cleanTitle;
    QLabel* m_ablatedTitle;
    PredictionBars* m_cleanBars;
    PredictionBars* m_bars;
    QLabel* m_note;
    TokenPickField* m_pick;
    int m_position = -1;
};

}  // namespace attnscope::app
