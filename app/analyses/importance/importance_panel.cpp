#include "analyses/importance/importance_panel.h"

#include <utility>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/importance/importance_figure.h"
#include "analyses/importance/importance_table_model.h"
#include "analyses/importance/pruning_chart.h"
#include "attnscope/base/error.h"
#include "attnscope/export/importance_export.h"
#include "render/figure_file.h"
#include "service/compute_service.h"
#include "views/heatmap_widget.h"
#include "widgets/chart_export.h"
#include "widgets/file_dialogs.h"

namespace attnscope::app {

namespace {

constexpr int kMaxSentences = 1000000;
constexpr int kDefaultMaskPercent = 15;

QStringList groupLabels(int groups) {
    QStringList labels;
    for (int g = 0; g < groups; ++g) {
        labels << QStringLiteral("G%1").arg(g);
    }
    return labels;
}

}  // namespace

ImportancePanel::ImportancePanel(AnalysisSession* session, ComputeService* service, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_service(service),
      m_model(new ImportanceTableModel(this)),
      m_sorted(new QSortFilterProxyModel(this)) {
    setObjectName(QStringLiteral("importancePanel"));
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(ImportanceTableModel::SortRole);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(buildOptions());
    layout->addWidget(buildResults(), 1);
    connectService();
    connect(m_session, &AnalysisSession::importanceChanged, this, &ImportancePanel::showRun);
    connect(m_session, &AnalysisSession::modelChanged, this, &ImportancePanel::refreshForModel);
    connect(m_session, &AnalysisSession::selectedHeadChanged, this,
            &ImportancePanel::refreshSelection);
    // A loaded treebank is the likeliest corpus.
    connect(m_session, &AnalysisSession::treebankChanged, this, [this] {
        if (m_path->text().isEmpty() && m_session->treebank()) {
            m_path->setText(m_session->treebank()->path);
        }
    });
    refreshForModel();
    showRun();
}

QWidget* ImportancePanel::buildOptions() {
    auto* box = new QWidget(this);
    m_path = new QLineEdit(box);
    m_path->setObjectName(QStringLiteral("importancePath"));
    m_path->setPlaceholderText(tr("Sentences: a .txt file (one per line) or a .conllu treebank"));
    m_browse = new QPushButton(tr("Browse…"), box);
    m_browse->setObjectName(QStringLiteral("importanceBrowse"));
    m_compute = new QPushButton(tr("Compute"), box);
    m_compute->setObjectName(QStringLiteral("importanceCompute"));
    m_compute->setToolTip(tr("Ablate every head alone on these sentences and measure the loss"));
    m_progress = new QProgressBar(box);
    m_progress->setObjectName(QStringLiteral("importanceProgress"));
    m_cancel = new QPushButton(tr("Cancel"), box);
    m_cancel->setObjectName(QStringLiteral("importanceCancel"));
    auto* first = new QHBoxLayout;
    first->addWidget(new QLabel(tr("Corpus:"), box));
    first->addWidget(m_path, 1);
    first->addWidget(m_browse);
    first->addWidget(m_compute);
    first->addWidget(m_progress, 1);
    first->addWidget(m_cancel);
    auto* rows = new QVBoxLayout(box);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(2);
    rows->addLayout(first);
    rows->addLayout(buildRunOptions(box));
    connect(m_browse, &QPushButton::clicked, this, &ImportancePanel::askForCorpus);
    connect(m_path, &QLineEdit::returnPressed, this, &ImportancePanel::computeChosenFile);
    connect(m_compute, &QPushButton::clicked, this, &ImportancePanel::computeChosenFile);
    connect(m_cancel, &QPushButton::clicked, this, &ImportancePanel::cancelComputing);
    return box;
}

QHBoxLayout* ImportancePanel::buildRunOptions(QWidget* box) {
    m_kind = new QComboBox(box);
    m_kind->setObjectName(QStringLiteral("importanceKind"));
    m_kind->addItem(tr("zero"), static_cast<int>(forward::AblationKind::Zero));
    m_kind->addItem(tr("mean"), static_cast<int>(forward::AblationKind::Mean));
    m_kind->addItem(tr("sink"), static_cast<int>(forward::AblationKind::Sink));
    m_kind->setToolTip(
        tr("zero: the head's output is 0 (HF head_mask) · mean: its mean output over these "
           "sentences · sink: every query attends to the first token only"));
    m_units = new QComboBox(box);
    m_units->setObjectName(QStringLiteral("importanceUnits"));
    m_units->addItems({tr("heads"), tr("key/value groups")});
    m_sentences = new QSpinBox(box);
    m_sentences->setObjectName(QStringLiteral("importanceSentences"));
    m_sentences->setRange(0, kMaxSentences);
    m_sentences->setSpecialValueText(tr("all"));
    m_sentences->setValue(ImportanceRequest{}.maxSentences);
    m_sentences->setToolTip(tr("The first sentences of the file (0: all of them)"));
    m_seed = new QSpinBox(box);
    m_seed->setObjectName(QStringLiteral("importanceSeed"));
    m_seed->setRange(0, 1 << 30);
    m_seed->setToolTip(tr("Seeds which tokens are masked; the masking is the same for every head"));
    m_maskPercent = new QDoubleSpinBox(box);
    m_maskPercent->setObjectName(QStringLiteral("importanceMask"));
    m_maskPercent->setRange(1, 100);
    m_maskPercent->setDecimals(0);
    m_maskPercent->setSuffix(tr(" %"));
    m_maskPercent->setValue(kDefaultMaskPercent);
    m_maskPercent->setToolTip(tr("Masked LMs: the share of each sentence's tokens masked"));
    m_export = buildExportButton(box);
    auto* second = new QHBoxLayout;
    const auto add = [&](const QString& label, QWidget* w) {
        auto* l = new QLabel(label, box);
        l->setBuddy(w);
        second->addWidget(l);
        second->addWidget(w);
        second->addSpacing(6);
    };
    add(tr("Ablation:"), m_kind);
    add(tr("Units:"), m_units);
    add(tr("Sentences:"), m_sentences);
    add(tr("Seed:"), m_seed);
    add(tr("Masked:"), m_maskPercent);
    second->addStretch(1);
    second->addWidget(m_export);
    return second;
}

QToolButton* ImportancePanel::buildExportButton(QWidget* parent) {
    const auto write = [this](bool (ImportancePanel::*f)(const QString&)) {
        return [this, f](const QString& p) { return (this->*f)(p); };
    };
    return corpus::newExportButton(
        parent, QStringLiteral("importanceExport"),
        {{tr("Table as CSV…"), tr("Export the head importance table"), tr("CSV table (*.csv)"),
          write(&ImportancePanel::exportCsv)},
         {tr("Results as HDF5…"), tr("Export the head importance results"), tr("HDF5 file (*.h5)"),
          write(&ImportancePanel::exportResults)},
         {tr("Heatmap figure (PNG, SVG, PDF)…"), tr("Export the Δ loss heatmap"),
          tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
          write(&ImportancePanel::exportHeatmapFigure)},
         {tr("Pruning chart (PNG, SVG)…"), tr("Export the pruning curve"),
          tr("PNG image (*.png);;SVG image (*.svg)"), write(&ImportancePanel::exportChart)}});
}

QWidget* ImportancePanel::buildResults() {
    auto* box = new QWidget(this);
    m_summary = new corpus::SummaryLine(box);  // one line, elided: it must not grow the dock
    m_summary->setObjectName(QStringLiteral("importanceSummary"));
    auto* split = new QSplitter(Qt::Horizontal, box);
    split->setObjectName(QStringLiteral("importanceSplitter"));
    split->addWidget(buildHeatmap(split));
    split->addWidget(buildTable(split));
    m_chart = new PruningChart(split);
    m_chart->setObjectName(QStringLiteral("importanceChart"));
    split->addWidget(m_chart);
    // In proportion: room for the heatmap's one-line legend at 1024 pixels, the rest shared.
    split->setSizes({300, 400, 400});
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    return box;
}

QWidget* ImportancePanel::buildHeatmap(QWidget* parent) {
    m_heatmap = new HeatmapWidget(parent);
    m_heatmap->setObjectName(QStringLiteral("importanceHeatmap"));
    // The legend is the map's title: one line, where a label above it would wrap to two in a
    // narrow pane of a short dock.
    m_heatmap->setTitle(legendText());
    m_heatmap->setTooltipFunction([this](int r, int c) { return heatmapTooltip(r, c); });
    m_heatmap->setMinimumSize(160, 110);
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, &ImportancePanel::activateUnit);
    return m_heatmap;
}

QString ImportancePanel::legendText() {
    return tr("Δ loss when the head is ablated alone");
}

QWidget* ImportancePanel::buildTable(QWidget* parent) {
    m_table = corpus::newResultsTable(parent, QStringLiteral("importanceTable"), m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ImportanceTableModel::Rank, Qt::AscendingOrder);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setMinimumWidth(200);
    const auto unitOfIndex = [this](const QModelIndex& index) {
        const int row = m_sorted->mapToSource(index).row();
        return std::pair{m_model->layerOf(row), m_model->unitOf(row)};
    };
    connect(m_table, &QTableView::clicked, this, [this, unitOfIndex](const QModelIndex& index) {
        const auto [layer, unit] = unitOfIndex(index);
        activateUnit(layer, unit);
    });
    // The keyboard walks the list without taking the head view to the front at every step.
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, unitOfIndex](const QModelIndex& current) {
                const auto run = m_session->importance();
                if (current.isValid() && run && run->model) {
                    const auto [layer, unit] = unitOfIndex(current);
                    m_session->selectHead(
                        headOfUnit(run->result, run->model->spec.nHeads, layer, unit));
                }
            });
    return m_table;
}

