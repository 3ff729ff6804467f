#include "analyses/generation/generation_view.h"

#include <algorithm>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/generation/generation_figure.h"
#include "analyses/generation/generation_job.h"
#include "analyses/generation/generation_widgets.h"
#include "attnscope/export/generation_export.h"
#include "render/figure_file.h"
#include "session/analysis_session.h"
#include "session/reporting_export.h"
#include "views/heatmap_widget.h"
#include "widgets/named.h"
#include "widgets/placeholder_stack.h"

namespace attnscope::app {

namespace {

QLabel* fieldLabel(const QString& text, QWidget* buddy, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setBuddy(buddy);
    return label;
}

}  // namespace

GenerationView::GenerationView(AnalysisSession* session, GenerationJob& job, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_document(session->document<GenerationDocument>()),
      m_job(job),
      m_stack(named<PlaceholderStack>("generationStack", this)) {
    setObjectName(QStringLiteral("generationView"));
    setFocusPolicy(Qt::StrongFocus);
    m_stack->placeholder()->setObjectName(QStringLiteral("generationPlaceholder"));
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(8, 6, 8, 4);
    layout->setSpacing(4);
    layout->addWidget(makeSettings());
    layout->addWidget(makeStepping());
    layout->addWidget(makeResults(), 1);
    m_stack->setPage(page);

    connect(session, &AnalysisSession::modelChanged, this, &GenerationView::refresh);
    connect(session, &AnalysisSession::resultChanged, this, &GenerationView::refresh);
    connect(session, &AnalysisSession::selectedHeadChanged, this, [this] {
        m_pickedKey = -1;
        showStep();
    });
    connect(&m_document, &GenerationDocument::runChanged, this, [this] {
        m_pickedKey = -1;
        refresh();
    });
    connect(&m_document, &GenerationDocument::stepChanged, this, &GenerationView::showStep);
    connect(&job, &CorpusJob::progress, this, [this](int done, int total) {
        m_progress->setRange(0, std::max(total, 1));
        m_progress->setValue(done);
    });
    refresh();
}

QWidget* GenerationView::makeSettings() {
    auto* bar = new QWidget(this);
    auto* rows = new QVBoxLayout(bar);
    rows->setContentsMargins(0, 0, 0, 0);
    auto* first = new QHBoxLayout;
    m_steps = named<QSpinBox>("generationSteps", bar);
    m_steps->setRange(1, 4096);
    m_steps->setValue(20);
    m_steps->setToolTip(tr("How many tokens to generate"));
    m_mode = named<QComboBox>("generationMode", bar);
    m_mode->addItems({tr("Greedy"), tr("Sampled")});
    m_mode->setToolTip(
        tr("Greedy takes the most likely token; Sampled draws from llama.cpp's "
           "top_k → top_p → temperature chain"));
    m_generate = named<QPushButton>("generationGenerate", tr("Generate"), bar);
    m_generate->setToolTip(tr("Continue the sentence and keep every step's attention rows"));
    m_cancel = named<QPushButton>("generationCancel", tr("Cancel"), bar);
    m_progress = named<QProgressBar>("generationProgress", bar);
    m_progress->setMaximumWidth(160);
    m_progress->setFormat(tr("step %v of %m"));
    m_useAsSentence = named<QPushButton>("generationUseAsSentence", tr("Use as sentence"), bar);
    m_useAsSentence->setToolTip(
        tr("Make the prompt and its continuation the sentence, for the other tabs"));
    m_export = corpus::newExportButton(
        bar, QStringLiteral("generationExport"),
        {{tr("Every step's rows (CSV)…"), tr("Export every step's attention rows"),
          tr("CSV files (*.csv)"), [this](const QString& p) { return exportCsv(p); }},
         {tr("This step's figure (PNG, SVG, PDF)…"), tr("Export the step shown"),
          tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
          [this](const QString& p) { return exportFigure(p); }}});
    m_caption = named<QLabel>("generationCaption", bar);
    m_caption->setForegroundRole(QPalette::PlaceholderText);
    first->addWidget(fieldLabel(tr("&Steps"), m_steps, bar));
    first->addWidget(m_steps);
    first->addWidget(m_mode);
    first->addWidget(m_generate);
    first->addWidget(m_cancel);
    first->addWidget(m_progress);
    first->addWidget(m_caption, 1);
    first->addWidget(m_useAsSentence);
    first->addWidget(m_export);
    rows->addLayout(first);

    rows->addLayout(makeSampling(bar));

    connect(m_mode, &QComboBox::currentIndexChanged, this, &GenerationView::samplingToggled);
    connect(m_generate, &QPushButton::clicked, this, &GenerationView::generate);
    connect(m_cancel, &QPushButton::clicked, &m_job, &CorpusJob::cancel);
    connect(m_useAsSentence, &QPushButton::clicked, this, &GenerationView::useAsSentence);
    samplingToggled();
    jobEnded(true);
    return bar;
}

QHBoxLayout* GenerationView::makeSampling(QWidget* bar) {
    auto* second = new QHBoxLayout;
    m_temperature = named<QDoubleSpinBox>("generationTemperature", bar);
    m_temperature->setRange(0.01, 100.0);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(0.8);
    m_temperature->setToolTip(tr("temperature: the kept logits are divided by it"));
    m_topK = named<QSpinBox>("generationTopK", bar);
    m_topK->setRange(0, 1000000);
    m_topK->setValue(40);
    m_topK->setToolTip(tr("top_k: keep the k most likely tokens (0: off)"));
    m_topP = named<QDoubleSpinBox>("generationTopP", bar);
    m_topP->setRange(0.01, 1.0);
    m_topP->setDecimals(3);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(0.95);
    m_topP->setToolTip(tr("top_p: keep the fewest tokens whose probability reaches p (1: off)"));
    m_seed = named<QSpinBox>("generationSeed", bar);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setToolTip(tr("seed: the same seed draws the same tokens"));
    second->addWidget(fieldLabel(tr("t&emperature"), m_temperature, bar));
    second->addWidget(m_temperature);
    second->addWidget(fieldLabel(tr("top_&k"), m_topK, bar));
    second->addWidget(m_topK);
    second->addWidget(fieldLabel(tr("top_&p"), m_topP, bar));
    second->addWidget(m_topP);
    second->addWidget(fieldLabel(tr("s&eed"), m_seed, bar));
    second->addWidget(m_seed);
    second->addStretch(1);
    return second;
}

QWidget* GenerationView::makeStepping() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_previous = named<QToolButton>("generationPrevious", bar);
    m_previous->setArrowType(Qt::LeftArrow);
    m_previous->setToolTip(tr("The step before (Left)"));
    m_slider = named<QSlider>("generationSlider", Qt::Horizontal, bar);
    m_slider->setMinimumWidth(120);
    m_slider->setMaximumWidth(320);
    m_slider->setToolTip(tr("Step through the generation (Left, Right)"));
    m_next = named<QToolButton>("generationNext", bar);
    m_next->setArrowType(Qt::RightArrow);
    m_next->setToolTip(tr("The step after (Right)"));
    m_headline = named<QLabel>("generationHeadline", bar);
    m_headline->setTextFormat(Qt::RichText);
    row->addWidget(m_previous);
    row->addWidget(m_slider, 1);
    row->addWidget(m_next);
    row->addWidget(m_headline, 3);
    connect(m_previous, &QToolButton::clicked, this, [this] { setStep(step() - 1); });
    connect(m_next, &QToolButton::clicked, this, [this] { setStep(step() + 1); });
    connect(m_slider, &QSlider::valueChanged, this, &GenerationView::setStep);
    return bar;
}

QWidget* GenerationView::makeResults() {
    auto* holder = new QWidget(this);  // the stack fills it: this view's layout is taken
    m_results = named<PlaceholderStack>("generationResults", holder);
    m_results->placeholder()->setObjectName(QStringLiteral("generationHint"));
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    m_chips = named<TokenChips>("generationChips", page);
    auto* chipScroll = new QScrollArea(page);
    chipScroll->setWidget(m_chips);
    chipScroll->setWidgetResizable(true);
    chipScroll->setFrameShape(QFrame::NoFrame);
    chipScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // As tall as the chips, up to three lines of them: a long continuation scrolls.
    const int most = 3 * (2 * fontMetrics().height() + 14) + 6;
    connect(m_chips, &TokenChips::heightWanted, chipScroll,
            [chipScroll, most](int height) { chipScroll->setFixedHeight(std::min(height, most)); });
    layout->addWidget(chipScroll);

    auto* split = named<QSplitter>("generationSplitter", Qt::Horizontal, page);
    auto* left = new QWidget(split);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* pick = new QHBoxLayout;
    m_layer = named<QSpinBox>("generationLayer", left);
    m_head = named<QSpinBox>("generationHead", left);
    pick->addWidget(new QLabel(tr("Row of head"), left));
    pick->addWidget(fieldLabel(tr("&layer"), m_layer, left));
    pick->addWidget(m_layer);
    pick->addWidget(fieldLabel(tr("&head"), m_head, left));
    pick->addWidget(m_head);
    pick->addStretch(1);
    leftLayout->addLayout(pick);
    m_strip = named<RowStrip>("generationRow", left);
    leftLayout->addWidget(m_strip, 1);
    auto* legend = noteLabel(left, tr("Blue: the prompt; orange: generated. Click a bar: every "
                                      "head's weight on its token."));
    legend->setObjectName(QStringLiteral("generationLegend"));
    leftLayout->addWidget(legend);
    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    m_mapTitle = named<QLabel>("generationMapTitle", right);
    m_mapTitle->setWordWrap(true);
    m_mapTitle->setTextFormat(Qt::RichText);
    m_heatmap = named<HeatmapWidget>("generationHeatmap", right);
    m_heatmap->setTooltipFunction([this](int layer, int head) { return mapTooltip(layer, head); });
    // Lower than a heatmap's usual minimum, so that the tab fits a 1024 × 700 window with a dock
    // open under it; it grows with the window.
    m_heatmap->setMinimumSize(160, 120);
    rightLayout->addWidget(m_mapTitle);
    rightLayout->addWidget(m_heatmap, 1);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    m_split = split;
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    m_results->setPage(page);

    const auto selectHead = [this] { m_session->selectHead({m_layer->value(), m_head->value()}); };
    connect(m_layer, &QSpinBox::valueChanged, this, selectHead);
    connect(m_head, &QSpinBox::valueChanged, this, selectHead);
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](int layer, int head) {
        m_session->selectHead({layer, head});
    });
    connect(m_strip, &RowStrip::keyClicked, this, &GenerationView::pickKey);
    connect(m_chips, &TokenChips::stepClicked, this, &GenerationView::setStep);
    return holder;
}

