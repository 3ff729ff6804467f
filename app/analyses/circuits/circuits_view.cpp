#include "analyses/circuits/circuits_view.h"

#include <algorithm>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/circuits/circuits_job.h"
#include "analyses/circuits/circuits_table_model.h"
#include "analyses/circuits/composition_graph.h"
#include "analyses/circuits/head_card.h"
#include "analyses/corpus/corpus_widgets.h"
#include "attnscope/export/circuits_export.h"
#include "render/figure_file.h"
#include "session/analysis_session.h"
#include "session/reporting_export.h"
#include "widgets/chart_palette.h"
#include "widgets/named.h"
#include "widgets/table_split.h"

namespace attnscope::app {

namespace {

// The core's reason as a sentence.
QString sentence(const std::string& reason) {
    QString text = QString::fromStdString(reason);
    if (!text.isEmpty()) {
        text[0] = text[0].toUpper();
    }
    return text + QLatin1Char('.');
}

// A short line of the kind's colour: the check box is the graph's legend too.
QIcon kindIcon(CompositionKind kind, const QPalette& palette) {
    QPixmap pixmap(18, 12);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(kindColor(kind, isDarkPalette(palette)), 3.0, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(QPointF(2, 6), QPointF(16, 6));
    return QIcon(pixmap);
}

}  // namespace

CircuitsView::CircuitsView(AnalysisSession* session, CircuitsJob* job, QWidget* parent)
    : PlaceholderView("circuits", settingViewed(session->document<CircuitsDocument>()), parent),
      m_session(session),
      m_job(job),
      m_document(session->document<CircuitsDocument>()),
      m_model(new CircuitsTableModel(this)),
      m_sorted(new QSortFilterProxyModel(this)) {
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(ResultsTableModel::SortRole);
    // The controls stay above the stack: Cancel must be there while it computes.
    auto* controls = makeControls();
    auto* outer = qobject_cast<QVBoxLayout*>(layout());
    auto* page = makeResults();
    stack()->setPage(page);
    if (outer) {
        outer->setContentsMargins(8, 6, 8, 4);
        outer->insertWidget(0, controls);
    }
    connect(session, &AnalysisSession::modelChanged, this, [this] {
        m_cancelled = false;
        refresh();
    });
    connect(session, &AnalysisSession::selectedHeadChanged, this, [this] {
        m_focused = true;
        showSelected();
    });
    connect(&m_document, &CircuitsDocument::runChanged, this, &CircuitsView::refresh);
    followJob();
    refresh();
}

QWidget* CircuitsView::makeControls() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 2);
    auto* label = new QLabel(tr("Edges: score − baseline >"), bar);
    m_threshold = named<QDoubleSpinBox>("circuitsThreshold", bar);
    m_threshold->setRange(0.0, 1.0);
    m_threshold->setDecimals(4);
    m_threshold->setSingleStep(0.005);
    m_threshold->setValue(0.1);
    m_threshold->setToolTip(
        tr("A composition score counts as an edge when it exceeds the random baseline "
           "1/√d_model by more than this. It opens at a value that keeps about 40 edges."));
    label->setBuddy(m_threshold);
    row->addWidget(label);
    row->addWidget(m_threshold);
    row->addSpacing(10);
    const char* names[] = {"circuitsShowQ", "circuitsShowK", "circuitsShowV"};
    const QString texts[] = {tr("Q"), tr("K"), tr("V")};
    const QString tips[] = {tr("Q-composition: the later head's queries read the earlier head"),
                            tr("K-composition: the later head's keys read the earlier head "
                               "(induction heads)"),
                            tr("V-composition: the later head's values read the earlier head")};
    for (const CompositionKind kind : kCompositionKinds) {
        const auto k = static_cast<int>(kind);
        m_kinds[k] = named<QCheckBox>(names[k], texts[k], bar);
        m_kinds[k]->setChecked(true);
        m_kinds[k]->setIcon(kindIcon(kind, palette()));
        m_kinds[k]->setToolTip(tips[k]);
        row->addWidget(m_kinds[k]);
        connect(m_kinds[k], &QCheckBox::toggled, this, &CircuitsView::applyFilter);
    }
    m_count = named<QLabel>("circuitsEdgeCount", bar);
    m_count->setForegroundRole(QPalette::PlaceholderText);
    row->addSpacing(8);
    row->addWidget(m_count);
    row->addStretch(1);
    m_progress = named<QProgressBar>("circuitsProgress", bar);
    m_progress->setMinimumWidth(170);
    m_progress->setMaximumWidth(240);
    m_progress->setFormat(tr("computing, %p %"));
    m_progress->hide();
    m_cancel = named<QPushButton>("circuitsCancel", tr("Cancel"), bar);
    m_cancel->hide();
    m_compute = named<QPushButton>("circuitsCompute", tr("Compute"), bar);
    m_compute->setToolTip(tr("Compute every head's weight-space scores"));
    m_compute->hide();
    m_export = corpus::newExportButton(
        bar, QStringLiteral("circuitsExport"),
        {{tr("Scores (CSV or HDF5)…"), tr("Export the weight-space circuit scores"),
          tr("CSV files (*.csv);;HDF5 files (*.h5)"),
          [this](const QString& p) { return exportScores(p); }},
         {tr("Graph figure (PNG, SVG, PDF)…"), tr("Export the composition graph"),
          tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
          [this](const QString& p) { return exportFigure(p); }}});
    row->addWidget(m_progress);
    row->addWidget(m_cancel);
    row->addWidget(m_compute);
    row->addWidget(m_export);
    connect(m_threshold, &QDoubleSpinBox::valueChanged, this, &CircuitsView::applyFilter);
    connect(m_cancel, &QPushButton::clicked, m_job, &CircuitsJob::cancelRun);
    connect(m_compute, &QPushButton::clicked, this, [this] {
        m_cancelled = false;
        m_job->restart();
        refresh();
    });
    return bar;
}

