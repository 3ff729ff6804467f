#include "analyses/dependencies/dependency_panel.h"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/dependencies/dependency_document.h"
#include "analyses/dependencies/dependency_figure.h"
#include "analyses/dependencies/dependency_job.h"
#include "analyses/dependencies/dependency_table_model.h"
#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/error.h"
#include "attnscope/export/dependency_export.h"
#include "render/figure_file.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"
#include "widgets/file_dialogs.h"

namespace attnscope::app {

namespace {

QString aggregationLabel(analysis::FromAggregation a) {
    switch (a) {
        case analysis::FromAggregation::Mean:
            return QObject::tr("mean over a word's tokens (paper)");
        case analysis::FromAggregation::First:
            return QObject::tr("first token (Clark's code)");
        case analysis::FromAggregation::Max:
            return QObject::tr("max over tokens, renormalised");
    }
    return {};
}

}  // namespace

DependencyPanel::DependencyPanel(AnalysisSession* session, ComputeService* service, QWidget* parent)
    : CorpusPanel(session, service, service->job<DependencyJob>(), QStringLiteral("dependency"),
                  {.noModel = tr("Open a model before scoring a treebank."),
                   .nothingYet = tr("Nothing to export yet: score a treebank first."),
                   .dialogTitle = tr("Open a treebank for dependency scoring"),
                   .dialogFilter = tr("CoNLL-U treebanks (*.conllu);;All files (*)")},
                  parent),
      m_model(new DependencyTableModel(this)) {
    setParts(buildOptions(), buildResults());
    followJob({tr("reading treebank…"), tr("%v / %m sentences")});
    connect(&m_session->document<DependencyDocument>(), &DependencyDocument::changed, this,
            &DependencyPanel::showScores);
    setBusy(false);
    refreshSummary();
    refreshHeatmap();
}

QWidget* DependencyPanel::buildOptions() {
    auto* box = new QWidget(this);
    addRunButton(box, tr("Open treebank…"), QStringLiteral("openTreebank"),
                 tr("Score every head against the gold trees of a CoNLL-U file"));
    m_from = new QComboBox(box);
    m_from->setObjectName(QStringLiteral("dependencyFrom"));
    m_from->addItem(tr("mean (paper)"), static_cast<int>(analysis::FromAggregation::Mean));
    m_from->addItem(tr("first (Clark's code)"), static_cast<int>(analysis::FromAggregation::First));
    m_from->addItem(tr("max"), static_cast<int>(analysis::FromAggregation::Max));
    m_from->setToolTip(tr("How the attention FROM a word split into several tokens is combined"));
    m_subtypes = new QCheckBox(tr("Merge subtypes"), box);
    m_subtypes->setObjectName(QStringLiteral("dependencyMergeSubtypes"));
    m_subtypes->setToolTip(tr("Count nsubj:pass as nsubj"));
    m_minCount = corpus::newSpinBox(box, QStringLiteral("dependencyMinCount"), {1, 1000000, 100},
                                    tr("Relations with fewer words are listed as rare"));
    addProgress(box);
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_run);
    row->addSpacing(8);
    row->addWidget(new QLabel(tr("From:"), box));
    row->addWidget(m_from);
    row->addWidget(m_subtypes);
    row->addWidget(new QLabel(tr("Min. words:"), box));
    row->addWidget(m_minCount);
    layOutProgress(row, 1);
    row->addStretch(0);
    connect(m_from, &QComboBox::currentIndexChanged, this, &DependencyPanel::rescore);
    connect(m_subtypes, &QCheckBox::toggled, this, &DependencyPanel::rescore);
    connect(m_minCount, &QSpinBox::valueChanged, this, &DependencyPanel::refreshTable);
    return box;
}

QWidget* DependencyPanel::buildResults() {
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("dependencySplitter"));
    auto* left = new QWidget(split);
    m_summary = corpus::newNoteLabel(left, QStringLiteral("dependencySummary"));
    m_table = corpus::newResultsTable(left, QStringLiteral("dependencyTable"), m_model);
    m_table->horizontalHeader()->setSectionResizeMode(DependencyTableModel::Relation,
                                                      QHeaderView::Stretch);
    auto* exportCsv = new QPushButton(tr("Table to CSV…"), left);
    exportCsv->setObjectName(QStringLiteral("exportDependencyCsv"));
    m_export = exportCsv;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_summary);
    leftLayout->addWidget(m_table, 1);
    leftLayout->addWidget(m_export, 0, Qt::AlignLeft);
    buildHeatmapSide(split);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& index) {
                if (const auto row = m_model->rowAt(index.row())) {
                    m_relation = row->relation;
                    // Show the direction of the table's best head, so its cell is outlined.
                    const QSignalBlocker block(m_direction);
                    m_direction->setCurrentIndex(
                        row->best.direction == analysis::Direction::DepToHead ? 0 : 1);
                    refreshHeatmap();
                }
            });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (const auto row = m_model->rowAt(index.row())) {
            activateHead(row->best.head);
        }
    });
    connect(exportCsv, &QPushButton::clicked, this, [this] {
        askForSaveFile(this, tr("Export the relation table"), tr("CSV files (*.csv)"),
                       [this](const QString& p) { return exportTableCsv(p); });
    });
    return split;
}