QString GenerationView::mapTooltip(int layer, int head) const {
    const auto run = shownRun();
    if (!run || layer < 0 || head < 0) {
        return QString();
    }
    const int top = argmaxKey(*run, step(), {layer, head});
    return tr("Head %1-%2: %3 on the focused key; looks most at “%4” (key %5, %6)\n"
              "Click to show its row")
        .arg(layer)
        .arg(head)
        .arg(static_cast<double>(stepRow(*run, step(), {layer, head})[focusKey()]), 0, 'f', 3)
        .arg(QString::fromStdString(run->labels[static_cast<std::size_t>(top)]))
        .arg(top)
        .arg(static_cast<double>(stepRow(*run, step(), {layer, head})[top]), 0, 'f', 3);
}

std::shared_ptr<const GenerationDocument::Run> GenerationView::shownRun() const {
    return m_stack->showsPage() && m_results->showsPage() ? m_document.run() : nullptr;
}

int GenerationView::step() const {
    return m_document.step();
}

void GenerationView::setStep(int step) {
    m_document.setStep(step);
}

HeadId GenerationView::shownHead() const {
    const HeadId h = m_session->selectedHead();
    const auto run = m_document.run();
    if (!run) {
        return h;
    }
    return {std::clamp(h.layer, 0, run->generation.nLayers - 1),
            std::clamp(h.head, 0, run->generation.nHeads - 1)};
}

