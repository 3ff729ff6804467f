// The alignment view of an encoder-decoder model (T5, BART, Marian): the decoder's
// cross-attention at word level, target words down the side and source words along the top,
// as analysis::crossAlignment computes it (analysis/seq2seq_analysis.h). A row is the target
// word as produced (decoder step t produces target token t); a column sums the source word's
// tokens; a target word's tokens are combined by the chosen aggregation; special tokens are
// dropped, so a row may sum to less than 1. Each row's strongest source word is outlined.
//
// Selectors choose the decoder layer, one head or all heads (their mean) and the aggregation;
// a line under them states the rule. Hovering a cell tells "target → source: 0.62"; clicking
// one emits cellPicked. The cells shrink to fit and the grid scrolls when even small cells do
// not. Export writes the view as a figure (PNG, SVG or PDF) or its weights as CSV.
//
// The view holds no session: whoever owns the analysis calls setAnalysis and setHead. Without
// an encoder-decoder analysis, or without a target, it says what is missing. GUI thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include <QString>
#include <QWidget>

#include "attnscope/analysis/seq2seq_analysis.h"
#include "render/heatmap_image.h"

class QComboBox;
class QLabel;
class QScrollArea;
class QToolButton;

namespace attnscope::app {

class AlignmentGrid;

class AlignmentView : public QWidget {
    Q_OBJECT

public:
    explicit AlignmentView(QWidget* parent = nullptr);

    std::shared_ptr<const analysis::Seq2SeqAnalysis> analysis() const { return m_analysis; }

    // -1 before the first analysis.
    int layer() const { return m_layer; }

    // -1: the mean of the layer's heads.
    int head() const { return m_head; }

    analysis::FromAggregation aggregation() const { return m_aggregation; }

    void setAggregation(analysis::FromAggregation agg);
    void setHeatmapStyle(const render::HeatmapStyle& style);

    // What the cells show; null in the empty states.
    const analysis::CrossAlignment* alignment() const {
        return m_alignment ? &*m_alignment : nullptr;
    }

    AlignmentGrid* grid() const { return m_grid; }

    // The text shown instead of cells; empty while cells are shown.
    QString placeholder() const;

    // The rule line under the selectors.
    QString ruleText() const;

    // Write the figure (format by extension: .png, .svg, .pdf) or the weights (.csv). On
    // failure: false, and *error (when given) and the view's status line say
    // "<file>: <reason>"; an existing file is left as it was.
    bool exportImage(const QString& path, QString* error = nullptr);
    bool exportCsv(const QString& path, QString* error = nullptr);

    static QString oneStackText();
    static QString noTargetText();

public slots:
    // Null: the model has no decoder with cross-attention. The layer and head stay when the
    // new analysis has them, else the last layer's mean is shown.
    void setAnalysis(std::shared_ptr<const analysis::Seq2SeqAnalysis> analysis);
    // A decoder layer and head (-1: all heads, mean); ignored when out of range.
    void setHead(int layer, int head);

signals:
    // Row and column of the clicked cell: indices into alignment()'s targetWords/sourceWords.
    void cellPicked(int targetWord, int sourceWord);

private:
    QWidget* buildControls();
    void fillSelectors();
    void refresh();
    void showEmpty(const QString& text);
    QString figureTitle() const;
    void reportStatus(const QString& text, bool failure);
    bool fail(const QString& message, QString* error);
    // Runs `write` (which writes `path`) and reports the outcome: "Wrote <name>", or the error.
    bool written(const QString& path, QString* error, const std::function<void()>& write);

    std::shared_ptr<const analysis::Seq2SeqAnalysis> m_analysis;
    std::optional<analysis::CrossAlignment> m_alignment;
    int m_layer = -1;  // none until an analysis arrives; then its last layer
    int m_head = -1;
    analysis::FromAggregation m_aggregation = analysis::FromAggregation::Mean;
    render::HeatmapStyle m_style;

    QComboBox* m_layerBox = nullptr;
    QComboBox* m_headBox = nullptr;
    QComboBox* m_aggregationBox = nullptr;
    QToolButton* m_exportImage = nullptr;
    QToolButton* m_exportCsv = nullptr;
    QLabel* m_rule = nullptr;
    QLabel* m_status = nullptr;
    QScrollArea* m_scroll = nullptr;
    AlignmentGrid* m_grid = nullptr;
};

}  // namespace attnscope::app
