#include "main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenuBar>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStringListModel>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/alignment/target_input.h"
#include "analyses/corpus/one_stack_docks.h"
#include "analyses/registry.h"
#include "attnscope/base/error.h"
#include "dialogs/export_dialog.h"
#include "panels/cached_models_menu.h"
#include "panels/local_models.h"
#include "panels/mask_panel.h"
#include "panels/model_grid_panel.h"
#include "panels/prediction_panel.h"
#include "panels/sentence_panel.h"
#include "panels/status_line.h"
#include "panels/welcome_page.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "session/default_model.h"
#include "settings/app_settings.h"
#include "views/ablation_menu.h"
#include "views/head_grid_view.h"
#include "views/head_view.h"
#include "views/line_view.h"
#include "widgets/message_bar.h"
#include "widgets/panel_scroll_area.h"
#include "widgets/sentence_field.h"
#include "widgets/theme.h"

namespace attnscope::app {

namespace {

const char* const kSampleSentence = "The keys to the cabinet are on the table.";
const char* const kMaskedSampleSentence = "The keys to the cabinet are on the [MASK].";
// A repeated span: the circuits model's induction head attends from the second copy of each
// token to the token after its first copy, and predicts it.
const char* const kRepeatedSampleSentence =
    "the old man walked to the river . the old man walked to the river .";
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
    // The analyses' tabs follow (buildDocks: analyses/registry.h).
    m_pages->addWidget(m_welcome);
    m_pages->addWidget(m_tabs);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_messages);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);
    connect(m_welcome, &WelcomePage::openRequested, this, &MainWindow::askForModelFolder);
    connect(m_welcome, &WelcomePage::openFileRequested, this, &MainWindow::askForGgufFile);
    connect(m_welcome, &WelcomePage::modelChosen, this, &MainWindow::openModel);
    connect(m_welcome, &WelcomePage::backRequested, this,
            [this] { m_pages->setCurrentWidget(m_tabs); });
}

void MainWindow::buildDocks() {
    auto* gridPage = new ModelGridPanel(m_session, this);
    connect(gridPage->grid(), &HeadGridView::headActivated, this,
            [this] { m_tabs->setCurrentIndex(0); });
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
    wireTreebankSentences();
}

QDockWidget* MainWindow::addDock(const QString& title, const char* name, QWidget* content,
                                 Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QString::fromLatin1(name));
    dock->setWidget(content);
    addDockWidget(area, dock);
    return dock;
}

// The Sentences dock starts closed (window_layout.h) and opens when sentences are loaded; every
// registered analysis then adds its tabs and docks (the corpus docks tab with Sentences).
void MainWindow::buildBottomDocks() {
    m_sentences = new SentencePanel(m_session, this);
    QDockWidget* sentenceDock =
        addDock(tr("Sentences"), "sentenceDock", m_sentences, Qt::BottomDockWidgetArea);
    m_host = AnalysisHost{this,   m_session,    m_service,
                          m_tabs, sentenceDock, [this] { m_tabs->setCurrentIndex(0); }};
    for (const Analysis& analysis : registeredAnalyses()) {
        if (analysis.addViews) {
            analysis.addViews(m_host);
        }
    }
    sentenceDock->hide();
    connect(m_sentences->sentences(), &QAbstractItemModel::modelReset, sentenceDock,
            [this, sentenceDock] {
                if (m_sentences->sentences()->rowCount() > 0) {
                    sentenceDock->show();
                }
            });
    // Opened at its minimum, the list shows one row (later, the user's size stands).
    WindowLayout::sizeOnFirstShow(this, sentenceDock);
}

