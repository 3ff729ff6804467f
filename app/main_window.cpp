#include "main_window.h"

#include <algorithm>

#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QProgressBar>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStringListModel>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/ablation/ablation_menu.h"
#include "analyses/alignment/alignment_view.h"
#include "analyses/alignment/target_input.h"
#include "analyses/attribution/method_compare_view.h"
#include "analyses/compare/compare_view.h"
#include "analyses/coref/coref_dock.h"
#include "analyses/coref/coref_panel.h"
#include "analyses/corpus/one_stack_docks.h"
#include "analyses/dependencies/dependency_panel.h"
#include "analyses/entropy/entropy_charts.h"
#include "analyses/importance/importance_dock.h"
#include "analyses/offsets/offsets_view.h"
#include "analyses/predictions/prediction_panel.h"
#include "analyses/survey/survey_dock.h"
#include "attnscope/base/error.h"
#include "attnscope/model/model_discovery.h"
#include "dialogs/export_dialog.h"
#include "panels/mask_panel.h"
#include "panels/sentence_panel.h"
#include "panels/welcome_page.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "session/default_model.h"
#include "session/head_record_status.h"
#include "settings/app_settings.h"
#include "views/head_grid_model.h"
#include "views/head_grid_view.h"
#include "views/head_view.h"
#include "views/line_view.h"
#include "widgets/attention_kind_combo.h"
#include "widgets/message_bar.h"
#include "widgets/panel_scroll_area.h"
#include "widgets/sentence_field.h"
#include "widgets/theme.h"

namespace attnscope::app {

namespace {

const char* const kSampleSentence = "The keys to the cabinet are on the table.";
const char* const kMaskedSampleSentence = "The keys to the cabinet are on the [MASK].";
// How long after showing the window its frame is checked again (WindowLayout::fitOnScreen).
constexpr int kFrameWaitMs = 300;

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_session(new AnalysisSession(this)),
      m_service(new ComputeService(m_session)) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("AttnScope"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    buildViews();
    buildDocks();
    buildToolBar();
    buildMenus();
    wireSession();
    restoreSettings();
    updateStatus();
}

// The service goes first, explicitly: it cancels and waits for every job, and its jobs' answers
// go into the session, which must outlive it.
MainWindow::~MainWindow() {
    delete m_service;
    m_service = nullptr;
}

void MainWindow::buildViews() {
    auto* central = new QWidget(this);
    m_messages = new MessageBar(central);
    m_pages = new QStackedWidget(central);
    m_pages->setObjectName(QStringLiteral("pages"));
    m_welcome = new WelcomePage(m_pages);
    m_tabs = new QTabWidget(m_pages);
    m_tabs->setObjectName(QStringLiteral("viewTabs"));
    m_headView = new HeadView(m_session, m_tabs);
    m_tabs->addTab(m_headView, tr("Head"));
    m_tabs->addTab(new LineView(m_session, m_tabs), tr("Lines"));
    m_tabs->addTab(new CompareView(m_session, m_tabs), tr("Compare"));
    m_charts = new EntropyChartsView(m_session, m_tabs);
    m_tabs->addTab(m_charts, tr("Entropy"));
    m_tabs->addTab(new OffsetsView(m_session, m_tabs), tr("Offsets"));
    m_tabs->addTab(new MethodCompareView(m_session, m_tabs), tr("Methods"));
    auto* alignment = new AlignmentView(m_tabs);  // issue 20: encoder-decoder models only
    m_tabs->addTab(alignment, tr("Alignment"));
    connect(m_session, &AnalysisSession::resultChanged, alignment,
            [this, alignment] { alignment->setAnalysis(m_session->seq2seq()); });
    connect(m_session, &AnalysisSession::selectedHeadChanged, alignment,
            [this, alignment](HeadId h) {
                if (m_session->attentionKind() == forward::AttentionKind::Cross) {
                    alignment->setHead(h.layer, h.head);
                }
            });
    m_pages->addWidget(m_welcome);
    m_pages->addWidget(m_tabs);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_messages);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);
    connect(m_welcome, &WelcomePage::openRequested, this, &MainWindow::askForModelFolder);
    connect(m_welcome, &WelcomePage::modelChosen, this, &MainWindow::openModel);
    connect(m_welcome, &WelcomePage::backRequested, this,
            [this] { m_pages->setCurrentWidget(m_tabs); });
}

