#include "analyses/importance/importance_panel.h"

#include <utility>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/importance/importance_document.h"
#include "analyses/importance/importance_figure.h"
#include "analyses/importance/importance_job.h"
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
    : CorpusPanel(session, service, service->job<ImportanceJob>(), QStringLiteral("importance"),
                  {.noModel = tr("Open a model before computing head importance."),
                   .nothingYet = tr("Nothing to export yet: compute head importance first."),
                   .dialogTitle = tr("Sentences for head importance"),
                   .dialogFilter = tr("Sentences (*.txt *.conllu *.conll);;All files (*)")},
                  parent),
      m_model(new ImportanceTableModel(this)),
      m_sorted(new QSortFilterProxyModel(this)) {
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(ImportanceTableModel::SortRole);
    preselectInDialog(QStringLiteral("importanceCorpusDialog"));
    setParts(buildOptions(), buildResults());
    followJob({tr("reading the sentences…"), tr("ablating, %p %")});
    // The service tells how a run ended in the message bar: a "cancelled" or "failed" line is
    // withdrawn once a later run succeeds (issue 30), also one that arrived while that run ran.
    const auto keepNotice = [this](const QString& message) {
        if (message.startsWith(tr("Head importance on "))) {
            m_endNotices << message;
        }
    };
    connect(m_session, &AnalysisSession::errorReported, this, keepNotice);  // failed
    connect(m_session, &AnalysisSession::noteReported, this, keepNotice);   // cancelled
    connect(&m_session->document<ImportanceDocument>(), &ImportanceDocument::changed, this,
            &ImportancePanel::showRun);
    connect(m_session, &AnalysisSession::modelChanged, this, &ImportancePanel::refreshForModel);
    connect(m_session, &AnalysisSession::selectedHeadChanged, this,
            &ImportancePanel::refreshSelection);
    offerLoadedTreebank();
    refreshForModel();
    showRun();
}

QWidget* ImportancePanel::buildOptions() {
    auto* box = new QWidget(this);
    addPathField(box, tr("Sentences: a .txt file (one per line) or a .conllu treebank"));
    addRunButton(box, tr("Compute"), childName("Compute"),
                 tr("Ablate every head alone on these sentences and measure the loss"));
    addProgress(box);
    auto* first = new QHBoxLayout;
    layOutPath(first, tr("Corpus:"), 1);
    first->addWidget(m_run);
    layOutProgress(first, 1);
    auto* rows = new QVBoxLayout(box);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(2);
    rows->addLayout(first);
    rows->addLayout(buildRunOptions(box));
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
    m_sentences = corpus::newSpinBox(box, QStringLiteral("importanceSentences"),
                                     {0, kMaxSentences, ImportanceRequest{}.maxSentences},
                                     tr("The first sentences of the file (0: all of them)"));
    m_sentences->setSpecialValueText(tr("all"));
    m_seed = corpus::newSpinBox(
        box, QStringLiteral("importanceSeed"), {0, 1 << 30, 0},
        tr("Seeds which tokens are masked; the masking is the same for every head"));
    m_maskPercent = new QDoubleSpinBox(box);
    m_maskPercent->setObjectName(QStringLiteral("importanceMask"));
    m_maskPercent->setRange(1, 100);
    m_maskPercent->setDecimals(0);
    m_maskPercent->setSuffix(tr(" %"));
    m_maskPercent->setValue(kDefaultMaskPercent);
    m_maskPercent->setToolTip(tr("Masked LMs: the share of each sentence's tokens masked"));
    m_export = buildExportButton(box);
    return corpus::newOptionsRow({{tr("Ablation:"), m_kind},
                                  {tr("Units:"), m_units},
                                  {tr("Sentences:"), m_sentences},
                                  {tr("Seed:"), m_seed},
                                  {tr("Masked:"), m_maskPercent}},
                                 m_export);
}

