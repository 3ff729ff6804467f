#include "analyses/dependencies/dependency_panel.h"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/dependencies/dependency_figure.h"
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
    : QWidget(parent),
      m_session(session),
      m_service(service),
      m_model(new DependencyTableModel(this)) {
    setObjectName(QStringLiteral("dependencyPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(buildOptions());
    layout->addWidget(buildResults(), 1);
    corpus::followJob(
        m_service, this, m_progress, &ComputeService::scoringStarted,
        &ComputeService::scoringProgress, &ComputeService::scoringFinished,
        {tr("reading treebank…"), tr("%v / %m sentences")}, [this](bool busy) { setBusy(busy); },
        [this](bool ok) { emit scoringFinished(ok); });
    connect(m_session, &AnalysisSession::dependencyScoresChanged, this,
            &DependencyPanel::showScores);
    setBusy(false);
    refreshSummary();
    refreshHeatmap();
}

QWidget* DependencyPanel::buildOptions() {
    auto* box = new QWidget(this);
    m_open = new QPushButton(tr("Open treebank…"), box);
    m_open->setObjectName(QStringLiteral("openTreebank"));
    m_open->setToolTip(tr("Score every head against the gold trees of a CoNLL-U file"));
    m_from = new QComboBox(box);
    m_from->setObjectName(QStringLiteral("dependencyFrom"));
    m_from->addItem(tr("mean (paper)"), static_cast<int>(analysis::FromAggregation::Mean));
    m_from->addItem(tr("first (Clark's code)"), static_cast<int>(analysis::FromAggregation::First));
    m_from->addItem(tr("max"), static_cast<int>(analysis::FromAggregation::Max));
    m_from->setToolTip(tr("How the attention FROM a word split into several tokens is combined"));
    m_subtypes = new QCheckBox(tr("Merge subtypes"), box);
    m_subtypes->setObjectName(QStringLiteral("dependencyMergeSubtypes"));
    m_subtypes->setToolTip(tr("Count nsubj:pass as nsubj"));
    m_minCount = new QSpinBox(box);
    m_minCount->setObjectName(QStringLiteral("dependencyMinCount"));
    m_minCount->setRange(1, 1000000);
    m_minCount->setValue(100);
    m_minCount->setToolTip(tr("Relations with fewer words are listed as rare"));
    m_progress = new QProgressBar(box);
    m_progress->setObjectName(QStringLiteral("dependencyProgress"));
    m_cancel = new QPushButton(tr("Cancel"), box);
    m_cancel->setObjectName(QStringLiteral("dependencyCancel"));
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_open);
    row->addSpacing(8);
    row->addWidget(new QLabel(tr("From:"), box));
    row->addWidget(m_from);
    row->addWidget(m_subtypes);
    row->addWidget(new QLabel(tr("Min. words:"), box));
    row->addWidget(m_minCount);
    row->addWidget(m_progress, 1);
    row->addWidget(m_cancel);
    row->addStretch(0);
    connect(m_open, &QPushButton::clicked, this, &DependencyPanel::askForTreebank);
    connect(m_cancel, &QPushButton::clicked, this, &DependencyPanel::cancelScoring);
    connect(m_from, &QComboBox::currentIndexChanged, this, &DependencyPanel::rescore);
    connect(m_subtypes, &QCheckBox::toggled, this, &DependencyPanel::rescore);
    connect(m_minCount, &QSpinBox::valueChanged, this, &DependencyPanel::refreshTable);
    return box;
}

QWidget* DependencyPanel::buildResults() {
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("dependencySplitter"));
    auto* left = new QWidget(split);
    m_summary = new QLabel(left);
    m_summary->setObjectName(QStringLiteral("dependencySummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = corpus::newResultsTable(left, QStringLiteral("dependencyTable"), m_model);
    m_table->horizontalHeader()->setSectionResizeMode(DependencyTableModel::Relation,
                                                      QHeaderView::Stretch);
    m_exportCsv = new QPushButton(tr("Table to CSV…"), left);
    m_exportCsv->setObjectName(QStringLiteral("exportDependencyCsv"));
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_summary);
    leftLayout->addWidget(m_table, 1);
    leftLayout->addWidget(m_exportCsv, 0, Qt::AlignLeft);

    auto* right = new QWidget(split);
    m_direction = new QComboBox(right);
    m_direction->setObjectName(QStringLiteral("dependencyDirection"));
    m_direction->addItem(tr("dep→head: the word a dependent attends to most"));
    m_direction->addItem(tr("head→dep: the word that attends most to the dependent"));
    m_fixedRange = new QCheckBox(tr("Fixed 0–1"), right);
    m_fixedRange->setObjectName(QStringLiteral("dependencyFixedRange"));
    m_fixedRange->setToolTip(
        tr("Colour 0 to 1 accuracy instead of the lowest to the highest head shown"));
    m_heatmap = new HeatmapWidget(right);
    m_heatmap->setObjectName(QStringLiteral("dependencyHeatmap"));
    m_heatmap->setTooltipFunction([this](int r, int c) { return heatmapTooltip(r, c); });
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
            m_session->selectHead(row->best.head);
            emit headActivated(row->best.head);
        }
    });
    connect(m_direction, &QComboBox::currentIndexChanged, this, &DependencyPanel::refreshHeatmap);
    connect(m_fixedRange, &QCheckBox::toggled, this, &DependencyPanel::refreshHeatmap);
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](int row, int col) {
        m_session->selectHead({row, col});
        emit headActivated({row, col});
    });
    connect(m_exportCsv, &QPushButton::clicked, this, [this] {
        askForSaveFile(this, tr("Export the relation table"), tr("CSV files (*.csv)"),
                       [this](const QString& p) { return exportTableCsv(p); });
    });
    connect(m_exportImage, &QPushButton::clicked, this, [this] {
        askForSaveFile(this, tr("Export the heatmap"),
                       tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
                       [this](const QString& p) { return exportHeatmap(p); });
    });
    return split;
}