void MainWindow::buildDocks() {
    m_gridModel = new HeadGridModel(this);
    auto* gridPage = new QWidget(this);
    m_grid = new HeadGridView(m_session, m_gridModel, gridPage);
    auto* order = new QComboBox(gridPage);
    order->setObjectName(QStringLiteral("gridOrder"));
    order->addItems({tr("Heads in model order"), tr("Sorted by mean entropy (focused first)"),
                     tr("Sorted by max |logit|")});
    // The longest choice would otherwise set the dock's minimum width; the list shows it whole.
    order->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    order->setMinimumContentsLength(16);
    // Four thumbnails of a readable size and the layer labels; larger models scroll.
    m_grid->setMinimumSize(190, 160);
    auto* gridLayout = new QVBoxLayout(gridPage);
    gridLayout->setContentsMargins(2, 2, 2, 2);
    auto* kind = new AttentionKindCombo(m_session, gridPage);
    kind->setObjectName(QStringLiteral("gridKind"));
    gridLayout->addWidget(kind);  // encoder-decoder models: which kind the thumbnails show
    gridLayout->addWidget(order);
    gridLayout->addWidget(m_grid, 1);
    connect(order, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_gridModel->setOrder(static_cast<HeadGridModel::Order>(i)); });
    connect(m_grid, &HeadGridView::headActivated, this, [this] { m_tabs->setCurrentIndex(0); });

    addDock(tr("Model: layers × heads"), "gridDock", gridPage, Qt::LeftDockWidgetArea);
    // The right-hand panels scroll rather than squeeze their texts when a dock is short, and
    // the dock cannot be made narrower than they need.
    QDockWidget* maskDock =
        addDock(tr("Mask and scale"), "maskDock",
                new PanelScrollArea(new MaskPanel(m_session, this), this), Qt::RightDockWidgetArea);
    // Predictions scroll too: with ablations the clean and ablated lists stand above each
    // other, taller than a laptop's dock, and their minimum pushed the window off the screen.
    QDockWidget* predictionDock = addDock(
        tr("Predictions"), "predictionDock",
        new PanelScrollArea(new PredictionPanel(m_session, this), this), Qt::RightDockWidgetArea);
    // Side by side as tabs: stacked, the two would make the window taller than a laptop screen.
    tabifyDockWidget(maskDock, predictionDock);
    maskDock->raise();
    connect(m_session, &AnalysisSession::selectedTokenChanged, predictionDock,
            [predictionDock](int index) {
                if (index >= 0) {
                    predictionDock->raise();  // the user clicked a row to see its predictions
                }
            });
    buildBottomDocks();
    guardOneStackDocks(this, m_session);
    wireDependencies();
}

QDockWidget* MainWindow::addDock(const QString& title, const char* name, QWidget* content,
                                 Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QString::fromLatin1(name));
    dock->setWidget(content);
    addDockWidget(area, dock);
    return dock;
}