void ImportancePanel::connectService() {
    corpus::followJob(
        m_service, this, m_progress, &ComputeService::importanceStarted,
        &ComputeService::importanceProgress, &ComputeService::importanceFinished,
        {tr("reading the sentences…"), tr("ablating, %p %")}, [this](bool busy) { setBusy(busy); },
        [this](bool ok) {
            if (ok) {
                for (const QString& notice : std::exchange(m_endNotices, {})) {
                    m_session->withdrawMessage(notice);
                }
            }
            emit computingFinished(ok);
        });
    // The service tells how a run ended in the message bar: a "cancelled" or "failed" line is
    // withdrawn once a later run succeeds (issue 30), also one that arrived while that run ran.
    connect(m_session, &AnalysisSession::errorReported, this, [this](const QString& message) {
        if (message.startsWith(tr("Head importance on "))) {
            m_endNotices << message;
        }
    });
}

void ImportancePanel::askForCorpus() {
    corpus::askForOpenFile(
        this, tr("Sentences for head importance"), QFileInfo(m_path->text()).path(),
        tr("Sentences (*.txt *.conllu *.conll);;All files (*)"),
        [this](const QString& path) {
            m_path->setText(path);
            startComputing(path);
        },
        QStringLiteral("importanceCorpusDialog"), m_path->text());
}