void DependencyPanel::askForTreebank() {
    corpus::askForOpenFile(this, tr("Open a treebank for dependency scoring"), QString(),
                           tr("CoNLL-U treebanks (*.conllu);;All files (*)"),
                           [this](const QString& path) { startScoring(path); });
}

void DependencyPanel::startScoring(const QString& path) {
    if (!m_session->model()) {
        m_session->reportError(tr("Open a model before scoring a treebank."));
        emit scoringFinished(false);
        return;
    }
    m_service->scoreTreebank(path, chosenOptions());
}

void DependencyPanel::cancelScoring() {
    m_service->cancelScoring();
}

bool DependencyPanel::isScoring() const {
    return m_service->isScoring();
}

void DependencyPanel::setFixedRange(bool fixed) {
    m_fixedRange->setChecked(fixed);
}

void DependencyPanel::rescore() {
    if (const auto scores = m_session->dependencyScores()) {
        startScoring(scores->treebank->path);
    }
}

void DependencyPanel::setBusy(bool busy) {
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_open->setEnabled(!busy);
    m_from->setEnabled(!busy);
    m_subtypes->setEnabled(!busy);
    const bool scored = m_session->dependencyScores() != nullptr;
    m_exportCsv->setEnabled(!busy && scored);
    m_exportImage->setEnabled(!busy && scored);
}

void DependencyPanel::showScores() {
    setBusy(isScoring());
    const std::string keep = m_relation;
    refreshTable();
    if (const auto scores = m_session->dependencyScores()) {
        selectRelation(m_model->rowOf(keep) >= 0 ? keep : std::string(analysis::kAllRelations));
        emit treebankScored(scores->treebank->path);
    } else {
        m_relation.clear();  // the model changed: nothing of the old table stays
        refreshHeatmap();
    }
}

std::shared_ptr<const analysis::DependencyAccumulator> DependencyPanel::results() const {
    const auto scores = m_session->dependencyScores();
    // Shares ownership of the scores: the counts live as long as the caller holds them.
    return scores ? std::shared_ptr<const analysis::DependencyAccumulator>(scores, &scores->counts)
                  : nullptr;
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
    const auto scores = m_session->dependencyScores();
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
    m_range = accuracyRange(accuracy, m_fixedRange->isChecked());
    const render::ColorRange& range = m_range;
    QStringList layers, heads;
    for (int l = 0; l < acc->nLayers(); ++l) {
        layers << QStringLiteral("L%1").arg(l);
    }
    for (int h = 0; h < acc->nHeads(); ++h) {
        heads << QStringLiteral("H%1").arg(h);
    }
    m_heatmap->setMap(render::heatmapImageInRange(accuracy, nullptr, {}, range), range, layers,
                      heads, std::nullopt);
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
    const auto acc = results();
    if (!acc) {
        m_session->reportError(tr("Nothing to export yet: score a treebank first."));
        return false;
    }
    const int minCount = m_minCount->value();
    m_service->exportFile(path, [acc, minCount](const std::string& file) {
        exporting::writeDependencyTableCsv(file, *acc, minCount);
    });
    return true;
}

bool DependencyPanel::exportHeatmap(const QString& path) {
    const auto scores = m_session->dependencyScores();
    if (!scores || m_relation.empty()) {
        m_session->reportError(tr("Nothing to export yet: score a treebank first."));
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
    try {
        render::writeFigureFile(
            path, page, [&](QPainter& p) { paintDependencyFigure(p, page.pixelSize, figure); });
        return true;
    } catch (const Error& e) {
        m_session->reportError(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
}

}  // namespace attnscope::app