// The Sentences and Dependencies docks start closed (window_layout.h) and open when they get
// something to show: loaded sentences, a scored treebank.
void MainWindow::buildBottomDocks() {
    m_sentences = new SentencePanel(m_session, this);
    QDockWidget* sentenceDock =
        addDock(tr("Sentences"), "sentenceDock", m_sentences, Qt::BottomDockWidgetArea);
    m_dependencies = new DependencyPanel(m_session, m_service, this);
    // Scrolling too: its table and heatmap side by side would otherwise set the window's
    // minimum height past a 1024 × 700 or 1280 × 800 screen.
    auto* dependencyScroll = new QScrollArea(this);
    dependencyScroll->setWidget(m_dependencies);
    dependencyScroll->setWidgetResizable(true);
    dependencyScroll->setFrameShape(QFrame::NoFrame);
    m_dependencyDock =
        addDock(tr("Dependencies"), "dependencyDock", dependencyScroll, Qt::BottomDockWidgetArea);
    tabifyDockWidget(sentenceDock, m_dependencyDock);
    sentenceDock->hide();
    m_dependencyDock->hide();
    const CorefDock coref = addCorefDock(this, m_session, m_service, m_dependencyDock,
                                         [this] { m_tabs->setCurrentIndex(0); });
    m_coref = coref.panel;
    m_corefDock = coref.dock;
    addImportanceDock(this, m_session, m_service, m_corefDock,
                      [this] { m_tabs->setCurrentIndex(0); });
    addSurveyDock(this, m_session, m_service, m_corefDock, [this] { m_tabs->setCurrentIndex(0); });
    connect(m_sentences->sentences(), &QAbstractItemModel::modelReset, sentenceDock,
            [this, sentenceDock] {
                if (m_sentences->sentences()->rowCount() > 0) {
                    sentenceDock->show();
                }
            });
    connect(m_dependencies, &DependencyPanel::treebankScored, m_dependencyDock, &QWidget::show);
    // Opened at its minimum, the table shows one row and the heatmap one layer (later, the
    // user's size stands).
    WindowLayout::sizeOnFirstShow(this, sentenceDock);
    WindowLayout::sizeOnFirstShow(this, m_dependencyDock);
}

void MainWindow::wireDependencies() {
    connect(m_dependencies, &DependencyPanel::headActivated, this,
            [this] { m_tabs->setCurrentIndex(0); });
    // A new treebank also fills the sentence list, letting the user step through its sentences
    // with gold arcs; the sentence they typed stays until they pick one.
    connect(m_session, &AnalysisSession::treebankChanged, this, [this] {
        const auto treebank = m_session->treebank();
        if (!treebank) {
            return;
        }
        QStringList texts;
        for (const std::string& text : treebank->texts) {
            texts << QString::fromStdString(text);
        }
        m_sentences->showSentences(texts, QFileInfo(treebank->path).fileName());
    });
}