void ImportancePanel::computeChosenFile() {
    const QString path = m_path->text().trimmed();
    if (path.isEmpty()) {
        askForCorpus();
    } else {
        startComputing(path);
    }
}

void ImportancePanel::startComputing(const QString& path) {
    if (!m_session->model()) {
        m_session->reportError(tr("Open a model before computing head importance."));
        emit computingFinished(false);
        return;
    }
    m_path->setText(path);
    m_service->computeImportance(path, request());
}

void ImportancePanel::cancelComputing() {
    m_service->cancelImportance();
}

bool ImportancePanel::isComputing() const {
    return m_service->isComputingImportance();
}

ImportanceRequest ImportancePanel::request() const {
    ImportanceRequest r;
    r.kind = static_cast<forward::AblationKind>(m_kind->currentData().toInt());
    r.kvGroups = m_units->isEnabled() && m_units->currentIndex() == 1;
    r.maxSentences = m_sentences->value();
    r.seed = static_cast<std::uint64_t>(m_seed->value());
    r.maskFraction = m_maskPercent->value() / 100.0;
    return r;
}

void ImportancePanel::setRequest(const ImportanceRequest& r) {
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(r.kind)));
    m_units->setCurrentIndex(r.kvGroups ? 1 : 0);
    m_sentences->setValue(r.maxSentences);
    m_seed->setValue(static_cast<int>(r.seed));
    m_maskPercent->setValue(100.0 * r.maskFraction);
}

void ImportancePanel::refreshForModel() {
    const auto model = m_session->model();
    const bool grouped =
        model && model->spec.nKvHeads > 0 && model->spec.nKvHeads < model->spec.nHeads;
    m_units->setEnabled(grouped);
    m_units->setToolTip(grouped ? tr("Ablate each query head, or each key/value group (all "
                                     "query heads sharing it) as one unit")
                                : tr("This model has no grouped-query attention: every head "
                                     "has its own keys and values"));
    bool masked = true;
    if (model) {
        try {
            masked =
                analysis::importanceObjective(*model) == analysis::ImportanceObjective::MaskedLm;
        } catch (const Error&) {
            masked = false;  // no prediction head: Compute will say so
        }
    }
    m_maskPercent->setEnabled(masked);
}

void ImportancePanel::setBusy(bool busy) {
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_compute->setEnabled(!busy);
    m_browse->setEnabled(!busy);
    m_export->setEnabled(!busy && m_session->importance() != nullptr);
}

void ImportancePanel::showRun() {
    const auto run = m_session->importance();
    setBusy(isComputing());
    m_model->setRun(run);
    m_chart->setRun(run);
    refreshHeatmap();
    m_table->setVisible(run != nullptr);
    m_chart->setVisible(run != nullptr);
    m_summary->setVisible(run != nullptr);
    m_summary->setFullText(run ? importanceSummary(*run) : QString());
    if (!run) {
        return;
    }
    m_path->setText(run->corpusPath);
    refreshSelection();
    emit importanceShown(run->corpusPath);
}

QString ImportancePanel::summaryText() const {
    return m_summary->fullText();
}

