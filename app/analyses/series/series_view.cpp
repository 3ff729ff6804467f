#include "analyses/series/series_view.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "analyses/series/series_chart.h"
#include "analyses/series/series_document.h"
#include "analyses/series/series_job.h"
#include "attnscope/base/error.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "widgets/named.h"
#include "widgets/placeholder_stack.h"

namespace attnscope::app {

namespace {

using analysis::HeadTrainingStats;

double metricOf(const HeadTrainingStats& s, SeriesView::Metric m) {
    switch (m) {
        case SeriesView::Metric::MaxLogit:
            return s.maxAbsLogit;
        case SeriesView::Metric::SinkMass:
            return s.sinkMass;
        case SeriesView::Metric::PrevToken:
            return s.prevTokenScore;
        case SeriesView::Metric::OneHot:
            return s.oneHotShare;
        case SeriesView::Metric::InductionProbe:
            return s.inductionProbe;  // NaN for bidirectional models
        case SeriesView::Metric::Entropy:
            break;
    }
    return s.meanEntropy;
}

// x of every checkpoint: its step when every name gives one, else its place in the series.
std::vector<double> positions(const std::vector<analysis::SeriesCheckpoint>& series,
                              bool* bySteps) {
    *bySteps = std::all_of(series.begin(), series.end(), [](const auto& c) { return c.step; });
    std::vector<double> x;
    for (std::size_t k = 0; k < series.size(); ++k) {
        x.push_back(*bySteps ? static_cast<double>(*series[k].step) : static_cast<double>(k));
    }
    return x;
}

// Whether any head of any checkpoint has a value for `m` (the induction probe has none for a
// bidirectional model).
bool anyFinite(const SeriesDocument::Statistics& stats, SeriesView::Metric m) {
    for (const auto& checkpoint : stats.byCheckpoint) {
        for (const HeadTrainingStats& s : checkpoint) {
            if (std::isfinite(metricOf(s, m))) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

SeriesView::SeriesView(AnalysisSession* session, ComputeService* service, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_service(service),
      m_stack(nullptr),
      m_summary(named<QLabel>("seriesSummary", this)),
      m_chart(new SeriesChart(this)) {
    setObjectName(QStringLiteral("seriesView"));
    // The stack fills a holder of its own: the controls stay above the placeholder.
    auto* holder = new QWidget(this);
    m_stack = named<PlaceholderStack>("seriesStack", holder);
    m_stack->placeholder()->setObjectName(QStringLiteral("seriesPlaceholder"));
    m_summary->setWordWrap(true);
    m_summary->setContentsMargins(8, 2, 8, 2);
    auto* page = new QWidget(this);
    auto* pageLayout = new QVBoxLayout(page);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->addWidget(m_chart, 1);
    m_stack->setPage(page);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(makeControls());
    layout->addWidget(m_summary);
    layout->addWidget(holder, 1);

    auto& document = session->document<SeriesDocument>();
    auto& job = service->job<SeriesJob>();
    connect(&document, &SeriesDocument::seriesChanged, this, &SeriesView::refresh);
    connect(&document, &SeriesDocument::statisticsChanged, this, &SeriesView::refresh);
    connect(&job, &CorpusJob::progress, this, &SeriesView::showProgress);
    connect(session, &AnalysisSession::modelChanged, this, &SeriesView::refreshCurrent);
    connect(session, &AnalysisSession::selectedHeadChanged, m_chart, &SeriesChart::setSelected);
    connect(m_chart, &SeriesChart::pointClicked, this, [this](HeadId head, int k) {
        m_session->selectHead(head);
        if (k >= 0 && k != m_session->document<SeriesDocument>().current()) {
            openCheckpoint(k);
        }
        emit headActivated(head);
    });
    refresh();
}

QWidget* SeriesView::makeControls() {
    auto* bar = new QWidget(this);
    // Two rows of combos that may shrink: the tab must fit the window's narrowest layout.
    auto* rows = new QVBoxLayout(bar);
    rows->setContentsMargins(8, 6, 8, 2);
    rows->setSpacing(4);
    auto* row = new QHBoxLayout;
    auto* second = new QHBoxLayout;
    rows->addLayout(row);
    rows->addLayout(second);
    m_open = named<QPushButton>("seriesOpen", tr("Open checkpoint series…"), bar);
    m_open->setToolTip(
        tr("A folder whose subfolders are checkpoints of one model named "
           "step<N> or checkpoint-<N> (Pythia's revisions, a Trainer's output)"));
    m_metric = named<QComboBox>("seriesMetric", bar);
    m_metric->addItems({tr("mean entropy (nats)"), tr("max |logit|"), tr("first-token mass"),
                        tr("previous-token score"), tr("one-hot rows (share)"),
                        tr("induction probe")});
    m_metric->setItemData(
        static_cast<int>(Metric::InductionProbe),
        tr("The survey's repeated-random-token probe (S7): mean attention from the second "
           "copy of [BOS, r₁…r₁₀, r₁…r₁₀] to the token after each token's first occurrence, "
           "over 4 seeded sequences drawn once for the whole series; causal models only"),
        Qt::ToolTipRole);
    m_prev = named<QPushButton>("seriesPrev", QStringLiteral("◀"), bar);
    m_checkpoint = named<QComboBox>("seriesCheckpoint", bar);
    m_checkpoint->setToolTip(tr("Open this checkpoint: every view shows it"));
    m_next = named<QPushButton>("seriesNext", QStringLiteral("▶"), bar);
    for (QPushButton* b : {m_prev, m_next}) {
        b->setMaximumWidth(32);
    }
    row->addWidget(m_open);
    row->addSpacing(8);
    row->addWidget(new QLabel(tr("Plot"), bar));
    row->addWidget(m_metric);
    row->addStretch(1);
    second->addWidget(new QLabel(tr("Checkpoint open"), bar));
    second->addWidget(m_prev);
    second->addWidget(m_checkpoint);
    second->addWidget(m_next);
    second->addStretch(1);
    for (const auto& [box, chars] : {std::pair{m_metric, 20}, {m_checkpoint, 12}}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(chars);
    }
    connect(m_open, &QPushButton::clicked, this, &SeriesView::askForFolder);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &SeriesView::refresh);
    connect(m_checkpoint, &QComboBox::activated, this, &SeriesView::openCheckpoint);
    connect(m_prev, &QPushButton::clicked, this,
            [this] { openCheckpoint(m_checkpoint->currentIndex() - 1); });
    connect(m_next, &QPushButton::clicked, this,
            [this] { openCheckpoint(m_checkpoint->currentIndex() + 1); });
    return bar;
}

void SeriesView::askForFolder() {
    auto* dialog = new QFileDialog(this, tr("Open a folder of training checkpoints"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly, true);
    connect(dialog, &QFileDialog::fileSelected, this, &SeriesView::openSeries);
    dialog->open();
}

bool SeriesView::openSeries(const QString& folder) {
    std::vector<analysis::SeriesCheckpoint> series;
    try {
        series = analysis::seriesFromFolder(folder.toStdString());
    } catch (const Error& e) {
        m_session->reportError(tr("Not a checkpoint series: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    auto& document = m_session->document<SeriesDocument>();
    document.setSeries(std::move(series));
    if (document.current() < 0) {
        openCheckpoint(static_cast<int>(document.checkpoints().size()) - 1);  // the last
    }
    return true;
}

void SeriesView::openCheckpoint(int k) {
    const auto& series = m_session->document<SeriesDocument>().checkpoints();
    if (k < 0 || static_cast<std::size_t>(k) >= series.size()) {
        return;
    }
    m_service->openModel(QString::fromStdString(series[static_cast<std::size_t>(k)].path.string()));
}

void SeriesView::refresh() {
    const auto& document = m_session->document<SeriesDocument>();
    const auto& series = document.checkpoints();
    {
        const QSignalBlocker block(m_checkpoint);
        m_checkpoint->clear();
        for (const auto& c : series) {
            m_checkpoint->addItem(QString::fromStdString(c.label));
        }
    }
    const auto stats = document.statistics();
    if (series.empty()) {
        m_chart->clearData();
        m_summary->clear();
        m_stack->showPlaceholder(
            tr("Open a folder of training checkpoints — step1000, step2000, … as Pythia's "
               "revisions are named — to plot every head's entropy, largest logit, first-token "
               "mass, previous-token score or induction probe against the step, for the "
               "sentence on screen."));
    } else if (!stats) {
        m_chart->clearData();
        m_stack->showPlaceholder(tr("Computing %1 checkpoints…").arg(series.size()));
    } else if (static_cast<Metric>(m_metric->currentIndex()) == Metric::InductionProbe &&
               !anyFinite(*stats, Metric::InductionProbe)) {
        m_chart->clearData();
        m_stack->showPlaceholder(
            tr("The induction probe runs on causal models only: this series' checkpoints are "
               "bidirectional (n/a)."));
    } else {
        bool bySteps = false;
        SeriesChart::Data chartData;
        chartData.x = positions(series, &bySteps);
        for (const auto& c : series) {
            chartData.labels.push_back(QString::fromStdString(c.label));
        }
        const auto metric = static_cast<Metric>(m_metric->currentIndex());
        const std::size_t heads = stats->byCheckpoint.front().size();
        chartData.values.assign(heads, std::vector<double>(series.size()));
        for (std::size_t k = 0; k < series.size(); ++k) {
            for (std::size_t h = 0; h < heads; ++h) {
                chartData.values[h][k] = metricOf(stats->byCheckpoint[k][h], metric);
            }
        }
        chartData.nHeads = stats->nHeads;
        chartData.nLayers = static_cast<int>(heads) / std::max(stats->nHeads, 1);
        chartData.xTitle = bySteps ? tr("training step") : tr("checkpoint");
        chartData.yTitle = m_metric->currentText();
        m_chart->setData(std::move(chartData));
        m_chart->setSelected(m_session->selectedHead());
        m_stack->showPage();
    }
    refreshCurrent();
}

void SeriesView::refreshCurrent() {
    const auto& document = m_session->document<SeriesDocument>();
    const int current = document.current();
    const int count = static_cast<int>(document.checkpoints().size());
    {
        const QSignalBlocker block(m_checkpoint);
        m_checkpoint->setCurrentIndex(current);
    }
    m_checkpoint->setEnabled(count > 0);
    m_prev->setEnabled(current > 0);
    m_next->setEnabled(current >= 0 && current + 1 < count);
    m_chart->setCurrent(current);
    if (count > 0 && document.statistics()) {
        m_summary->setText(
            tr("%1 checkpoints, %2 … %3; the thick line is the selected head, the dashed one "
               "the checkpoint open now. Click a point to open that head there.")
                .arg(count)
                .arg(QString::fromStdString(document.checkpoints().front().label),
                     QString::fromStdString(document.checkpoints().back().label)));
    }
}

void SeriesView::showProgress(int done, int total) {
    if (total > 0) {
        m_summary->setText(tr("Computing checkpoint %1 of %2…").arg(done + 1).arg(total));
    }
}

}  // namespace attnscope::app
