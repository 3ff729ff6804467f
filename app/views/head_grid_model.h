// The model grid as a table: rows are layers, columns are heads. Each cell offers the head's
// thumbnail (DecorationRole, a one-pixel-per-cell heatmap), a tooltip with its statistics,
// and its HeadId and statistics under custom roles. With ablations, each cell also says how its
// head was ablated and how much its map changed (AblationKindRole, JsChangeRole). Heads within a
// layer can be shown in model order or sorted by a statistic; the cell then still carries the real
// HeadId.
//
// Corpus survey labels (issue 18) are per head, not per sentence: setLabels keeps the session's
// head labels across results and orders, and the label roles and tooltip read it by the cell's real
// HeadId. A label filter ("induct", or a family: "pos", "syn") marks the heads
// analysis::headsWithLabel finds; it is only active while there are labels to filter.
//
// Head scores (session/head_scores.h: a number per head an analysis gives, such as how far each
// head moved in a second model) are kept the same way: ScoreRole gives a head's value and
// ScoreBarRole its share of the largest (signed for signed scores), and the tooltip names them.
#pragma once

#include <memory>
#include <vector>

#include <QAbstractTableModel>
#include <QImage>
#include <QString>

#include "attnscope/analysis/ablation_effects.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "render/heatmap_image.h"
#include "session/head_labels.h"
#include "session/head_scores.h"

namespace attnscope::app {

class HeadGridModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        HeadLayerRole = Qt::UserRole + 1,  // int
        HeadIndexRole,                     // int
        MeanEntropyRole,                   // double, nats
        MaxWeightRole,                     // double
        MaxAbsLogitRole,                   // double
        NormalizedEntropyRole,             // double in [0, 1]
        KvHeadRole,                        // int: the key/value head the query head reads
        KvGroupStartRole,                  // bool: first head of a GQA group (model order)
        AblationKindRole,    // QString "zero" / "mean" / "sink"; empty when not ablated
        JsChangeRole,        // double, nats: JS change of the map; invalid without ablation
        JsMarkRole,          // double in [0, 1]: how strongly to mark the change; 0 below 1e-4
        LabelTagRole,        // QString: the strongest survey label's tag; empty when none
        LabelsRole,          // QString: every tag, strongest first: "prev, pos+1"
        LabelHighlightRole,  // int: 1 carries the filtered label, 0 not, -1 no filter active
        ScoreRole,           // double: the head's score; invalid without scores
        ScoreBarRole,        // double in [0, 1], or [-1, 1] for signed scores: the score's share of
                             // the largest (|score|); invalid without
        ScoreSignedRole,     // bool: the scores take either sign (bars drawn from the middle)
    };

    // Changes below this many nats get no mark: float noise of a restarted pass.
    static constexpr double kJsMarkThreshold = 1e-4;

    enum class Order { Model, ByEntropy, ByMaxLogit };

    explicit HeadGridModel(QObject* parent = nullptr);

    // `effects` (of an ablated result) gives the JS roles; null for a clean result.
    void setResult(std::shared_ptr<const analysis::SentenceAnalysis> result,
                   const render::HeatmapStyle& style,
                   std::shared_ptr<const analysis::AblationEffects> effects = nullptr);
    void setOrder(Order order);
    // The corpus survey's labels the cells show (AnalysisSession::headLabels); empty clears them.
    void setLabels(HeadLabels labels);
    // The tag or family to highlight (AnalysisSession::labelFilter); empty: none.
    void setLabelFilter(const QString& tag);

    QString labelFilter() const { return m_labelFilter; }

    // The head scores the cells show (HeadOverlays::headScores); empty clears them.
    void setScores(HeadScores scores);

    Order order() const { return m_order; }

    // A column's header: "H3" in model order ("#4" sorted), or the bare number where the cells
    // are too narrow for the prefix (HeadGridView decides; setPrefixedColumns).
    QString columnLabel(int section, bool prefixed) const;
    void setPrefixedColumns(bool prefixed);

    // Where a head sits in the grid under the current order.
    QModelIndex indexOf(HeadId head) const;
    HeadId headAt(const QModelIndex& index) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void rebuildOrder();
    const analysis::HeadStats& statsOf(HeadId head) const;

    QString ablationTip(HeadId h) const;
    double jsOf(HeadId h) const;  // NaN without effects
    QString toolTip(HeadId h) const;
    const std::vector<analysis::HeadLabel>& labelsOf(HeadId h) const;
    int highlightOf(HeadId h) const;
    void rebuildFilter();
    void emitForAllCells(const QList<int>& roles);
    QString scoreTip(HeadId h) const;

    std::shared_ptr<const analysis::SentenceAnalysis> m_result;
    std::shared_ptr<const analysis::AblationEffects> m_effects;
    std::vector<QImage> m_thumbnails;            // [headIndex(head, nHeads)]
    std::vector<std::vector<int>> m_columnHead;  // [layer][column] -> head
    Order m_order = Order::Model;
    bool m_prefixedColumns = true;
    HeadLabels m_labels;
    QString m_labelFilter;
    std::vector<char> m_inFilter;  // [headIndex(head, survey nHeads)]; empty: no filter active
    HeadScores m_scores;
    double m_largestScore = 0;
};

}  // namespace attnscope::app