int GenerationView::focusKey() const {
    const auto run = m_document.run();
    if (!run || run->steps() == 0) {
        return 0;
    }
    const int keys = run->generation.steps[static_cast<std::size_t>(step())].keys;
    return m_pickedKey >= 0 && m_pickedKey < keys ? m_pickedKey
                                                  : argmaxKey(*run, step(), shownHead());
}

bool GenerationView::canGenerate() const {
    return m_stack->showsPage();
}

QString GenerationView::placeholderText() const {
    if (!m_stack->showsPage()) {
        return m_stack->placeholder()->text();
    }
    return m_results->showsPage() ? QString() : m_results->placeholder()->text();
}

void GenerationView::samplingToggled() {
    const bool sampled = m_mode->currentIndex() == 1;
    for (QWidget* w : std::initializer_list<QWidget*>{m_temperature, m_topK, m_topP, m_seed}) {
        w->setEnabled(sampled);
    }
}

void GenerationView::generate() {
    forward::SamplerSettings sampler;
    if (m_mode->currentIndex() == 1) {
        sampler.temperature = static_cast<float>(m_temperature->value());
        sampler.topK = m_topK->value();
        sampler.topP = static_cast<float>(m_topP->value());
        sampler.seed = static_cast<std::uint64_t>(m_seed->value());
    }
    if (m_job.generate(m_steps->value(), sampler)) {
        m_progress->setRange(0, m_steps->value());
        m_progress->setValue(0);
        m_progress->setVisible(true);
        m_cancel->setVisible(true);
        m_generate->setEnabled(false);
    }
}

