#include "analyses/survey/survey_panel.h"

#include <algorithm>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/corpus/corpus_widgets.h"
#include "analyses/survey/mds_scatter.h"
#include "analyses/survey/score_histograms.h"
#include "analyses/survey/survey_document.h"
#include "analyses/survey/survey_job.h"
#include "analyses/survey/survey_table_model.h"
#include "attnscope/export/survey_export.h"
#include "service/compute_service.h"
#include "widgets/chart_export.h"
#include "widgets/file_dialogs.h"

namespace attnscope::app {

namespace {

constexpr int kMaxSentences = 1000000;
constexpr int kHistogramBins = 10;

}  // namespace

SurveyPanel::SurveyPanel(AnalysisSession* session, ComputeService* service, QWidget* parent)
    : CorpusPanel(session, service, service->job<SurveyJob>(), QStringLiteral("survey"),
                  {.noModel = tr("Open a model before surveying its heads."),
                   .nothingYet = tr("Nothing to export yet: survey the heads first."),
                   .dialogTitle = tr("Sentences to survey the heads on"),
                   .dialogFilter = tr("Sentences (*.txt *.conllu);;All files (*)")},
                  parent),
      m_model(new SurveyTableModel(this)),
      m_sorted(new SurveySortModel(this)) {
    m_sorted->setSourceModel(m_model);
    setParts(buildOptions(), buildResults());
    followJob({tr("reading the sentences…"), tr("surveying, %p %")});
    connect(&m_session->document<SurveyDocument>(), &SurveyDocument::changed, this,
            &SurveyPanel::showRun);
    connect(m_session, &AnalysisSession::modelChanged, this, &SurveyPanel::refreshForModel);
    connect(m_session, &AnalysisSession::selectedHeadChanged, this, &SurveyPanel::refreshSelection);
    connect(&m_session->overlays(), &HeadOverlays::labelFilterChanged, this, [this] {
        refreshFilterBox();
        applyLabelFilter();
    });
    connect(m_session, &AnalysisSession::treebankChanged, this,
            [this] { m_treebank->setEnabled(m_session->treebank() != nullptr && !isSurveying()); });
    offerLoadedTreebank();
    refreshForModel();
    showRun();
}

QWidget* SurveyPanel::buildOptions() {
    auto* box = new QWidget(this);
    addPathField(box, tr("Sentences: a .txt file (one per line) or a .conllu treebank"));
    addRunButton(box, tr("Survey"), childName("Compute"),
                 tr("Score what every head does on these sentences and label the heads"));
    m_treebank = new QPushButton(tr("Loaded treebank"), box);
    m_treebank->setObjectName(QStringLiteral("surveyTreebank"));
    m_treebank->setToolTip(
        tr("Survey the treebank open in the Sentences dock (not read again); "
           "its trees give each head's best dependency relation"));
    m_treebank->setEnabled(false);
    addProgress(box);
    m_summary = new corpus::SummaryLine(box);  // one line, elided: it must not grow the dock
    m_summary->setObjectName(QStringLiteral("surveySummary"));
    m_summary->setPlaceholder(
        tr("Survey a sentence file or treebank to score what every head does and label it."));
    auto* first = new QHBoxLayout;
    layOutPath(first, tr("Corpus:"), 1);
    first->addWidget(m_treebank);
    first->addWidget(m_run);
    layOutProgress(first, 2);
    first->addWidget(m_summary, 2);  // hidden while the progress bar shows
    auto* rows = new QVBoxLayout(box);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(2);
    rows->addLayout(first);
    rows->addLayout(buildRunOptions(box));
    connect(m_treebank, &QPushButton::clicked, this, &SurveyPanel::surveyLoadedTreebank);
    return box;
}

QHBoxLayout* SurveyPanel::buildRunOptions(QWidget* box) {
    const SurveyRequest defaults;
    m_sentences = corpus::newSpinBox(box, QStringLiteral("surveySentences"),
                                     {0, kMaxSentences, defaults.maxSentences},
                                     tr("The first sentences of the file (0: all of them)"));
    m_sentences->setSpecialValueText(tr("all"));
    m_sinkEps = new QDoubleSpinBox(box);
    m_sinkEps->setObjectName(QStringLiteral("surveySinkEps"));
    m_sinkEps->setRange(0.01, 0.99);
    m_sinkEps->setSingleStep(0.05);
    m_sinkEps->setDecimals(2);
    m_sinkEps->setValue(defaults.sinkEps);
    m_sinkEps->setToolTip(
        tr("S8: a sentence is a sink for a head when the first token's mean "
           "attention exceeds ε (Gu et al. 2025 use 0.3)"));
    m_probe = {
        corpus::newSpinBox(box, QStringLiteral("surveyProbeRepeats"),
                           {0, 100, defaults.probeRepeats},
                           tr("S7: random repeated sequences for the induction probe (0: none)")),
        corpus::newSpinBox(box, QStringLiteral("surveyProbeLength"), {2, 512, defaults.probeLength},
                           tr("S7: tokens in each half of a probe sequence")),
        corpus::newSpinBox(box, QStringLiteral("surveyProbeSeed"),
                           {0, 1 << 30, static_cast<int>(defaults.probeSeed)},
                           tr("S7: seeds the probe's random tokens"))};
    m_rareTop =
        corpus::newSpinBox(box, QStringLiteral("surveyRareTop"), {1, 1000000, defaults.rareTop},
                           tr("S10: ids among the corpus's K most frequent are never "
                              "\"rare\" (Voita et al. use 500)"));
    m_export = buildExportButton(box);
    return corpus::newOptionsRow({{tr("Sentences:"), m_sentences},
                                  {tr("Sink ε:"), m_sinkEps},
                                  {tr("Probe:"), m_probe[0]},
                                  {tr("× length"), m_probe[1]},
                                  {tr("seed"), m_probe[2]},
                                  {tr("Rare top:"), m_rareTop}},
                                 m_export);
}

QToolButton* SurveyPanel::buildExportButton(QWidget* parent) {
    auto choices = corpus::tableAndResultsChoices(
        tr("Export the head survey table"), writer(this, &SurveyPanel::exportCsv),
        tr("Export the head survey"), writer(this, &SurveyPanel::exportResults));
    const QString images = tr("PNG image (*.png);;SVG image (*.svg)");
    choices.push_back({tr("Head map figure (PNG, SVG)…"), tr("Export the head map"), images,
                       writer(this, &SurveyPanel::exportMapFigure)});
    choices.push_back({tr("Score histograms figure (PNG, SVG)…"), tr("Export the score histograms"),
                       images, writer(this, &SurveyPanel::exportHistogramsFigure)});
    return corpus::newExportButton(parent, QStringLiteral("surveyExport"), choices);
}

QWidget* SurveyPanel::buildResults() {
    // No row of its own for the filter, the colouring or the summary: the dock is about 230
    // pixels high in a 1024 × 700 window, and the table and map need what there is.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("surveySplitter"));
    auto* left = new QWidget(split);
    m_filter = new QComboBox(left);
    m_filter->setObjectName(QStringLiteral("surveyLabelFilter"));
    m_filter->setToolTip(
        tr("Show only the heads with this label (or label family) here, and "
           "highlight them on the map and the head grid"));
    m_filter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(new QLabel(tr("Show:"), left));
    filterRow->addWidget(m_filter);
    filterRow->addStretch(1);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->setSpacing(2);
    leftLayout->addLayout(filterRow);
    leftLayout->addWidget(buildTable(left), 1);
    split->addWidget(left);
    split->addWidget(buildCharts(split));
    split->setSizes({520, 480});
    split->setChildrenCollapsible(false);
    connect(m_filter, &QComboBox::activated, this, [this](int index) {
        m_session->overlays().setLabelFilter(m_filter->itemData(index).toString());
    });
    return split;
}

QWidget* SurveyPanel::buildCharts(QWidget* parent) {
    // The map and the histograms each need the whole height of a short dock: tabs, not panes.
    auto* charts = new QTabWidget(parent);
    charts->setObjectName(QStringLiteral("surveyCharts"));
    charts->setDocumentMode(true);
    m_scatter = new MdsScatter(charts);
    m_scatter->setObjectName(QStringLiteral("surveyScatter"));
    m_scatter->setMinimumSize(200, 120);  // below its own minimum, for the short dock
    charts->addTab(m_scatter, tr("Head map (MDS)"));
    charts->setTabToolTip(charts->count() - 1,
                          tr("Every head placed by classical MDS of the head-to-head "
                             "Jensen–Shannon distances: close points attend alike"));
    // The charts keep a readable size and scroll in a short dock.
    auto* histogramScroll = new QScrollArea(charts);
    histogramScroll->setWidgetResizable(true);
    histogramScroll->setFrameShape(QFrame::NoFrame);
    m_histograms = new ScoreHistograms(histogramScroll);
    m_histograms->setObjectName(QStringLiteral("surveyHistograms"));
    histogramScroll->setWidget(m_histograms);
    charts->addTab(histogramScroll, tr("Score distributions"));
    auto* corner = new QWidget(charts);
    auto* colouring = new QComboBox(corner);
    colouring->setObjectName(QStringLiteral("surveyColouring"));
    colouring->addItem(tr("layer"), static_cast<int>(MdsColouring::Layer));
    colouring->addItem(tr("label"), static_cast<int>(MdsColouring::Label));
    auto* cornerLayout = new QHBoxLayout(corner);
    cornerLayout->setContentsMargins(0, 0, 0, 0);
    cornerLayout->addWidget(new QLabel(tr("Colour by:"), corner));
    cornerLayout->addWidget(colouring);
    charts->setCornerWidget(corner, Qt::TopRightCorner);
    connect(charts, &QTabWidget::currentChanged, corner, [this, charts, corner](int tab) {
        corner->setVisible(charts->widget(tab) == m_scatter);
    });
    connect(colouring, &QComboBox::currentIndexChanged, this, [this, colouring] {
        m_scatter->setColouring(static_cast<MdsColouring>(colouring->currentData().toInt()));
    });
    connect(m_scatter, &MdsScatter::headClicked, this, &SurveyPanel::activateSurveyed);
    return charts;
}

QTableView* SurveyPanel::buildTable(QWidget* parent) {
    addHeadTable(parent, m_sorted, SurveyTableModel::Layer, 240);
    return m_table;
}

std::optional<HeadId> SurveyPanel::headOfRow(int row) const {
    return run() ? std::optional(m_model->headOf(row)) : std::nullopt;
}

void SurveyPanel::surveyLoadedTreebank() {
    if (!m_session->treebank()) {
        m_session->reportError(
            tr("No treebank is loaded: open one with File ▸ Open treebank…, "
               "or survey a file."));
        emit surveyFinished(false);
        return;
    }
    startSurvey(m_session->treebank()->path);
}

void SurveyPanel::launch(const QString& path) {
    m_service->job<SurveyJob>().start(path, request());
}

std::shared_ptr<const SurveyRun> SurveyPanel::run() const {
    return m_session->document<SurveyDocument>().run();
}

SurveyRequest SurveyPanel::request() const {
    SurveyRequest r;
    r.maxSentences = m_sentences->value();
    r.sinkEps = m_sinkEps->value();
    r.probeRepeats = m_probe[0]->isEnabled() ? m_probe[0]->value() : 0;
    r.probeLength = m_probe[1]->value();
    r.probeSeed = static_cast<std::uint64_t>(m_probe[2]->value());
    r.rareTop = m_rareTop->value();
    r.rules = m_rules;
    return r;
}

void SurveyPanel::setRequest(const SurveyRequest& r) {
    m_sentences->setValue(r.maxSentences);
    m_sinkEps->setValue(r.sinkEps);
    m_probe[0]->setValue(r.probeRepeats);
    m_probe[1]->setValue(r.probeLength);
    m_probe[2]->setValue(static_cast<int>(r.probeSeed));
    m_rareTop->setValue(r.rareTop);
    m_rules = r.rules;
}

void SurveyPanel::refreshForModel() {
    const auto model = m_session->model();
    // The probe is a causal model's repeated sequence (S7); a bidirectional head sees the
    // repeat's second half from the first, so the core skips it there.
    const bool causal = model && model->spec.defaultMask == model::DefaultMask::Causal;
    for (QSpinBox* probe : m_probe) {
        probe->setEnabled(causal);
    }
}

void SurveyPanel::setBusy(bool busy) {
    CorpusPanel::setBusy(busy);
    m_summary->setVisible(!busy);
    m_treebank->setEnabled(!busy && m_session->treebank() != nullptr);
}

void SurveyPanel::showRun() {
    const auto run = this->run();
    setBusy(isSurveying());
    m_model->setRun(run);
    m_summary->setFullText(run ? surveySummary(*run) : QString());
    refreshFilterBox();
    applyLabelFilter();
    refreshMap();
    refreshHistograms();
    m_table->resizeColumnsToContents();
    if (!run) {
        return;
    }
    m_path->setText(run->corpusPath);
    refreshSelection();
    emit surveyShown(run->corpusPath);
}

QString SurveyPanel::summaryText() const {
    return m_summary->fullText();
}

void SurveyPanel::refreshFilterBox() {
    const auto run = this->run();
    const QSignalBlocker block(m_filter);
    m_filter->clear();
    m_filter->addItem(tr("All heads"), QString());
    for (const LabelFilterEntry& entry : labelFilterEntries(run.get())) {
        m_filter->addItem(entry.text, entry.tag);
    }
    const QString current = m_session->overlays().labelFilter();
    int index = m_filter->findData(current);
    if (index < 0) {
        // Kept from an earlier survey or set on the grid: say that no head here has it.
        m_filter->addItem(QStringLiteral("%1 (0)").arg(current), current);
        index = m_filter->count() - 1;
    }
    m_filter->setCurrentIndex(index);
    m_filter->setEnabled(run != nullptr);
}

void SurveyPanel::applyLabelFilter() {
    const auto run = this->run();
    const QString tag = m_session->overlays().labelFilter();
    if (!run || tag.isEmpty()) {
        m_sorted->setKeptRows(std::nullopt);
        m_scatter->setHighlighted(std::nullopt);
        return;
    }
    const std::vector<HeadId> heads =
        analysis::headsWithLabel(run->labels, tag.toStdString(), run->nHeads());
    std::vector<bool> kept(static_cast<std::size_t>(run->nLayers() * run->nHeads()), false);
    for (const HeadId& h : heads) {
        kept[static_cast<std::size_t>(h.layer * run->nHeads() + h.head)] = true;
    }
    m_sorted->setKeptRows(std::move(kept));
    m_scatter->setHighlighted(heads);
}

void SurveyPanel::refreshMap() {
    const auto run = this->run();
    std::vector<MdsPoint> points;
    QString message = tr("Survey a corpus to map the heads: heads close together attend alike.");
    if (run) {
        const analysis::HeadSurvey& s = run->survey;
        const int n = s.nLayers * s.nHeads;
        if (s.mds.size() == static_cast<std::size_t>(n) * 2) {
            for (int k = 0; k < n; ++k) {
                const HeadId head{k / s.nHeads, k % s.nHeads};
                const auto& labels = run->labelsOf(head);
                const QString tips = labelTooltip(labels);
                points.push_back(
                    {head, s.mds[static_cast<std::size_t>(2 * k)],
                     s.mds[static_cast<std::size_t>(2 * k + 1)],
                     labels.empty() ? QString() : QString::fromStdString(labels[0].tag),
                     tips.isEmpty() ? tr("no label") : tips});
            }
        } else {
            message = tr("No map: %1").arg(QString::fromStdString(s.mdsError));
        }
    }
    m_scatter->setPoints(std::move(points), run ? run->nLayers() : 0, message);
    m_scatter->setSelected(run ? m_session->selectedHead() : HeadId{-1, -1});
}

void SurveyPanel::refreshHistograms() {
    const auto run = this->run();
    std::vector<ScoreColumn> columns;
    for (const auto& [name, title] : run ? headlineScores(*run) : std::vector<HeadlineScore>{}) {
        columns.push_back({QString::fromStdString(name), title, run->survey.score(name)});
    }
    m_histograms->setScores(std::move(columns), kHistogramBins);
}

void SurveyPanel::refreshSelection() {
    const auto run = this->run();
    if (!run) {
        return;
    }
    const HeadId head = m_session->selectedHead();
    m_scatter->setSelected(head);
    const bool valid = head.layer >= 0 && head.layer < run->nLayers() && head.head >= 0 &&
                       head.head < run->nHeads();
    const int index = valid ? head.layer * run->nHeads() + head.head : -1;
    m_histograms->setSelectedHead(index);
    const QModelIndex row =
        valid ? m_sorted->mapFromSource(m_model->index(index, 0)) : QModelIndex();
    if (row.isValid() && m_table->currentIndex().row() != row.row()) {
        showCurrentRow(row);
    }
}

void SurveyPanel::activateSurveyed(HeadId head) {
    const auto run = this->run();
    if (run && head.layer >= 0 && head.layer < run->nLayers() && head.head >= 0 &&
        head.head < run->nHeads()) {
        activateHead(head);
    }
}

bool SurveyPanel::exportCsv(const QString& path) {
    return exportInBackground(path, [this]() -> FileWrite {
        return [run = this->run()](const std::string& file) {
            exporting::writeSurveyCsv(file, run->survey, {run->labels, run->bestRelations});
        };
    });
}

bool SurveyPanel::exportResults(const QString& path) {
    return exportInBackground(path, [this]() -> FileWrite {
        const auto run = this->run();
        const exporting::SurveyRunInfo info{m_session->modelPath().toStdString(),
                                            run->corpusPath.toStdString(), run->tooLong};
        return [run, info](const std::string& file) {
            exporting::writeSurveyH5(file, run->survey, run->options, info,
                                     {run->labels, run->bestRelations});
        };
    });
}

bool SurveyPanel::exportMapFigure(const QString& path) {
    QString error;
    return canExport() && exported(saveChartView(m_scatter, path, &error), error);
}

bool SurveyPanel::exportHistogramsFigure(const QString& path) {
    QString error;
    return canExport() && exported(m_histograms->saveFigure(path, &error), error);
}

}  // namespace attnscope::app
