// The "Logit attribution" tab (issue 34): which heads, MLPs and embeddings write the logit the
// model predicts. At the prediction position (the token picked in the head view or the
// Predictions panel; by default the last), for the target picked in Predictions (a click; by
// default the top prediction) minus the distractor picked there (Ctrl+click): a layers × heads
// heatmap of every head's direct contribution in a diverging map (hover: the value; click: the
// head opens in the Head view), every term in a table sorted largest |value| first (a head's row
// opens it too), and the sum of the terms against the logit. Models without a direct logit
// attribution (post-LN BERT, encoder-decoders) get the core's reason instead. Export: the terms
// as CSV (attnscope-cli dla --out's columns) and the heatmap as a PNG, SVG or PDF figure.
// GUI thread only.
#pragma once

#include <memory>

#include "analyses/dla/dla_document.h"
#include "attnscope/base/head_id.h"
#include "widgets/placeholder_view.h"

class QLabel;
class QCheckBox;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace attnscope::app {

class AnalysisSession;
class DlaTableModel;
class HeatmapWidget;

class DlaView : public PlaceholderView {
    Q_OBJECT

public:
    explicit DlaView(AnalysisSession* session, QWidget* parent = nullptr);

    // The run shown; null with the placeholder.
    std::shared_ptr<const DlaDocument::Run> shownRun() const { return m_shown; }

    HeatmapWidget* heatmap() const { return m_heatmap; }

    QTableView* table() const { return m_table; }

    DlaTableModel* tableModel() const { return m_model; }

    QLabel* caption() const { return m_caption; }

    // "Heads on the model grid": the document's showsOnGrid.
    QCheckBox* onGridBox() const { return m_onGrid; }

    // Writes the shown run's terms (CSV) or its heatmap (PNG, SVG or PDF by the extension);
    // false, with the reason on the message bar, when there is none or the file failed.
    bool exportCsv(const QString& path);
    bool exportFigure(const QString& path);

    // The job ended (DlaJob's finished): a failure leaves no "Computing…" behind.
    void jobEnded(bool ok);

signals:
    void headActivated(attnscope::HeadId head);

private:
    QWidget* makeControls();
    QWidget* makeResults();
    void refresh();
    void showRun(std::shared_ptr<const DlaDocument::Run> run);
    void fitTable();
    QString heatmapTooltip(int layer, int head) const;
    void activateHead(HeadId head);
    bool canExport() const;

    AnalysisSession* m_session;
    DlaDocument& m_document;
    QLabel* m_caption;
    QLabel* m_sum;
    QPushButton* m_topPrediction;
    QPushButton* m_noDistractor;
    QCheckBox* m_onGrid;
    QWidget* m_export;
    HeatmapWidget* m_heatmap;
    DlaTableModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QTableView* m_table;
    QSplitter* m_split = nullptr;
    bool m_tableFitted = false;
    std::shared_ptr<const DlaDocument::Run> m_shown;
};

}  // namespace attnscope::app