void GenerationView::jobEnded(bool) {
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    m_generate->setEnabled(true);
}

void GenerationView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Left || event->key() == Qt::Key_Right) {
        setStep(step() + (event->key() == Qt::Key_Left ? -1 : 1));
        return;
    }
    QWidget::keyPressEvent(event);
}

void GenerationView::pickKey(int key) {
    m_pickedKey = key;
    showStep();
}

void GenerationView::refresh() {
    const auto model = m_session->model();
    if (!model || !m_session->cleanResult()) {
        m_stack->showPlaceholder(
            tr("No sentence yet.\nOpen a decoder-only model (GPT-2, Llama, Qwen, …) and type a "
               "sentence: Generate continues it and shows where every head looks at each step."));
        return;
    }
    if (const QString why = generationUnsupportedReason(*model); !why.isEmpty()) {
        m_stack->showPlaceholder(why);
        return;
    }
    m_stack->showPage();
    const auto run = m_document.run();
    if (!run || run->steps() == 0) {
        m_caption->setText(run ? tr("The sentence fills the model's positions: nothing was "
                                    "generated.")
                               : QString());
        m_headline->clear();
        for (QWidget* w : std::initializer_list<QWidget*>{m_previous, m_slider, m_next,
                                                          m_useAsSentence, m_export}) {
            w->setEnabled(false);
        }
        m_results->showPlaceholder(
            tr("Press Generate to continue the sentence. Then step through the steps (Left, "
               "Right): the selected head's attention row over the prompt and the tokens so "
               "far, and every head's weight on one token."));
        return;
    }
    QString caption = tr("%n prompt token(s), ", "", run->promptLength()) +
                      tr("%n step(s), ", "", run->steps()) +
                      QString::fromStdString(run->samplerText());
    if (run->steps() < run->stepsAsked) {
        caption += tr(" (the model's positions ran out)");
    }
    if (m_session->cleanResult()->forward.tokenIds != run->generation.prompt) {
        caption += tr(" · of an earlier sentence: Generate again for this one");
    }
    m_caption->setText(caption);
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_previous, m_slider, m_next, m_useAsSentence, m_export}) {
        w->setEnabled(true);
    }
    const QSignalBlocker block(m_slider);
    m_slider->setRange(0, run->steps() - 1);
    m_results->showPage();
    showStep();
}

