#include "analyses/coref/coref_panel.h"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "analyses/coref/coref_document.h"
#include "analyses/coref/coref_job.h"
#include "analyses/coref/coref_table_model.h"
#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/corpus/score_text.h"
#include "attnscope/export/coref_export.h"
#include "service/compute_service.h"
#include "views/heatmap_widget.h"
#include "widgets/file_dialogs.h"

namespace attnscope::app {

namespace {

constexpr int kDefaultWindow = 128;  // Clark et al.'s limit
constexpr int kMaxWindow = 1 << 20;

Matrix accuracyMatrix(const analysis::CorefAccumulator& acc, analysis::MentionGroup group) {
    Matrix m(acc.layers(), acc.heads());
    for (int l = 0; l < acc.layers(); ++l) {
        for (int h = 0; h < acc.heads(); ++h) {
            m(l, h) = static_cast<float>(acc.at({l, h}, group).accuracy());
        }
    }
    return m;
}

bool isHdf5(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("h5") || suffix == QLatin1String("hdf5");
}

}  // namespace

CorefPanel::CorefPanel(AnalysisSession* session, ComputeService* service, QWidget* parent)
    : CorpusPanel(session, service, service->job<CorefJob>(), QStringLiteral("coref"),
                  {.noModel = tr("Open a model before scoring coreference."),
                   .nothingYet = tr("Nothing to export yet: score coreference first."),
                   .dialogTitle = tr("Open a CorefUD treebank for coreference scoring"),
                   .dialogFilter = tr("CoNLL-U treebanks (*.conllu);;All files (*)")},
                  parent),
      m_model(new CorefTableModel(this)) {
    setParts(buildOptions(), buildResults());
    followJob({tr("reading and cutting windows…"), tr("%v / %m windows")});
    connect(&m_session->document<CorefDocument>(), &CorefDocument::changed, this,
            &CorefPanel::showScores);
    // The chooser names the window on screen, also when the text got there another way (typed,
    // pasted, from the sentence list), and none when the text is no window's.
    connect(m_session, &AnalysisSession::resultChanged, this, [this] {
        const auto gold = m_session->overlays().windowGold();
        m_windows->setCurrentIndex(gold ? static_cast<int>(gold->window) : -1);
    });
    // The dependency treebank is the likeliest file to score: GUM and others carry both.
    offerLoadedTreebank();
    setBusy(false);
    showScores();
}

QWidget* CorefPanel::buildOptions() {
    auto* box = new QWidget(this);
    addPathField(box, tr("CorefUD treebank (.conllu with Entity= annotations)"));
    m_limit = corpus::newSpinBox(
        box, QStringLiteral("corefWindowLimit"), {0, kMaxWindow, kDefaultWindow},
        tr("Whole sentences are joined into windows of at most this many tokens (special tokens "
           "included; Clark et al. used 128). A mention is scored when an earlier mention of its "
           "entity is in the same window."));
    m_limit->setSpecialValueText(tr("model maximum"));
    m_limit->setSuffix(tr(" tokens"));
    addRunButton(box, tr("Score"), childName("Score"));
    addProgress(box);
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    layOutPath(row, tr("Treebank:"), 2);
    row->addSpacing(8);
    row->addWidget(new QLabel(tr("Window:"), box));
    row->addWidget(m_limit);
    row->addWidget(m_run);
    layOutProgress(row, 1);
    return box;
}

QWidget* CorefPanel::buildResults() {
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("corefSplitter"));
    split->addWidget(buildTableSide(split));
    split->addWidget(buildHeatmapSide(split));
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    return split;
}