QWidget* DependencyPanel::buildHeatmapSide(QWidget* parent) {
    auto* right = new QWidget(parent);
    m_direction = new QComboBox(right);
    m_direction->setObjectName(QStringLiteral("dependencyDirection"));
    m_direction->addItem(tr("dep→head: the word a dependent attends to most"));
    m_direction->addItem(tr("head→dep: the word that attends most to the dependent"));
    addFixedRange(right);
    newHeatmap(right);
    m_exportImage = new QPushButton(tr("Heatmap to image…"), right);
    m_exportImage->setObjectName(QStringLiteral("exportDependencyHeatmap"));
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto* above = new QHBoxLayout;
    above->addWidget(m_direction, 1);
    above->addWidget(m_fixedRange);
    rightLayout->addLayout(above);
    rightLayout->addWidget(m_heatmap, 1);
    rightLayout->addWidget(m_exportImage, 0, Qt::AlignLeft);
    connect(m_direction, &QComboBox::currentIndexChanged, this, &DependencyPanel::refreshHeatmap);
    connect(m_fixedRange, &QCheckBox::toggled, this, &DependencyPanel::refreshHeatmap);
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](int row, int col) {
        activateHead({row, col});
    });
    connect(m_exportImage, &QPushButton::clicked, this, [this] {
        askForSaveFile(this, tr("Export the heatmap"),
                       tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
                       [this](const QString& p) { return exportHeatmap(p); });
    });
    return right;
}

void DependencyPanel::launch(const QString& path) {
    m_service->job<DependencyJob>().start(path, chosenOptions());
}

void DependencyPanel::rescore() {
    if (const auto scores = this->scores()) {
        startScoring(scores->treebank->path);
    }
}

void DependencyPanel::setBusy(bool busy) {
    CorpusPanel::setBusy(busy);
    m_from->setEnabled(!busy);
    m_subtypes->setEnabled(!busy);
    m_exportImage->setEnabled(!busy && hasResults());
}

void DependencyPanel::showScores() {
    setBusy(isScoring());
    const std::string keep = m_relation;
    refreshTable();
    if (const auto scores = this->scores()) {
        selectRelation(m_model->rowOf(keep) >= 0 ? keep : std::string(analysis::kAllRelations));
        emit treebankScored(scores->treebank->path);
    } else {
        m_relation.clear();  // the model changed: nothing of the old table stays
        refreshHeatmap();
    }
}

std::shared_ptr<const DependencyScores> DependencyPanel::scores() const {
    return m_session->document<DependencyDocument>().scores();
}

std::shared_ptr<const analysis::DependencyAccumulator> DependencyPanel::results() const {
    return corpus::countsOf(scores());
}

void DependencyPanel::refreshTable() {
    m_model->setResults(results(), m_minCount->value());
    for (int c = DependencyTableModel::Words; c < DependencyTableModel::ColumnCount; ++c) {
        m_table->resizeColumnToContents(c);
    }
    refreshSummary();
    const int row = m_model->rowOf(m_relation);
    if (row >= 0) {
        m_table->selectRow(row);
    }
}

void DependencyPanel::selectRelation(const std::string& relation) {
    m_relation = relation;
    const int row = m_model->rowOf(relation);
    if (row >= 0) {
        m_table->selectRow(row);
    }
    refreshHeatmap();
}

