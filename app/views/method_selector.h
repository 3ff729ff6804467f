// What the head view and the Methods tab share about attribution maps (issue 19): the method
// combo box (flow disabled, with the reason, above kFlowMaxTokens tokens), each method's words
// (title, what it measures, what its values are), its maps drawn on a HeatmapWidget with the
// colour bar's range from the data (norm-based values are vector norms, not weights), their
// tool tips, and the line that shows a slow method's progress with a Cancel button.
// GUI thread only.
#pragma once

#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "attnscope/analysis/attribution.h"
#include "attnscope/base/head_id.h"
#include "attnscope/base/tensor.h"
#include "render/heatmap_image.h"
#include "session/meta_types.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace attnscope::app {

class AnalysisSession;
class HeatmapWidget;

QString methodTitle(analysis::AttributionMethod method);
// One sentence: what the method's map measures (methods.md §4, §5, §11.4, §11.5).
QString methodMeaning(analysis::AttributionMethod method);
// The colour bar's caption: what a cell's value is.
QString methodValueName(analysis::AttributionMethod method);
// "Attention flow solves L·n² max-flow problems; limited to 64 tokens (this sentence has 80)".
QString flowLimitText(int nTokens);

// The six methods in kAttributionMethods order, each item's data its method.
QComboBox* newMethodCombo(QWidget* parent, const QString& objectName);
// Flow enabled only for sentences of at most kFlowMaxTokens tokens; every method but Raw
// disabled, with `unsupported` (the reason) as its tool tip, when that is given.
void setMethodAvailability(QComboBox* combo, int nTokens, const QString& unsupported = {});
analysis::AttributionMethod comboMethod(const QComboBox* combo);
void setComboMethod(QComboBox* combo, analysis::AttributionMethod method);

// The map a view shows: head `head.head` of layer `head.layer` for per-head methods when
// `perHead`, else the layer's map. Float, as the heat maps draw.
Matrix attributionMatrix(const analysis::Attribution& maps, HeadId head, bool perHead);
// "Layer 3, head 7 · Norm-based ‖αf(x)‖ (0-based) — rows: queries, columns: keys" or, for a
// layer's map, "Layer 3 · ALTI (after layers 0–3)" (rows receive, columns are sources).
QString attributionMapTitle(analysis::AttributionMethod method, HeadId head, bool perHead);
// Draws `values` (from attributionMatrix) with the method's colour bar caption and title.
void showAttributionMap(HeatmapWidget* widget, const Matrix& values,
                        analysis::AttributionMethod method, const QString& title,
                        const QStringList& labels, const render::HeatmapStyle& style);
// "query 2 “keys” ← key 1 “the”\nALTI 0.123456: …" for a cell of `values`.
QString attributionTooltip(analysis::AttributionMethod method, const Matrix& values, int row,
                           int col, const QStringList& labels);

// "Computing value zeroing… 40 %" with Cancel while a watched method runs; the reason with
// Retry after a failure or cancel; hidden otherwise. Watches the session.
class AttributionStatusLine : public QWidget {
    Q_OBJECT

public:
    explicit AttributionStatusLine(AnalysisSession* session, QWidget* parent = nullptr);

    void watch(std::vector<analysis::AttributionMethod> methods);

    QString text() const;

    QPushButton* cancelButton() const { return m_cancel; }

    QPushButton* retryButton() const { return m_retry; }

    void refresh();

signals:
    // The user cancelled `method` (the session has already been told).
    void cancelled(analysis::AttributionMethod method);

private:
    AnalysisSession* m_session;
    std::vector<analysis::AttributionMethod> m_methods;
    QLabel* m_text;
    QPushButton* m_cancel;
    QPushButton* m_retry;
    analysis::AttributionMethod m_subject = analysis::AttributionMethod::Raw;
};

}  // namespace attnscope::app