QWidget* CorefPanel::buildTableSide(QWidget* parent) {
    auto* left = new QWidget(parent);
    m_summary = corpus::newNoteLabel(left, QStringLiteral("corefSummary"));
    m_table = corpus::newResultsTable(left, QStringLiteral("corefTable"), m_model);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setToolTip(tr("Double-click a row to open its best head"));
    // A header and four rows, exactly: the counts below stay in view in a short dock.
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setFixedHeight(m_table->horizontalHeader()->sizeHint().height() +
                            analysis::kMentionGroups * (fontMetrics().height() + 4) +
                            2 * m_table->frameWidth());
    m_counts = corpus::newNoteLabel(left, QStringLiteral("corefCounts"));
    m_windows = new QComboBox(left);
    m_windows->setObjectName(QStringLiteral("corefWindows"));
    m_windows->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_windows->setMinimumContentsLength(20);
    m_windows->setToolTip(tr("Show a window in the head view, with its gold coreference arcs"));
    auto* exportButton = new QPushButton(tr("Export…"), left);
    exportButton->setObjectName(QStringLiteral("corefExport"));
    exportButton->setToolTip(tr("Every head's and baseline's counts as a CSV table or HDF5 file"));
    m_export = exportButton;
    auto* windowRow = new QHBoxLayout;
    windowRow->addWidget(new QLabel(tr("Show window:"), left));
    windowRow->addWidget(m_windows, 1);
    windowRow->addWidget(m_export);
    auto* layout = new QVBoxLayout(left);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_table);
    layout->addWidget(m_counts);
    layout->addLayout(windowRow);
    layout->addStretch(1);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        selectGroup(static_cast<analysis::MentionGroup>(index.row()));
    });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const auto acc = results();
        if (const auto best = acc ? acc->bestHead(static_cast<analysis::MentionGroup>(index.row()))
                                  : std::nullopt) {
            activateHead(*best);
        }
    });
    connect(m_windows, &QComboBox::activated, this, &CorefPanel::chooseWindow);
    connect(exportButton, &QPushButton::clicked, this, &CorefPanel::askForExport);
    return left;
}

QWidget* CorefPanel::buildHeatmapSide(QWidget* parent) {
    auto* right = new QWidget(parent);
    m_group = new QComboBox(right);
    m_group->setObjectName(QStringLiteral("corefGroup"));
    for (int g = 0; g < analysis::kMentionGroups; ++g) {
        m_group->addItem(CorefTableModel::groupText(static_cast<analysis::MentionGroup>(g)));
    }
    addFixedRange(right);
    newHeatmap(right);
    // Below the widget's usual minimum: a dock of two fifths of a 700-pixel window then shows
    // every layer of a small model without scrolling; larger models get a taller dock.
    m_heatmap->setMinimumSize(200, 140);
    auto* above = new QHBoxLayout;
    // The heatmap has no title of its own: this row says what it shows, in one line less.
    auto* label = new QLabel(tr("Accuracy on:"), right);
    label->setToolTip(tr("How often each head's most-attended word is an antecedent's head word"));
    above->addWidget(label);
    above->addWidget(m_group, 1);
    above->addWidget(m_fixedRange);
    auto* layout = new QVBoxLayout(right);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(above);
    layout->addWidget(m_heatmap, 1);
    connect(m_group, &QComboBox::currentIndexChanged, this, &CorefPanel::refreshHeatmap);
    connect(m_fixedRange, &QCheckBox::toggled, this, &CorefPanel::refreshHeatmap);
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](int row, int col) {
        if (results()) {
            activateHead({row, col});
        }
    });
    return right;
}

void CorefPanel::launch(const QString& path) {
    analysis::CorefScoreOptions options;
    options.maxTokens = static_cast<std::size_t>(m_limit->value());  // 0: the model's positions
    m_service->job<CorefJob>().start(path, options);
}

void CorefPanel::setWindowLimit(int tokens) {
    m_limit->setValue(tokens);
}

void CorefPanel::setBusy(bool busy) {
    CorpusPanel::setBusy(busy);
    m_limit->setEnabled(!busy);
}

std::shared_ptr<const CorefScores> CorefPanel::scores() const {
    return m_session->document<CorefDocument>().scores();
}

std::shared_ptr<const analysis::CorefAccumulator> CorefPanel::results() const {
    return corpus::countsOf(scores());
}

void CorefPanel::showScores() {
    setBusy(isScoring());
    m_model->setResults(results());
    refreshSummary();
    refreshWindows();
    refreshHeatmap();
    if (const auto scores = this->scores()) {
        m_path->setText(QString::fromStdString(scores->corpus->path));
        emit corefScored(QString::fromStdString(scores->corpus->path));
    }
}

analysis::MentionGroup CorefPanel::currentGroup() const {
    return static_cast<analysis::MentionGroup>(m_group->currentIndex());
}

void CorefPanel::selectGroup(analysis::MentionGroup group) {
    m_group->setCurrentIndex(static_cast<int>(group));
}

QString CorefPanel::countsText() const {
    return m_counts->text();
}

