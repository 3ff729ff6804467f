// The "Circuits" tab (issue 34): what each head can do from its weights alone
// (analysis::weightCircuits, computed once per model by the CircuitsJob while the tab is on
// screen, with progress and Cancel). Left, the composition graph: heads by layer, an edge from
// an earlier head to a later one where its Q-, K- or V-composition score minus the random
// baseline 1/√d_model is above the threshold (spin box; opens at a value that keeps the graph
// readable), each kind shown or hidden by its check box; hover for the exact scores, a click on
// a node selects the head (the session's selection, which every head view follows) and shows
// its card. Right, the selected head's card (QK/OV spectra, copying and positional scores,
// strongest partners) over a sortable table of every head. Models without weight-space circuits
// get the core's reason instead. Export: every score as CSV or HDF5 (attnscope-cli circuits
// --out's files) and the graph as a PNG, SVG or PDF figure. GUI thread only.
#pragma once

#include <memory>

#include "analyses/circuits/circuits_document.h"
#include "analyses/circuits/circuits_graph.h"
#include "widgets/placeholder_view.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace attnscope::app {

class AnalysisSession;
class CircuitsJob;
class CircuitsTableModel;
class CompositionGraph;
class HeadCard;

class CircuitsView : public PlaceholderView {
    Q_OBJECT

public:
    CircuitsView(AnalysisSession* session, CircuitsJob* job, QWidget* parent = nullptr);

    std::shared_ptr<const CircuitsDocument::Run> shownRun() const { return m_shown; }

    CompositionGraph* graph() const { return m_graph; }

    HeadCard* card() const { return m_card; }

    QTableView* table() const { return m_table; }

    QDoubleSpinBox* threshold() const { return m_threshold; }

    QCheckBox* kindBox(CompositionKind kind) const { return m_kinds[static_cast<int>(kind)]; }

    // Every score (CSV or HDF5 by the extension) or the graph (PNG, SVG or PDF); false, with the
    // reason on the message bar, when there is none or the file failed.
    bool exportScores(const QString& path);
    bool exportFigure(const QString& path);

private:
    QWidget* makeControls();
    QWidget* makeResults();
    void refresh();
    void showRun(std::shared_ptr<const CircuitsDocument::Run> run);
    void applyFilter();
    void showSelected();
    void selectHead(HeadId head);
    void followJob();
    void fitSide();
    bool canExport() const;

    AnalysisSession* m_session;
    CircuitsJob* m_job;
    CircuitsDocument& m_document;
    QDoubleSpinBox* m_threshold = nullptr;
    QCheckBox* m_kinds[3] = {};
    QLabel* m_count = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_compute = nullptr;
    QWidget* m_export = nullptr;
    CompositionGraph* m_graph = nullptr;
    HeadCard* m_card = nullptr;
    CircuitsTableModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QTableView* m_table = nullptr;
    QSplitter* m_split = nullptr;
    bool m_cancelled = false;
    bool m_sideFitted = false;
    // Whether a head was picked since the run came: until then no edge is faded.
    bool m_focused = false;
    std::shared_ptr<const CircuitsDocument::Run> m_shown;
};

}  // namespace attnscope::app