QWidget* CircuitsView::makeResults() {
    auto* split = named<QSplitter>("circuitsSplitter", Qt::Horizontal, this);
    m_graph = named<CompositionGraph>("circuitsGraph", split);
    auto* side = named<QSplitter>("circuitsSide", Qt::Vertical, split);
    m_card = named<HeadCard>("circuitsCard", side);
    m_table = corpus::newSortedTable(side, QStringLiteral("circuitsTable"), m_sorted,
                                     CircuitsTableModel::Layer, 40);
    m_table->sortByColumn(CircuitsTableModel::Layer, Qt::AscendingOrder);
    side->addWidget(m_card);
    side->addWidget(m_table);
    side->setStretchFactor(0, 3);
    side->setStretchFactor(1, 2);
    side->setChildrenCollapsible(false);
    split->addWidget(m_graph);
    split->addWidget(side);
    split->setStretchFactor(0, 3);  // a wider window widens the graph most
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    m_split = split;
    connect(m_graph, &CompositionGraph::headClicked, this, &CircuitsView::selectHead);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        selectHead(m_model->headOf(m_sorted->mapToSource(index).row()));
    });
    return split;
}

void CircuitsView::followJob() {
    connect(m_job, &CorpusJob::started, this, [this] {
        m_progress->setRange(0, 0);
        m_progress->show();
        m_cancel->show();
        m_cancelled = false;
        refresh();
    });
    connect(m_job, &CorpusJob::progress, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    });
    connect(m_job, &CorpusJob::finished, this, [this](bool ok) {
        m_progress->hide();
        m_cancel->hide();
        m_cancelled = !ok && !m_document.run();
        refresh();
    });
}

void CircuitsView::refresh() {
    const auto model = m_session->model();
    const auto run = m_document.run();
    const bool fresh = run && model && run->forModel.lock() == model;
    m_compute->setVisible(!fresh && m_cancelled && model && !m_job->isRunning());
    if (!model) {
        showRun(nullptr);
        stack()->showPlaceholder(
            tr("No model yet.\nOpen a model to see what each head can do from its weights alone: "
               "its QK and OV circuits and how heads compose."));
        return;
    }
    if (const std::string why = analysis::weightCircuitsUnsupportedReason(*model); !why.empty()) {
        showRun(nullptr);
        stack()->showPlaceholder(sentence(why));
        return;
    }
    if (!fresh) {
        showRun(nullptr);
        stack()->showPlaceholder(
            m_cancelled ? tr("No weight-space circuits: the computation was cancelled or failed "
                             "(the message bar says which). Press Compute to run it again.")
                        : tr("Computing every head's weight-space circuits…"));
        return;
    }
    showRun(run);
    stack()->showPage();
    if (!m_sideFitted) {
        // Once the page is laid out at its size: a hidden page's splitter has another.
        QMetaObject::invokeMethod(this, &CircuitsView::fitSide, Qt::QueuedConnection);
    }
}

