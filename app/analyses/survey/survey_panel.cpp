#include "analyses/survey/survey_panel.h"

#include <algorithm>

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
#include <QProgressBar>
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
    : QWidget(parent),
      m_session(session),
      m_service(service),
      m_model(new SurveyTableModel(this)),
      m_sorted(new SurveySortModel(this)) {
    setObjectName(QStringLiteral("surveyPanel"));
    m_sorted->setSourceModel(m_model);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(buildOptions());
    layout->addWidget(buildResults(), 1);
    connectService();
    connect(m_session, &AnalysisSession::surveyChanged, this, &SurveyPanel::showRun);
    connect(m_session, &AnalysisSession::modelChanged, this, &SurveyPanel::refreshForModel);
    connect(m_session, &AnalysisSession::selectedHeadChanged, this, &SurveyPanel::refreshSelection);
    connect(m_session, &AnalysisSession::labelFilterChanged, this, [this] {
        refreshFilterBox();
        applyLabelFilter();
    });
    connect(m_session, &AnalysisSession::treebankChanged, this, [this] {
        const bool loaded = m_session->treebank() != nullptr;
        m_treebank->setEnabled(loaded && !isSurveying());
        if (m_path->text().isEmpty() && loaded) {
            m_path->setText(m_session->treebank()->path);
        }
    });
    refreshForModel();
    showRun();
}

QWidget* SurveyPanel::buildOptions() {
    auto* box = new QWidget(this);
    m_path = new QLineEdit(box);
    m_path->setObjectName(QStringLiteral("surveyPath"));
    m_path->setPlaceholderText(tr("Sentences: a .txt file (one per line) or a .conllu treebank"));
    m_browse = new QPushButton(tr("Browse…"), box);
    m_browse->setObjectName(QStringLiteral("surveyBrowse"));
    m_compute = new QPushButton(tr("Survey"), box);
    m_compute->setObjectName(QStringLiteral("surveyCompute"));
    m_compute->setToolTip(tr("Score what every head does on these sentences and label the heads"));
    m_treebank = new QPushButton(tr("Loaded treebank"), box);
    m_treebank->setObjectName(QStringLiteral("surveyTreebank"));
    m_treebank->setToolTip(
        tr("Survey the treebank open in the Sentences dock (not read again); "
           "its trees give each head's best dependency relation"));
    m_treebank->setEnabled(false);
    m_progress = new QProgressBar(box);
    m_progress->setObjectName(QStringLiteral("surveyProgress"));
    m_cancel = new QPushButton(tr("Cancel"), box);
    m_cancel->setObjectName(QStringLiteral("surveyCancel"));
    m_summary = new corpus::SummaryLine(box);  // one line, elided: it must not grow the dock
    m_summary->setObjectName(QStringLiteral("surveySummary"));
    m_summary->setPlaceholder(
        tr("Survey a sentence file or treebank to score what every head does and label it."));
    auto* first = new QHBoxLayout;
    first->addWidget(new QLabel(tr("Corpus:"), box));
    first->addWidget(m_path, 1);
    first->addWidget(m_browse);
    first->addWidget(m_treebank);
    first->addWidget(m_compute);
    first->addWidget(m_progress, 2);
    first->addWidget(m_cancel);
    first->addWidget(m_summary, 2);  // hidden while the progress bar shows
    auto* rows = new QVBoxLayout(box);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(2);
    rows->addLayout(first);
    rows->addLayout(buildRunOptions(box));
    connect(m_browse, &QPushButton::clicked, this, &SurveyPanel::askForCorpus);
    connect(m_path, &QLineEdit::returnPressed, this, &SurveyPanel::surveyChosenFile);
    connect(m_compute, &QPushButton::clicked, this, &SurveyPanel::surveyChosenFile);
    connect(m_treebank, &QPushButton::clicked, this, &SurveyPanel::surveyLoadedTreebank);
    connect(m_cancel, &QPushButton::clicked, this, &SurveyPanel::cancelSurvey);
    return box;
}