void DependencyPanel::refreshSummary() {
    const auto scores = this->scores();
    const auto acc = results();
    if (!acc) {
        m_summary->setText(
            tr("Open a CoNLL-U treebank to score every head against its gold "
               "dependency trees (Clark et al. 2019)."));
        m_summary->setToolTip({});
        return;
    }
    m_summary->setText(
        tr("<b>%1</b>: %2 sentences scored, %3 skipped. From-aggregation: %4; subtypes %5; "
           "rare below %6 words.<br/><span style='color:gray'>Self and [CLS]/[SEP] excluded, "
           "ties to the lowest index, ROOT cannot be predicted, counts aggregated over the "
           "treebank.</span>")
            .arg(QFileInfo(scores->treebank->path).fileName().toHtmlEscaped())
            .arg(acc->sentencesScored())
            .arg(acc->sentencesSkipped())
            .arg(aggregationLabel(acc->options().aggregation))
            .arg(acc->options().mergeSubtypes ? tr("merged (nsubj:pass → nsubj)") : tr("kept"))
            .arg(m_minCount->value()));
    QStringList reasons;
    for (const auto& [reason, n] : acc->skipReasons()) {
        reasons << tr("%1 × %2").arg(n).arg(QString::fromStdString(reason));
    }
    if (scores->treebank->badSentences > 0) {
        reasons << tr("%1 × malformed in the file (not read)").arg(scores->treebank->badSentences);
    }
    m_summary->setToolTip(reasons.isEmpty() ? tr("No sentence skipped")
                                            : tr("Skipped:\n") + reasons.join(QLatin1Char('\n')));
}

analysis::ScoreOptions DependencyPanel::chosenOptions() const {
    analysis::ScoreOptions o;
    o.aggregation = static_cast<analysis::FromAggregation>(m_from->currentData().toInt());
    o.mergeSubtypes = m_subtypes->isChecked();
    return o;
}

analysis::Direction DependencyPanel::chosenDirection() const {
    return m_direction->currentIndex() == 0 ? analysis::Direction::DepToHead
                                            : analysis::Direction::HeadToDep;
}

void DependencyPanel::refreshHeatmap() {
    const auto acc = results();
    if (!acc || m_relation.empty()) {
        m_heatmap->clear(tr("The accuracy of every head for the chosen relation appears here."));
        return;
    }
    const Matrix accuracy = acc->accuracyHeatmap(m_relation, chosenDirection());
    showAccuracy(accuracy, headLabels(acc->nHeads()));
    // Short: the dock is narrow on a laptop, and the L/H labels say what rows and columns are.
    m_heatmap->setTitle(tr("“%1”: accuracy per head (%2); click one to open it")
                            .arg(QString::fromStdString(m_relation),
                                 DependencyTableModel::directionText(chosenDirection())));
    // Outline the best head of this direction.
    Eigen::Index bestRow = 0, bestCol = 0;
    const Matrix finite = accuracy.unaryExpr([](float v) { return std::isnan(v) ? -1.0F : v; });
    finite.maxCoeff(&bestRow, &bestCol);
    m_heatmap->setOutlinedCells({{static_cast<int>(bestRow), static_cast<int>(bestCol)}});
}

QString DependencyPanel::heatmapTooltip(int row, int col) const {
    const auto acc = results();
    if (!acc || m_relation.empty()) {
        return {};
    }
    const analysis::Counts c = acc->counts(m_relation, {row, col}, chosenDirection());
    return tr("layer %1, head %2 (%3)\n“%4”: accuracy %5 (%6 of %7 words%8)")
        .arg(row)
        .arg(col)
        .arg(DependencyTableModel::directionText(chosenDirection()),
             QString::fromStdString(m_relation), DependencyTableModel::percent(c))
        .arg(c.correct)
        .arg(c.predicted())
        .arg(DependencyTableModel::noPredictionText(c));
}

bool DependencyPanel::exportTableCsv(const QString& path) {
    return exportInBackground(path, [this]() -> FileWrite {
        return [acc = results(), minCount = m_minCount->value()](const std::string& file) {
            exporting::writeDependencyTableCsv(file, *acc, minCount);
        };
    });
}

bool DependencyPanel::exportHeatmap(const QString& path) {
    const auto scores = this->scores();
    if (!canExport(scores && !m_relation.empty())) {
        return false;
    }
    const analysis::DependencyAccumulator& counts = scores->counts;
    DependencyFigure figure;
    figure.accuracy = counts.accuracyHeatmap(m_relation, chosenDirection());
    figure.title = tr("Dependency relation “%1”: head accuracy (%2)")
                       .arg(QString::fromStdString(m_relation),
                            DependencyTableModel::directionText(chosenDirection()));
    figure.subtitle = tr("%1 · %2 · %3 words · from: %4 · layers and heads 0-based")
                          .arg(QFileInfo(m_session->modelPath()).fileName(),
                               QFileInfo(scores->treebank->path).fileName())
                          .arg(counts.count(m_relation))
                          .arg(aggregationLabel(counts.options().aggregation));
    if (const auto best = counts.bestHead(m_relation);
        best && best->direction == chosenDirection()) {
        figure.best = best->head;
    }
    render::FigurePage page;
    page.pixelSize = dependencyFigureSize(figure);
    page.dpi = 150;
    page.title = figure.title;
    return writeFigure(path, page,
                       [&](QPainter& p) { paintDependencyFigure(p, page.pixelSize, figure); });
}

}  // namespace attnscope::app