void ImportancePanel::refreshHeatmap() {
    const auto run = m_session->importance();
    if (!run) {
        // The whole pane is the map's when there is no table and chart: room for what it is.
        m_heatmap->clear(
            tr("Compute head importance on a sentence file or treebank to see which heads the "
               "model needs (Michel et al. 2019): each head is ablated alone and the loss on "
               "the sentences measured; the pruning curve removes the least important first."));
        return;
    }
    const analysis::ImportanceResult& r = run->result;
    const Matrix delta = deltaLossMatrix(r);
    m_range = deltaLossRange(delta, tr("Δ loss"));
    render::HeatmapStyle style;
    style.colormap = render::Colormap::Diverging;
    m_heatmap->setMap(render::heatmapImageInRange(delta, nullptr, style, m_range), m_range,
                      layerLabels(r.nLayers),
                      r.kvGroups ? groupLabels(r.nUnits) : headLabels(r.nUnits), std::nullopt);
}

void ImportancePanel::refreshSelection() {
    const auto run = m_session->importance();
    if (!run || !run->model) {
        return;
    }
    const analysis::ImportanceResult& r = run->result;
    const HeadId head = m_session->selectedHead();
    const int ratio =
        r.kvGroups && r.nUnits > 0 ? std::max(1, run->model->spec.nHeads / r.nUnits) : 1;
    // Inside the cell, in the text colour: the diverging scale is white around 0, where a
    // white outline would vanish.
    m_heatmap->setAccentCells({{head.layer, head.head / ratio}},
                              palette().color(QPalette::WindowText));
}

void ImportancePanel::activateUnit(int layer, int unit) {
    const auto run = m_session->importance();
    if (!run || !run->model || layer >= run->result.nLayers || unit >= run->result.nUnits) {
        return;
    }
    const HeadId head = headOfUnit(run->result, run->model->spec.nHeads, layer, unit);
    m_session->selectHead(head);
    emit headActivated(head);
}

QString ImportancePanel::heatmapTooltip(int row, int col) const {
    const auto run = m_session->importance();
    if (!run || row >= run->result.nLayers || col >= run->result.nUnits) {
        return {};
    }
    const analysis::ImportanceResult& r = run->result;
    const auto i = static_cast<std::size_t>(row * r.nUnits + col);
    return tr("%1 · Δ loss %2\nloss %3 with it ablated alone (clean %4)\naccuracy %5 % "
              "(clean %6 %) · rank %7 of %8\nClick to open it")
        .arg(unitName(r, row, col))
        .arg(r.deltaLoss[i], 0, 'f', 4)
        .arg(r.ablatedLoss[i], 0, 'f', 4)
        .arg(r.cleanLoss, 0, 'f', 4)
        .arg(100.0 * r.ablatedAccuracy[i], 0, 'f', 1)
        .arg(100.0 * r.cleanAccuracy, 0, 'f', 1)
        .arg(importanceRanks(r)[i])
        .arg(r.deltaLoss.size());
}

bool ImportancePanel::exportCsv(const QString& path) {
    const auto run = m_session->importance();
    if (!run) {
        m_session->reportError(tr("Nothing to export yet: compute head importance first."));
        return false;
    }
    m_service->exportFile(
        path, [run](const std::string& file) { exporting::writeImportanceCsv(file, run->result); });
    return true;
}

bool ImportancePanel::exportResults(const QString& path) {
    const auto run = m_session->importance();
    if (!run) {
        m_session->reportError(tr("Nothing to export yet: compute head importance first."));
        return false;
    }
    const exporting::ImportanceRunInfo info{m_session->modelPath().toStdString(),
                                            run->corpusPath.toStdString()};
    m_service->exportFile(path, [run, info](const std::string& file) {
        exporting::writeImportanceH5(file, run->result, info);
    });
    return true;
}

bool ImportancePanel::exportHeatmapFigure(const QString& path) {
    const auto run = m_session->importance();
    if (!run) {
        m_session->reportError(tr("Nothing to export yet: compute head importance first."));
        return false;
    }
    const ImportanceFigure figure = importanceFigure(*run);
    render::FigurePage page;
    page.pixelSize = importanceFigureSize(figure);
    page.title = figure.title;
    try {
        render::writeFigureFile(
            path, page, [&](QPainter& p) { paintImportanceFigure(p, page.pixelSize, figure); });
    } catch (const Error& e) {
        m_session->reportError(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
    return true;
}

bool ImportancePanel::exportChart(const QString& path) {
    if (!m_session->importance()) {
        m_session->reportError(tr("Nothing to export yet: compute head importance first."));
        return false;
    }
    QString error;
    if (!saveChartView(m_chart, path, &error)) {
        m_session->reportError(tr("Export failed: %1").arg(error));
        return false;
    }
    return true;
}

}  // namespace attnscope::app