void MainWindow::wireTreebankSentences() {
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

    m_status = new StatusLine(statusBar(), m_session, m_service);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open model…"), QKeySequence::Open, this, &MainWindow::showStartPage)
        ->setObjectName(QStringLiteral("openModelAction"));
    file->addAction(tr("Open &GGUF file…"), this, &MainWindow::askForGgufFile)
        ->setObjectName(QStringLiteral("openGgufAction"));
    m_recentMenu = file->addMenu(tr("Open &recent"));
    addCachedModelsMenu(file, [this](const QString& dir) { openModel(dir); });
    file->addAction(tr("&Load sentences…"), QKeySequence(Qt::CTRL | Qt::Key_L), m_sentences,
                    &SentencePanel::askForFile);
    for (const Analysis& analysis : registeredAnalyses()) {
        if (analysis.addFileEntries) {
            analysis.addFileEntries(m_host, file);
        }
    }
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
    connect(m_session, &AnalysisSession::noteReported, m_messages, &MessageBar::showNote);
    connect(m_session, &AnalysisSession::inputTooLong, this, [this](int tokens, int limit) {
        m_messages->showMessage(
            tr("This text has %1 tokens; the model reads at most %2 (its positions). The views "
               "still show the last text that fitted.")
                .arg(tokens)
                .arg(limit),
            tr("Truncate to %1 tokens").arg(limit),
            [this] { m_session->setTruncateLongInput(true); });
    });
    connect(m_session, &AnalysisSession::modelChanged, this, [this] {
        m_targetAction->setVisible(m_session->isEncoderDecoder());
        m_pages->setCurrentWidget(m_tabs);
        setWindowTitle(tr("AttnScope — %1").arg(modelTitle(m_session->modelPath())));
    });
    connect(m_service, &ComputeService::loadFinished, this, [this](bool ok, const QString& path) {
        if (ok) {
            rememberModel(path);
        }
    });
}

void MainWindow::start(const QString& modelDir, const std::optional<QString>& text) {
    const AppSettings settings;
    const QString last = settings.lastModel();
    QString path = !modelDir.isEmpty() ? modelDir : last;
    // A fresh start (no folder given, none used before) opens the model AttnScope ships, with
    // a sentence whose [MASK] shows its predictions. The last model may be a folder or a GGUF
    // file.
    const bool fresh = path.isEmpty() || !QFileInfo::exists(path);
    if (modelDir.isEmpty() && fresh && !defaultModelDir().isEmpty()) {
        path = defaultModelDir();
    }
    const char* sample = path == defaultModelDir() ? kMaskedSampleSentence : kSampleSentence;
    m_sentenceEdit->setText(text.value_or(settings.lastText(QString::fromLatin1(sample))));
    m_welcome->setModels(m_recent);
    m_pages->setCurrentWidget(m_welcome);
    if (!modelDir.isEmpty()) {
        openModel(modelDir);  // even when it is not a folder: the loader's error says why
    } else if (!path.isEmpty() && QFileInfo::exists(path)) {
        openModel(path);
    }
    if (path == defaultModelDir() && m_sentenceEdit->text().contains(QStringLiteral("[MASK]"))) {
        // The sample sentence is there to show what the model predicts at [MASK].
        findChild<QDockWidget*>(QStringLiteral("predictionDock"))->raise();
    }
}

void MainWindow::openModel(const QString& path) {
    m_messages->hide();
    // The masked sample means nothing to the causal circuits model: give it a repeated span.
    if (!circuitsModelDir().isEmpty() && QFileInfo(path) == QFileInfo(circuitsModelDir()) &&
        m_sentenceEdit->text() == QLatin1String(kMaskedSampleSentence)) {
        m_sentenceEdit->setText(QString::fromLatin1(kRepeatedSampleSentence));
    }
    m_service->openModel(QFileInfo(path).absoluteFilePath());
}

// The start page lists the shipped, recent and local models; its buttons ask for a folder or a
// GGUF file.
void MainWindow::showStartPage() {
    m_welcome->setModels(m_recent);
    m_welcome->setOpenModel(m_session->model() ? modelTitle(m_session->modelPath()) : QString());
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

void MainWindow::askForGgufFile() {
    auto* dialog = new QFileDialog(this, tr("Open a GGUF model file"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    // Ollama's blobs have no extension (blobs/sha256-<hex>): "All files" lets them be chosen.
    dialog->setNameFilters({tr("GGUF models (*.gguf)"), tr("All files (*)")});
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
        m_recentMenu->addAction(recentModelLabel(path), this, [this, path] { openModel(path); });
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