void GenerationView::showStep() {
    const auto run = m_document.run();
    if (!run || run->steps() == 0 || !m_results->showsPage()) {
        return;
    }
    const int s = step();
    {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(s);
    }
    m_previous->setEnabled(s > 0);
    m_next->setEnabled(s + 1 < run->steps());
    m_headline->setText(stepHeadline(*run, s, true));
    m_chips->setRun(run, s);
    const HeadId head = shownHead();
    {
        const QSignalBlocker blockLayer(m_layer);
        const QSignalBlocker blockHead(m_head);
        m_layer->setRange(0, run->generation.nLayers - 1);
        m_head->setRange(0, run->generation.nHeads - 1);
        m_layer->setValue(head.layer);
        m_head->setValue(head.head);
    }
    const int key = focusKey();
    m_strip->setRow(run, s, head, key);
    if (!m_splitFitted && m_split->isVisible()) {
        // Once: half for the heads' map, which needs the room more than the bars do; later the
        // user's split stays.
        m_splitFitted = true;
        const int total = m_split->width() - m_split->handleWidth();
        m_split->setSizes({total - total / 2, total / 2});
    }
    render::HeatmapStyle style;
    const Matrix weights = keyWeights(*run, s, key);
    m_heatmap->setMap(render::heatmapImageInRange(weights, nullptr, style, weightRange()),
                      weightRange(), layerLabels(run->generation.nLayers),
                      headLabels(run->generation.nHeads), std::nullopt);
    m_heatmap->setOutlinedCells({{head.layer, head.head}});
    m_mapTitle->setText(
        tr("Every head's weight on <b>“%1”</b> (key %2)%3")
            .arg(QString::fromStdString(run->labels[static_cast<std::size_t>(key)]).toHtmlEscaped())
            .arg(key)
            .arg(m_pickedKey < 0
                     ? tr(", where head %1-%2 looks most").arg(head.layer).arg(head.head)
                     : QString()));
}

bool GenerationView::canExport() const {
    if (!shownRun()) {
        m_session->reportError(tr("Nothing to export yet: press Generate first."));
        return false;
    }
    return true;
}

bool GenerationView::exportCsv(const QString& path) {
    if (!canExport()) {
        return false;
    }
    const auto run = m_document.run();
    const exporting::GenerationRun file{run->modelName, run->samplerText(), run->pieces,
                                        &run->generation};
    return reportingExport(m_session,
                           [&] { exporting::writeGenerationCsv(path.toStdString(), file); });
}

bool GenerationView::exportFigure(const QString& path) {
    if (!canExport()) {
        return false;
    }
    const auto run = m_document.run();
    render::FigurePage page;
    page.pixelSize = generationFigureSize(*run, step());
    page.title = tr("Attention while generating");
    const int s = step();
    const HeadId head = shownHead();
    const int key = focusKey();
    return reportingExport(m_session, [&] {
        render::writeFigureFile(path, page, [&](QPainter& p) {
            paintGenerationFigure(p, page.pixelSize, *run, s, head, key);
        });
    });
}

void GenerationView::useAsSentence() {
    const auto run = m_document.run();
    if (!run) {
        return;
    }
    QString text = m_session->text();
    if (m_session->takesTokenIds()) {
        for (const forward::GenerationStep& s : run->generation.steps) {
            text += QStringLiteral(" %1").arg(s.token);
        }
    } else {
        text += QString::fromStdString(run->continuation);
    }
    m_session->setText(text);
}

}  // namespace attnscope::app
