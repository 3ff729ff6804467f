// Two heads side by side (same or different layers), their difference in a diverging colour
// map, and the Jensen–Shannon divergence of every query row and in total (Clark et al.'s
// head distance, methods.md §1.6). Head A follows the selected head; head B is the session's
// compare head, which follows A until one is picked (AnalysisSession::compareHead). Heads that are
// being recomputed (maps over the memory budget) show "Computing head L·H…" until the session has
// them.
//
// Its second mode (issue 32) draws the selected head in the model open against the same head in
// a second model, the same way: the sentence through both models as an analysis gave it to the
// session (HeadOverlays::counterpart; the "Compare models" tab opens the second model). The tab
// turns to that mode when a new second model arrives.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QStringList>
#include <QWidget>

#include "attnscope/base/head_id.h"
#include "attnscope/forward/head_record.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace attnscope::app {

class AnalysisSession;
class HeadRecordWatch;
class HeatmapWidget;

class CompareView : public QWidget {
    Q_OBJECT

public:
    explicit CompareView(AnalysisSession* session, QWidget* parent = nullptr);

    // What B is: another head of the model open, or the same head in the second model.
    enum class Mode { Heads, Models };

    Mode mode() const;
    void setMode(Mode mode);

    HeatmapWidget* heatmapA() const { return m_a; }

    HeatmapWidget* heatmapB() const { return m_b; }

    HeatmapWidget* difference() const { return m_diff; }

    // Total JS divergence shown, in nats (NaN when nothing is compared).
    double totalDivergence() const { return m_total; }

private:
    // The maps on screen, for the tool tips (reset while either head is missing), and what
    // each is called there: "layer 1, head 2", or a model's name.
    struct Shown {
        QStringList labels;
        Matrix a;
        Matrix b;
        Matrix difference;
        BoolMatrix allowed;
        QString nameA;
        QString nameB;
    };

    QHBoxLayout* buildBar();
    void wire();
    void refresh();
    void syncSpinBoxes();
    QString tooltip(int row, int col) const;
    void showNothing(const QString& placeholder);
    // Draws what is there of A and B; false (and the pending text) while either is missing.
    bool showHeads(const QStringList& labels, const forward::HeadRecord* a,
                   const forward::HeadRecord* b);
    void showComparison(const QStringList& labels, const Matrix& mapA, const Matrix& mapB,
                        const BoolMatrix& allowed, const QString& nameA, const QString& nameB);
    // The second mode (compare_view_models.cpp): the selected head in both models.
    void showModels();
    // A new second model: the tab turns to it.
    void followCounterpart();

    AnalysisSession* m_session;
    QComboBox* m_mode;
    QWidget* m_bControls;       // B's spin boxes and captions, hidden in the second mode
    QString m_counterpartName;  // the second model seen last
    QSpinBox* m_layerA;
    QSpinBox* m_headA;
    QSpinBox* m_layerB;
    QSpinBox* m_headB;
    HeatmapWidget* m_a;
    HeatmapWidget* m_b;
    HeatmapWidget* m_diff;
    QLabel* m_summary;
    QTableWidget* m_rows;
    double m_total = 0;
    QStringList m_keyLabels;  // the columns': the source's tokens for cross-attention
    std::optional<Shown> m_shown;
    HeadRecordWatch* m_records;
};

}  // namespace attnscope::app