void MainWindow::buildToolBar() {
    auto* bar = addToolBar(tr("Sentence"));
    bar->setObjectName(QStringLiteral("sentenceToolBar"));
    bar->setMovable(false);
    auto* open = new QToolButton(bar);
    open->setText(tr("Open model…"));
    open->setObjectName(QStringLiteral("openModelButton"));
    connect(open, &QToolButton::clicked, this, &MainWindow::showStartPage);
    bar->addWidget(open);
    bar->addSeparator();
    // Text, or token ids for a model without tokenizer files (issue 30).
    auto* field = new SentenceField(m_session, bar);
    m_sentenceEdit = field->edit();
    bar->addWidget(field);
    // Encoder-decoder models: the field above is the source, this the target (hidden otherwise).
    m_target = new TargetInput(m_session, m_service, bar);
    m_targetAction = bar->addWidget(m_target);
    m_targetAction->setVisible(false);

    m_statusModel = new QLabel(this);
    m_statusModel->setObjectName(QStringLiteral("statusModel"));
    m_statusCompute = new QLabel(this);
    m_statusCompute->setObjectName(QStringLiteral("statusCompute"));
    m_loadProgress = new QProgressBar(this);
    m_loadProgress->setObjectName(QStringLiteral("loadProgress"));
    m_loadProgress->setRange(0, 1000);
    m_loadProgress->setMaximumWidth(200);
    m_loadProgress->hide();
    m_cancelLoad = new QToolButton(this);
    m_cancelLoad->setObjectName(QStringLiteral("cancelLoad"));
    m_cancelLoad->setText(tr("Cancel"));
    m_cancelLoad->hide();
    connect(m_cancelLoad, &QToolButton::clicked, m_service, &ComputeService::cancelLoad);
    statusBar()->addWidget(m_statusModel, 1);
    statusBar()->addPermanentWidget(m_statusCompute);
    statusBar()->addPermanentWidget(m_loadProgress);
    statusBar()->addPermanentWidget(m_cancelLoad);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open model…"), QKeySequence::Open, this, &MainWindow::showStartPage)
        ->setObjectName(QStringLiteral("openModelAction"));
    m_recentMenu = file->addMenu(tr("Open &recent"));
    QMenu* cache = file->addMenu(tr("From the &Hugging Face cache"));
    cache->setObjectName(QStringLiteral("cacheMenu"));
    connect(cache, &QMenu::aboutToShow, this, [this, cache] {
        cache->clear();
        for (const model::FoundModel& m : model::findCachedModels(huggingFaceHubDir())) {
            QAction* a = cache->addAction(QStringLiteral("%1 (%2)").arg(
                QString::fromStdString(m.name), QString::fromStdString(m.modelType)));
            const QString dir = QString::fromStdString(m.dir.string());
            a->setEnabled(m.supported);
            a->setToolTip(QString::fromStdString(m.note));
            connect(a, &QAction::triggered, this, [this, dir] { openModel(dir); });
        }
        if (cache->isEmpty()) {
            cache
                ->addAction(
                    tr("No models in %1").arg(QString::fromStdString(huggingFaceHubDir().string())))
                ->setEnabled(false);
        }
    });
    file->addAction(tr("&Load sentences…"), QKeySequence(Qt::CTRL | Qt::Key_L), m_sentences,
                    &SentencePanel::askForFile);
    file->addAction(tr("Open &treebank for dependency scoring…"), this, [this] {
        m_dependencyDock->show();
        m_dependencyDock->raise();
        m_dependencies->askForTreebank();
    });
    file->addAction(tr("Score &coreference…"), this, [this] {
        m_corefDock->show();
        m_corefDock->raise();
        m_coref->scoreChosenFile();
    });
    file->addSeparator();
    addExportMenu(file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        view->addAction(d->toggleViewAction());
    }
    QAction* reset = view->addAction(tr("&Reset layout"), this, [this] {
        AppSettings settings;
        m_layout.reset(settings);
    });
    reset->setObjectName(QStringLiteral("resetLayoutAction"));
    reset->setToolTip(tr("Put the panels back where and how large they were on the first start"));
    view->addSeparator();
    QAction* dark = view->addAction(tr("&Dark palette"));
    dark->setObjectName(QStringLiteral("darkPaletteAction"));
    dark->setCheckable(true);
    dark->setChecked(AppSettings().darkPalette());
    applyTheme(dark->isChecked());
    connect(dark, &QAction::toggled, this, [](bool on) {
        applyTheme(on);
        AppSettings().setDarkPalette(on);
    });
    QMenu* heads = menuBar()->addMenu(tr("H&eads"));
    heads->setObjectName(QStringLiteral("headsMenu"));
    heads->addAction(makeClearAblationsAction(m_session, this));
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About AttnScope"), this, [this] {
        m_messages->showNote(
            tr("AttnScope %1. Layers and heads are numbered from 0. Entropies are in nats. "
               "Attention rows are queries, columns are keys. Numbers match PyTorch to 1e-5.")
                .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::wireSession() {
    connect(m_session, &AnalysisSession::errorReported, m_messages,
            qOverload<const QString&>(&MessageBar::showMessage));
    connect(m_session, &AnalysisSession::messageWithdrawn, m_messages, [this](const QString& m) {
        if (m_messages->text() == m) {
            m_messages->hide();
        }
    });
    connect(m_session, &AnalysisSession::warningReported, m_messages, &MessageBar::showWarning);
    connect(m_session, &AnalysisSession::inputTooLong, this, [this](int tokens, int limit) {
        m_messages->showMessage(
            tr("This text has %1 tokens; the model reads at most %2 (its positions). The views "
               "still show the last text that fitted.")
                .arg(tokens)
                .arg(limit),
            tr("Truncate to %1 tokens").arg(limit),
            [this] { m_session->setTruncateLongInput(true); });
    });
    const auto showGrid = [this] {
        m_gridModel->setResult(m_session->result(), m_session->heatmapStyle(),
                               m_session->ablationEffects());
    };
    connect(m_session, &AnalysisSession::resultChanged, this, [this, showGrid] {
        showGrid();
        updateStatus();
    });
    connect(m_session, &AnalysisSession::heatmapStyleChanged, this, showGrid);
    connect(m_session, &AnalysisSession::modelChanged, this, [this] {
        m_targetAction->setVisible(m_session->isEncoderDecoder());
        m_pages->setCurrentWidget(m_tabs);
        setWindowTitle(tr("AttnScope — %1").arg(QFileInfo(m_session->modelPath()).fileName()));
        updateStatus();
    });
    connect(m_service, &ComputeService::loadStarted, this, [this](const QString& path) {
        m_loadProgress->setValue(0);
        m_loadProgress->show();
        m_cancelLoad->show();
        m_statusModel->setText(tr("Opening %1…").arg(path));
    });
    connect(m_service, &ComputeService::loadProgress, this,
            [this](double f) { m_loadProgress->setValue(static_cast<int>(f * 1000)); });
    connect(m_service, &ComputeService::loadFinished, this, [this](bool ok, const QString& path) {
        m_loadProgress->hide();
        m_cancelLoad->hide();
        if (ok) {
            rememberModel(path);
        }
        updateStatus();
    });
    connect(m_service, &ComputeService::exportStarted, this,
            [this](const QString& path) { statusBar()->showMessage(tr("Writing %1…").arg(path)); });
    connect(m_service, &ComputeService::exportFinished, this, [this](const QString& path, bool ok) {
        if (ok) {
            statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
        } else {
            statusBar()->clearMessage();  // the message bar says why
        }
    });
    connect(m_service, &ComputeService::headRecordStarted, this,
            [this](HeadId head) { statusBar()->showMessage(headRecordStatusMessage(head)); });
    connect(m_service, &ComputeService::headRecordFinished, this, [this](HeadId head) {
        // Only our own line: a "Wrote …" shown meanwhile stays for its time.
        if (statusBar()->currentMessage() == headRecordStatusMessage(head)) {
            statusBar()->clearMessage();
        }
    });
}

void MainWindow::updateStatus() {
    const auto model = m_session->model();
    if (!model) {
        m_statusModel->setText(tr("No model open"));
    } else {
        const auto& s = model->spec;
        const QString stacks = model->isEncoderDecoder()
                                   ? tr("encoder %1 layers × %2 heads, decoder %3 × %4")
                                         .arg(s.nLayers)
                                         .arg(s.nHeads)
                                         .arg(model->decoder->spec.nLayers)
                                         .arg(model->decoder->spec.nHeads)
                                   : tr("%1 layers × %2 heads").arg(s.nLayers).arg(s.nHeads);
        m_statusModel->setText(tr("%1 · %2 · d=%3 · %4 weights")
                                   .arg(QString::fromStdString(s.modelType), stacks)
                                   .arg(s.dModel)
                                   .arg(QString::fromStdString(model->storedDtypes)));
    }
    const auto result = m_session->result();
    QString computed = result ? tr("%1 tokens · %2 heads in %3 ms")
                                    .arg(result->forward.nTokens)
                                    .arg(result->forward.nLayers * result->forward.nHeads)
                                    .arg(m_service->lastComputeMilliseconds(), 0, 'f', 1)
                              : QString();
    if (const auto seq2seq = m_session->seq2seq()) {
        // Both sides and the kind shown: "12 tokens" alone would not say of which.
        computed = tr("source %1 · decoder %2 tokens · %3 shown · %4 ms")
                       .arg(seq2seq->encoder.forward.nTokens)
                       .arg(seq2seq->decoder.forward.nTokens)
                       .arg(QString::fromStdString(
                           forward::attentionKindTitle(m_session->attentionKind())))
                       .arg(m_service->lastComputeMilliseconds(), 0, 'f', 1);
    }
    if (m_session->resultIsTruncated()) {
        computed.prepend(tr("truncated to the model's limit · "));
    }
    if (result && m_session->cleanResult() != result) {
        const auto& ablated = result->forward.ablated;
        const auto n = std::count_if(ablated.begin(), ablated.end(),
                                     [](const auto& kind) { return kind.has_value(); });
        computed += n == 1 ? tr(" · 1 head ablated") : tr(" · %1 heads ablated").arg(n);
        if (!m_session->meanSource().isEmpty()) {
            computed += tr(" (means over %1)").arg(m_session->meanSource());
        }
    }
    m_statusCompute->setText(computed);
}

void MainWindow::start(const QString& modelDir, const std::optional<QString>& text) {
    const AppSettings settings;
    const QString last = settings.lastModel();
    QString path = !modelDir.isEmpty() ? modelDir : last;
    // A fresh start (no folder given, none used before) opens the model AttnScope ships, with
    // a sentence whose [MASK] shows its predictions.
    const bool fresh = path.isEmpty() || !QFileInfo(path).isDir();
    if (modelDir.isEmpty() && fresh && !defaultModelDir().isEmpty()) {
        path = defaultModelDir();
    }
    const char* sample = path == defaultModelDir() ? kMaskedSampleSentence : kSampleSentence;
    m_sentenceEdit->setText(text.value_or(settings.lastText(QString::fromLatin1(sample))));
    m_welcome->setModels(m_recent);
    m_pages->setCurrentWidget(m_welcome);
    if (!modelDir.isEmpty()) {
        openModel(modelDir);  // even when it is not a folder: the loader's error says why
    } else if (!path.isEmpty() && QFileInfo(path).isDir()) {
        openModel(path);
    }
    if (path == defaultModelDir() && m_sentenceEdit->text().contains(QStringLiteral("[MASK]"))) {
        // The sample sentence is there to show what the model predicts at [MASK].
        findChild<QDockWidget*>(QStringLiteral("predictionDock"))->raise();
    }
}

void MainWindow::openModel(const QString& path) {
    m_messages->hide();
    m_service->openModel(QFileInfo(path).absoluteFilePath());
}

void MainWindow::scoreCorefWhenOpen(const QString& path) {
    scoreWhenModelOpen(m_coref, m_session, m_service, path);
}

// The start page lists the shipped, recent and cached models; its button asks for a folder.
void MainWindow::showStartPage() {
    m_welcome->setModels(m_recent);
    m_welcome->setOpenModel(m_session->model() ? QFileInfo(m_session->modelPath()).fileName()
                                               : QString());
    m_pages->setCurrentWidget(m_welcome);
    m_welcome->setFocus();
}

void MainWindow::askForModelFolder() {
    auto* dialog = new QFileDialog(this, tr("Open a Hugging Face model folder"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly, true);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openModel);
    dialog->open();
}

void MainWindow::rememberModel(const QString& path) {
    m_recent = AppSettings::withRecentModel(m_recent, path);
    refreshRecentMenu();
    saveSettings();
}

void MainWindow::refreshRecentMenu() {
    m_recentMenu->clear();
    for (const QString& path : m_recent) {
        m_recentMenu->addAction(path, this, [this, path] { openModel(path); });
    }
    m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::restoreSettings() {
    const AppSettings s;
    m_session->setMapBudgetBytes(s.mapBudgetBytes());
    m_recent = s.recentModels();
    refreshRecentMenu();
    m_session->setHeatmapStyle(s.heatmapStyle());
    // Whatever the saved state holds, this is the arrangement View ▸ Reset layout returns to.
    m_layout.captureFirstRun();
    m_firstRunDocks = !m_layout.restore(s);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (!m_fitted) {
        // The frame's size is known once the window manager has framed the window.
        m_fitted = true;
        QTimer::singleShot(0, this, [this] { m_layout.fitOnScreen(); });
        QTimer::singleShot(kFrameWaitMs, this, [this] { m_layout.fitOnScreen(); });
    }
    if (m_firstRunDocks) {
        m_firstRunDocks = false;
        QTimer::singleShot(0, this, [this] { m_layout.sizeDocks(); });
    }
}

void MainWindow::saveSettings() const {
    AppSettings s;
    s.setMapBudgetBytes(m_session->mapBudgetBytes());
    s.setRecentModels(m_recent);
    if (!m_session->modelPath().isEmpty()) {
        s.setLastModel(m_session->modelPath());
    }
    s.setLastText(m_session->text());
    s.setHeatmapStyle(m_session->heatmapStyle());
    m_layout.save(s);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    reopenGuardedDocks(this);  // the layout saved is the user's, not an encoder-decoder's
    saveSettings();
    event->accept();
}

}  // namespace attnscope::app