QToolButton* ImportancePanel::buildExportButton(QWidget* parent) {
    auto choices = corpus::tableAndResultsChoices(
        tr("Export the head importance table"), writer(this, &ImportancePanel::exportCsv),
        tr("Export the head importance results"), writer(this, &ImportancePanel::exportResults));
    choices.push_back({tr("Heatmap figure (PNG, SVG, PDF)…"), tr("Export the Δ loss heatmap"),
                       tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
                       writer(this, &ImportancePanel::exportHeatmapFigure)});
    choices.push_back({tr("Pruning chart (PNG, SVG)…"), tr("Export the pruning curve"),
                       tr("PNG image (*.png);;SVG image (*.svg)"),
                       writer(this, &ImportancePanel::exportChart)});
    return corpus::newExportButton(parent, QStringLiteral("importanceExport"), choices);
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
    newHeatmap(parent);
    // The legend is the map's title: one line, where a label above it would wrap to two in a
    // narrow pane of a short dock.
    m_heatmap->setTitle(legendText());
    m_heatmap->setMinimumSize(160, 110);
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, &ImportancePanel::activateUnit);
    return m_heatmap;
}

QString ImportancePanel::legendText() {
    return tr("Δ loss when the head is ablated alone");
}

QWidget* ImportancePanel::buildTable(QWidget* parent) {
    addHeadTable(parent, m_sorted, ImportanceTableModel::Rank, 200);
    m_table->horizontalHeader()->setStretchLastSection(true);
    return m_table;
}

std::optional<HeadId> ImportancePanel::headOfRow(int row) const {
    const auto run = this->run();
    if (!run || !run->model) {
        return std::nullopt;
    }
    return headOfUnit(run->result, run->model->spec.nHeads, m_model->layerOf(row),
                      m_model->unitOf(row));
}

void ImportancePanel::runEnded(bool ok) {
    if (ok) {
        for (const QString& notice : std::exchange(m_endNotices, {})) {
            m_session->withdrawMessage(notice);
        }
    }
    emit computingFinished(ok);
}

void ImportancePanel::launch(const QString& path) {
    m_service->job<ImportanceJob>().start(path, request());
}

std::shared_ptr<const ImportanceRun> ImportancePanel::run() const {
    return m_session->document<ImportanceDocument>().run();
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

void ImportancePanel::showRun() {
    const auto run = this->run();
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
    const auto run = this->run();
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
    render::HeatmapStyle style;
    style.colormap = render::Colormap::Diverging;
    showHeatmap(delta, deltaLossRange(delta, tr("Δ loss")),
                r.kvGroups ? groupLabels(r.nUnits) : headLabels(r.nUnits), style);
}

void ImportancePanel::refreshSelection() {
    const auto run = this->run();
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
    const auto run = this->run();
    if (!run || !run->model || layer >= run->result.nLayers || unit >= run->result.nUnits) {
        return;
    }
    activateHead(headOfUnit(run->result, run->model->spec.nHeads, layer, unit));
}

QString ImportancePanel::heatmapTooltip(int row, int col) const {
    const auto run = this->run();
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
    return exportInBackground(path, [this]() -> FileWrite {
        return [run = this->run()](const std::string& file) {
            exporting::writeImportanceCsv(file, run->result);
        };
    });
}

bool ImportancePanel::exportResults(const QString& path) {
    return exportInBackground(path, [this]() -> FileWrite {
        const auto run = this->run();
        const exporting::ImportanceRunInfo info{m_session->modelPath().toStdString(),
                                                run->corpusPath.toStdString()};
        return [run, info](const std::string& file) {
            exporting::writeImportanceH5(file, run->result, info);
        };
    });
}

bool ImportancePanel::exportHeatmapFigure(const QString& path) {
    if (!canExport()) {
        return false;
    }
    const ImportanceFigure figure = importanceFigure(*run());
    render::FigurePage page;
    page.pixelSize = importanceFigureSize(figure);
    page.title = figure.title;
    return writeFigure(path, page,
                       [&](QPainter& p) { paintImportanceFigure(p, page.pixelSize, figure); });
}

bool ImportancePanel::exportChart(const QString& path) {
    QString error;
    return canExport() && exported(saveChartView(m_chart, path, &error), error);
}

}  // namespace attnscope::app