QHBoxLayout* SurveyPanel::buildRunOptions(QWidget* box) {
    const SurveyRequest defaults;
    const auto spin = [box](const char* name, int lo, int hi, int value, const QString& tip) {
        auto* s = new QSpinBox(box);
        s->setObjectName(QString::fromLatin1(name));
        s->setRange(lo, hi);
        s->setValue(value);
        s->setToolTip(tip);
        return s;
    };
    m_sentences = spin("surveySentences", 0, kMaxSentences, defaults.maxSentences,
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
    m_probeRepeats = spin("surveyProbeRepeats", 0, 100, defaults.probeRepeats,
                          tr("S7: random repeated sequences for the induction probe (0: none)"));
    m_probeLength = spin("surveyProbeLength", 2, 512, defaults.probeLength,
                         tr("S7: tokens in each half of a probe sequence"));
    m_probeSeed = spin("surveyProbeSeed", 0, 1 << 30, static_cast<int>(defaults.probeSeed),
                       tr("S7: seeds the probe's random tokens"));
    m_rareTop = spin("surveyRareTop", 1, 1000000, defaults.rareTop,
                     tr("S10: ids among the corpus's K most frequent are never \"rare\" "
                        "(Voita et al. use 500)"));
    m_export = buildExportButton(box);
    auto* row = new QHBoxLayout;
    const auto add = [&](const QString& label, QWidget* w) {
        auto* l = new QLabel(label, box);
        l->setBuddy(w);
        row->addWidget(l);
        row->addWidget(w);
        row->addSpacing(6);
    };
    add(tr("Sentences:"), m_sentences);
    add(tr("Sink ε:"), m_sinkEps);
    add(tr("Probe:"), m_probeRepeats);
    add(tr("× length"), m_probeLength);
    add(tr("seed"), m_probeSeed);
    add(tr("Rare top:"), m_rareTop);
    row->addStretch(1);
    row->addWidget(m_export);
    return row;
}

QToolButton* SurveyPanel::buildExportButton(QWidget* parent) {
    const auto write = [this](bool (SurveyPanel::*f)(const QString&)) {
        return [this, f](const QString& p) { return (this->*f)(p); };
    };
    const QString images = tr("PNG image (*.png);;SVG image (*.svg)");
    return corpus::newExportButton(
        parent, QStringLiteral("surveyExport"),
        {{tr("Table as CSV…"), tr("Export the head survey table"), tr("CSV table (*.csv)"),
          write(&SurveyPanel::exportCsv)},
         {tr("Results as HDF5…"), tr("Export the head survey"), tr("HDF5 file (*.h5)"),
          write(&SurveyPanel::exportResults)},
         {tr("Head map figure (PNG, SVG)…"), tr("Export the head map"), images,
          write(&SurveyPanel::exportMapFigure)},
         {tr("Score histograms figure (PNG, SVG)…"), tr("Export the score histograms"), images,
          write(&SurveyPanel::exportHistogramsFigure)}});
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
    // The map and the histograms each need the whole height of a short dock: tabs, not panes.
    m_charts = new QTabWidget(split);
    m_charts->setObjectName(QStringLiteral("surveyCharts"));
    m_charts->setDocumentMode(true);
    m_scatter = new MdsScatter(m_charts);
    m_scatter->setObjectName(QStringLiteral("surveyScatter"));
    m_scatter->setMinimumSize(200, 120);  // below its own minimum, for the short dock
    m_charts->addTab(m_scatter, tr("Head map (MDS)"));
    m_charts->setTabToolTip(m_charts->count() - 1,
                            tr("Every head placed by classical MDS of the head-to-head "
                               "Jensen–Shannon distances: close points attend alike"));
    // The charts keep a readable size and scroll in a short dock.
    auto* histogramScroll = new QScrollArea(m_charts);
    histogramScroll->setWidgetResizable(true);
    histogramScroll->setFrameShape(QFrame::NoFrame);
    m_histograms = new ScoreHistograms(histogramScroll);
    m_histograms->setObjectName(QStringLiteral("surveyHistograms"));
    histogramScroll->setWidget(m_histograms);
    m_charts->addTab(histogramScroll, tr("Score distributions"));
    auto* corner = new QWidget(m_charts);
    m_colouring = new QComboBox(corner);
    m_colouring->setObjectName(QStringLiteral("surveyColouring"));
    m_colouring->addItem(tr("layer"), static_cast<int>(MdsColouring::Layer));
    m_colouring->addItem(tr("label"), static_cast<int>(MdsColouring::Label));
    auto* cornerLayout = new QHBoxLayout(corner);
    cornerLayout->setContentsMargins(0, 0, 0, 0);
    cornerLayout->addWidget(new QLabel(tr("Colour by:"), corner));
    cornerLayout->addWidget(m_colouring);
    m_charts->setCornerWidget(corner, Qt::TopRightCorner);
    connect(m_charts, &QTabWidget::currentChanged, corner,
            [this, corner](int tab) { corner->setVisible(m_charts->widget(tab) == m_scatter); });
    split->addWidget(m_charts);
    split->setSizes({520, 480});
    split->setChildrenCollapsible(false);
    connect(m_filter, &QComboBox::activated, this,
            [this](int index) { m_session->setLabelFilter(m_filter->itemData(index).toString()); });
    connect(m_colouring, &QComboBox::currentIndexChanged, this, [this] {
        m_scatter->setColouring(static_cast<MdsColouring>(m_colouring->currentData().toInt()));
    });
    connect(m_scatter, &MdsScatter::headClicked, this, &SurveyPanel::activateHead);
    return split;
}

QTableView* SurveyPanel::buildTable(QWidget* parent) {
    m_table = corpus::newResultsTable(parent, QStringLiteral("surveyTable"), m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SurveyTableModel::Layer, Qt::AscendingOrder);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setMinimumWidth(240);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        activateHead(m_model->headOf(m_sorted->mapToSource(index).row()));
    });
    // The keyboard walks the list without taking the head view to the front at every step.
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid() && !m_syncingTable) {
                    m_session->selectHead(m_model->headOf(m_sorted->mapToSource(current).row()));
                }
            });
    return m_table;
}

