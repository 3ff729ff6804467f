// The "Logit lens" tab (issue 34): what the model would predict part-way through. A row per stage
// — the embeddings entering layer 0, then the stream after each layer, through the model's own
// final norm and prediction head (the BERT family: each layer's output into the MLM head) — and
// a column per token; each cell shows that stage's top token, coloured by the target's rank there
// (a legend says how). The target is each position's final prediction, except at the prediction
// position (bold) when a target is picked in the Predictions panel: the Logit attribution tab's.
// A cell's tool tip gives the top-k with their probabilities, the target's probability and rank
// and the KL from the final stage; a click makes its token the prediction position. Models
// without a lens (encoder-decoders) get the core's reason instead. Export: the CSV of
// attnscope-cli lens --out and the table as a PNG, SVG or PDF figure. GUI thread only.
#pragma once

#include <memory>

#include "analyses/lens/lens_document.h"
#include "widgets/placeholder_view.h"

class QLabel;
class QSpinBox;
class QTableView;

namespace attnscope::app {

class AnalysisSession;
class LensTableModel;

class LensView : public PlaceholderView {
    Q_OBJECT

public:
    explicit LensView(AnalysisSession* session, QWidget* parent = nullptr);

    std::shared_ptr<const LensDocument::Run> shownRun() const { return m_shown; }

    QTableView* table() const { return m_table; }

    LensTableModel* tableModel() const { return m_model; }

    QLabel* caption() const { return m_caption; }

    // Writes the shown lens (CSV: every stage, position and rank; or a PNG, SVG or PDF figure
    // by the extension); false, with the reason on the message bar, when there is none or the
    // file failed.
    bool exportCsv(const QString& path);
    bool exportFigure(const QString& path);

    // The job ended (LensJob's finished): a failure leaves no "Computing…" behind.
    void jobEnded(bool ok);

private:
    QWidget* makeControls();
    void refresh();
    void showRun(std::shared_ptr<const LensDocument::Run> run);
    QString captionText(const LensDocument::Run& run) const;
    bool canExport() const;

    AnalysisSession* m_session;
    LensDocument& m_document;
    QLabel* m_caption;
    QSpinBox* m_topK;
    QWidget* m_export;
    LensTableModel* m_model;
    QTableView* m_table;
    std::shared_ptr<const LensDocument::Run> m_shown;
    int m_highlight = -1;  // the prediction position's column
};

}  // namespace attnscope::app