void CorefPanel::refreshSummary() {
    const auto scores = this->scores();
    // The introduction only while there is nothing else: a short dock needs every line.
    m_summary->setVisible(!scores);
    m_table->setVisible(scores != nullptr);
    if (!scores) {
        m_summary->setText(
            tr("Score a CorefUD treebank to see which heads find a mention's antecedent "
               "(Clark et al. 2019, §4.3): a head is right when the mention's head word "
               "attends most to the head word of an earlier mention of its entity."));
        m_counts->clear();
        return;
    }
    const analysis::CorefCounts& c = scores->counts.counts;
    const QString file =
        QFileInfo(QString::fromStdString(scores->corpus->path)).fileName().toHtmlEscaped();
    m_counts->setText(tr("<b>%1</b>, windows of at most %2 tokens: %3 documents · %4 windows · "
                         "%5 mentions, %6 scored, %7 without a token · %8 sentences longer than "
                         "a window · %9 discontinuous, %10 unclosed, %11 unmatched · %12 "
                         "malformed sentences")
                          .arg(file)
                          .arg(scores->limit)
                          .arg(c.documents)
                          .arg(c.windows)
                          .arg(c.mentions)
                          .arg(c.scoredMentions)
                          .arg(c.mentionsWithoutToken)
                          .arg(c.sentencesSkipped)
                          .arg(c.discontinuous)
                          .arg(c.unclosed)
                          .arg(c.unmatched)
                          .arg(c.malformedSentences));
}

void CorefPanel::refreshWindows() {
    m_windows->clear();
    const auto scores = this->scores();
    if (!scores) {
        return;
    }
    for (std::size_t i = 0; i < scores->windowTexts.size(); ++i) {
        m_windows->addItem(windowLabel(*scores, i));
    }
    // The window on screen, if the text already is one (typed before the scores came).
    const auto gold = m_session->overlays().windowGold();
    m_windows->setCurrentIndex(gold ? static_cast<int>(gold->window) : -1);
    m_windows->setPlaceholderText(
        tr("%n window(s): choose one to see its coreference arcs in the head view", nullptr,
           static_cast<int>(scores->windowTexts.size())));
}

void CorefPanel::chooseWindow(int index) {
    const auto scores = this->scores();
    if (!scores || index < 0 || static_cast<std::size_t>(index) >= scores->windowTexts.size()) {
        return;
    }
    if (m_windows->currentIndex() != index) {
        m_windows->setCurrentIndex(index);
    }
    m_session->setText(
        QString::fromStdString(scores->windowTexts[static_cast<std::size_t>(index)]));
    emit windowChosen(index);
}

void CorefPanel::refreshHeatmap() {
    const auto acc = results();
    if (!acc) {
        m_heatmap->clear(tr("The accuracy of every head for the chosen mentions appears here."));
        return;
    }
    const analysis::MentionGroup group = currentGroup();
    const Matrix accuracy = accuracyMatrix(*acc, group);
    showAccuracy(accuracy, headLabels(acc->heads()));
    if (const auto best = acc->bestHead(group)) {
        m_heatmap->setOutlinedCells({{best->layer, best->head}});
    } else {
        m_heatmap->setOutlinedCells({});
    }
}

QString CorefPanel::heatmapTooltip(int row, int col) const {
    const auto acc = results();
    if (!acc || row >= acc->layers() || col >= acc->heads()) {
        return {};
    }
    const analysis::MentionGroup group = currentGroup();
    const analysis::Counts& c = acc->at({row, col}, group);
    return tr("layer %1, head %2 · %3\naccuracy %4: %5 correct of %6 predicted%7")
        .arg(row)
        .arg(col)
        .arg(CorefTableModel::groupText(group), corpus::percentText(c))
        .arg(c.correct)
        .arg(c.predicted())
        .arg(corpus::noPredictionText(c));
}

void CorefPanel::askForExport() {
    askForSaveFile(this, tr("Export the coreference scores"),
                   tr("CSV table (*.csv);;HDF5 results (*.h5)"), [this](const QString& path) {
                       return isHdf5(path) ? exportResults(path) : exportCsv(path);
                   });
}

bool CorefPanel::exportCsv(const QString& path) {
    return exportInBackground(path, [this]() -> FileWrite {
        return [acc = results()](const std::string& file) { exporting::writeCorefCsv(file, *acc); };
    });
}

bool CorefPanel::exportResults(const QString& path) {
    return exportInBackground(path, [this]() -> FileWrite {
        const auto scores = this->scores();
        exporting::CorefRunInfo info;
        info.model = m_session->modelPath().toStdString();
        info.treebank = scores->corpus->path;
        info.limit = scores->limit;
        info.multiword =
            scores->options.multiword == analysis::MultiwordRule::Split ? "split" : "share";
        const analysis::FromAggregation from = scores->options.aggregation;
        info.fromMode = from == analysis::FromAggregation::Mean    ? "mean"
                        : from == analysis::FromAggregation::First ? "first"
                                                                   : "max";
        return [scores, info](const std::string& file) {
            exporting::writeCorefResults(file, scores->counts, info);
        };
    });
}

}  // namespace attnscope::app