// Once, when the first scores arrive: the card and table as wide as the table's columns (up to
// half the view), the graph the rest. Later the user's split stays.
void CircuitsView::fitSide() {
    if (m_sideFitted || !m_split->isVisible() || !m_shown) {
        return;
    }
    m_sideFitted = true;
    fitTableSide(m_split, m_table, 340);
}

void CircuitsView::showRun(std::shared_ptr<const CircuitsDocument::Run> run) {
    const bool enabled = run != nullptr;
    m_threshold->setEnabled(enabled);
    for (QCheckBox* box : m_kinds) {
        box->setEnabled(enabled);
    }
    if (run == m_shown) {
        return;
    }
    m_shown = run;
    m_focused = false;
    m_model->setRun(run);
    if (run) {
        const QSignalBlocker quiet(m_threshold);
        m_threshold->setValue(defaultThreshold(run->circuits));
    }
    m_graph->setRun(run, {});
    applyFilter();
    showSelected();
}

void CircuitsView::applyFilter() {
    EdgeFilter filter;
    filter.threshold = m_threshold->value();
    for (const CompositionKind kind : kCompositionKinds) {
        filter.shown[static_cast<int>(kind)] = m_kinds[static_cast<int>(kind)]->isChecked();
    }
    m_graph->setFilter(filter);
    const auto n = static_cast<int>(m_graph->edges().size());
    // Short: the row must fit a 1024-pixel window; the tool tip says what the baseline is.
    m_count->setText(
        m_shown
            ? tr("%n edge(s), baseline %1", nullptr, n).arg(m_shown->circuits.baseline, 0, 'f', 4)
            : QString());
    m_count->setToolTip(m_shown ? tr("The random baseline 1/√d_model = %1 is subtracted from "
                                     "every composition score")
                                      .arg(m_shown->circuits.baseline, 0, 'f', 4)
                                : QString());
}

void CircuitsView::showSelected() {
    const HeadId head = m_session->selectedHead();
    m_card->showHead(m_shown, m_shown ? std::optional(head) : std::nullopt);
    m_graph->setSelected(m_focused && m_shown ? std::optional(head) : std::nullopt);
}

void CircuitsView::selectHead(HeadId head) {
    m_focused = true;
    m_session->selectHead(head);
    showSelected();  // also when it was the selected head already
}

bool CircuitsView::canExport() const {
    if (!m_shown) {
        m_session->reportError(
            tr("Nothing to export yet: open a model and let the Circuits tab "
               "compute its scores."));
    }
    return m_shown != nullptr;
}

bool CircuitsView::exportScores(const QString& path) {
    if (!canExport()) {
        return false;
    }
    return reportingExport(m_session, [&] {
        if (path.endsWith(QStringLiteral(".h5"), Qt::CaseInsensitive)) {
            const auto model = m_shown->forModel.lock();
            exporting::writeCircuitsHdf5(path.toStdString(), m_shown->circuits,
                                         model ? model->dir.string() : std::string());
        } else {
            exporting::writeCircuitsCsv(path.toStdString(), m_shown->circuits);
        }
    });
}

bool CircuitsView::exportFigure(const QString& path) {
    if (!canExport()) {
        return false;
    }
    const auto model = m_shown->forModel.lock();
    const QString title =
        tr("Composition between heads, from the weights: %1")
            .arg(model ? QString::fromStdString(model->dir.filename().string()) : QString());
    render::FigurePage page;
    page.dpi = 150;
    page.pixelSize = {std::max(1100, 130 * m_shown->circuits.nLayers + 260),
                      std::max(700, 56 * m_shown->circuits.nHeads + 260)};
    page.title = tr("Composition graph");
    return reportingExport(m_session, [&] {
        render::writeFigureFile(path, page, [this, &page, &title](QPainter& p) {
            m_graph->paintFigure(p, page.pixelSize, title);
        });
    });
}

}  // namespace attnscope::app