void SurveyPanel::connectService() {
    corpus::followJob(
        m_service, this, m_progress, &ComputeService::surveyStarted,
        &ComputeService::surveyProgress, &ComputeService::surveyFinished,
        {tr("reading the sentences…"), tr("surveying, %p %")}, [this](bool busy) { setBusy(busy); },
        [this](bool ok) { emit surveyFinished(ok); });
}

void SurveyPanel::askForCorpus() {
    corpus::askForOpenFile(
        this, tr("Sentences to survey the heads on"), QFileInfo(m_path->text()).path(),
        tr("Sentences (*.txt *.conllu);;All files (*)"), [this](const QString& path) {
            m_path->setText(path);
            startSurvey(path);
        });
}

void SurveyPanel::surveyChosenFile() {
    const QString path = m_path->text().trimmed();
    if (path.isEmpty()) {
        askForCorpus();
    } else {
        startSurvey(path);
    }
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

void SurveyPanel::startSurvey(const QString& path) {
    if (!m_session->model()) {
        m_session->reportError(tr("Open a model before surveying its heads."));
        emit surveyFinished(false);
        return;
    }
    m_path->setText(path);
    m_service->computeSurvey(path, request());
}

void SurveyPanel::cancelSurvey() {
    m_service->cancelSurvey();
}

bool SurveyPanel::isSurveying() const {
    return m_service->isSurveying();
}

SurveyRequest SurveyPanel::request() const {
    SurveyRequest r;
    r.maxSentences = m_sentences->value();
    r.sinkEps = m_sinkEps->value();
    r.probeRepeats = m_probeRepeats->isEnabled() ? m_probeRepeats->value() : 0;
    r.probeLength = m_probeLength->value();
    r.probeSeed = static_cast<std::uint64_t>(m_probeSeed->value());
    r.rareTop = m_rareTop->value();
    r.rules = m_rules;
    return r;
}

void SurveyPanel::setRequest(const SurveyRequest& r) {
    m_sentences->setValue(r.maxSentences);
    m_sinkEps->setValue(r.sinkEps);
    m_probeRepeats->setValue(r.probeRepeats);
    m_probeLength->setValue(r.probeLength);
    m_probeSeed->setValue(static_cast<int>(r.probeSeed));
    m_rareTop->setValue(r.rareTop);
    m_rules = r.rules;
}

void SurveyPanel::refreshForModel() {
    const auto model = m_session->model();
    // The probe is a causal model's repeated sequence (S7); a bidirectional head sees the
    // repeat's second half from the first, so the core skips it there.
    const bool causal = model && model->spec.defaultMask == model::DefaultMask::Causal;
    for (QWidget* w : {static_cast<QWidget*>(m_probeRepeats), static_cast<QWidget*>(m_probeLength),
                       static_cast<QWidget*>(m_probeSeed)}) {
        w->setEnabled(causal);
    }
}

void SurveyPanel::setBusy(bool busy) {
    m_progress->setVisible(busy);
    m_summary->setVisible(!busy);
    m_cancel->setVisible(busy);
    m_compute->setEnabled(!busy);
    m_browse->setEnabled(!busy);
    m_treebank->setEnabled(!busy && m_session->treebank() != nullptr);
    m_export->setEnabled(!busy && m_session->survey() != nullptr);
}

void SurveyPanel::showRun() {
    const auto run = m_session->survey();
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
    const auto run = m_session->survey();
    const QSignalBlocker block(m_filter);
    m_filter->clear();
    m_filter->addItem(tr("All heads"), QString());
    for (const LabelFilterEntry& entry : labelFilterEntries(run.get())) {
        m_filter->addItem(entry.text, entry.tag);
    }
    const QString current = m_session->labelFilter();
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
    const auto run = m_session->survey();
    const QString tag = m_session->labelFilter();
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
    const auto run = m_session->survey();
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
    const auto run = m_session->survey();
    std::vector<ScoreColumn> columns;
    for (const auto& [name, title] : run ? headlineScores(*run) : std::vector<HeadlineScore>{}) {
        columns.push_back({QString::fromStdString(name), title, run->survey.score(name)});
    }
    m_histograms->setScores(std::move(columns), kHistogramBins);
}

void SurveyPanel::refreshSelection() {
    const auto run = m_session->survey();
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
        m_syncingTable = true;
        m_table->setCurrentIndex(row);
        m_table->scrollTo(row);
        m_syncingTable = false;
    }
}

void SurveyPanel::activateHead(HeadId head) {
    const auto run = m_session->survey();
    if (!run || head.layer < 0 || head.layer >= run->nLayers() || head.head < 0 ||
        head.head >= run->nHeads()) {
        return;
    }
    m_session->selectHead(head);
    emit headActivated(head);
}

bool SurveyPanel::haveRun() {
    if (m_session->survey()) {
        return true;
    }
    m_session->reportError(tr("Nothing to export yet: survey the heads first."));
    return false;
}

bool SurveyPanel::exportCsv(const QString& path) {
    if (!haveRun()) {
        return false;
    }
    const auto run = m_session->survey();
    m_service->exportFile(path, [run](const std::string& file) {
        exporting::writeSurveyCsv(file, run->survey, {run->labels, run->bestRelations});
    });
    return true;
}

bool SurveyPanel::exportResults(const QString& path) {
    if (!haveRun()) {
        return false;
    }
    const auto run = m_session->survey();
    const exporting::SurveyRunInfo info{m_session->modelPath().toStdString(),
                                        run->corpusPath.toStdString(), run->tooLong};
    m_service->exportFile(path, [run, info](const std::string& file) {
        exporting::writeSurveyH5(file, run->survey, run->options, info,
                                 {run->labels, run->bestRelations});
    });
    return true;
}

bool SurveyPanel::exportMapFigure(const QString& path) {
    if (!haveRun()) {
        return false;
    }
    QString error;
    if (!saveChartView(m_scatter, path, &error)) {
        m_session->reportError(tr("Export failed: %1").arg(error));
        return false;
    }
    return true;
}

bool SurveyPanel::exportHistogramsFigure(const QString& path) {
    if (!haveRun()) {
        return false;
    }
    QString error;
    if (!m_histograms->saveFigure(path, &error)) {
        m_session->reportError(tr("Export failed: %1").arg(error));
        return false;
    }
    return true;
}

}  // namespace attnscope::app
