// The main window: lays out the views and docks, keeps settings, and wires user actions to
// the session and the compute service. Holds no analysis logic.
//
// Layout: a message bar on top of either the welcome page (no model yet) or the view tabs
// (Head, Lines, Compare, Entropy, Offsets); docks for the model grid (left), mask & scale and
// predictions (right, tabbed) and the sentence list, dependency and coreference scoring
// (bottom, tabbed, closed until used; settings/window_layout.h); the sentence field in the
// tool bar.
#pragma once

#include <optional>

#include <QMainWindow>

#include "settings/window_layout.h"

class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QToolButton;
class QAction;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
class CorefPanel;
class DependencyPanel;
class EntropyChartsView;
class ExportDialog;
class HeadGridModel;
class HeadGridView;
class HeadView;
class MessageBar;
class SentencePanel;
class TargetInput;
class WelcomePage;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    AnalysisSession* session() const { return m_session; }

    ComputeService* service() const { return m_service; }

    // Start-up: open `modelDir` if given, else the last model; `text` (if given) or a sample
    // sentence goes into the sentence field.
    void start(const QString& modelDir, const std::optional<QString>& text);
    void openModel(const QString& path);
    // Scores coreference on `path` (CorefUD) as soon as a model is open (--coref).
    void scoreCorefWhenOpen(const QString& path);

    // Exports, as the File ▸ Export menu runs them after its file dialog. HDF5 and CSV files
    // are written in the background (ComputeService::exportFile, which tells how it ended);
    // false when there is nothing to export. Errors go to the message bar.
    bool exportHdf5(const QString& path);
    bool exportStatsCsv(const QString& path);
    // Three files beside `path`: <name>-head-entropy, -query-entropy, -max-logit (.png/.svg).
    bool exportCharts(const QString& path);
    // The (non-modal) figure export dialog, created on first use.
    ExportDialog* exportDialog();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildViews();
    void buildDocks();
    void buildBottomDocks();
    QDockWidget* addDock(const QString& title, const char* name, QWidget* content,
                         Qt::DockWidgetArea area);
    void buildMenus();
    void addExportMenu(QMenu* file);  // File ▸ Export (main_window_exports.cpp)
    void buildToolBar();
    void wireDependencies();
    void wireSession();
    void restoreSettings();
    void saveSettings() const;
    void rememberModel(const QString& path);
    void refreshRecentMenu();
    void updateStatus();
    void showStartPage();
    void askForModelFolder();

    AnalysisSession* m_session;
    ComputeService* m_service;
    HeadGridModel* m_gridModel = nullptr;
    HeadGridView* m_grid = nullptr;
    MessageBar* m_messages = nullptr;
    QStackedWidget* m_pages = nullptr;
    WelcomePage* m_welcome = nullptr;
    QTabWidget* m_tabs = nullptr;
    SentencePanel* m_sentences = nullptr;
    DependencyPanel* m_dependencies = nullptr;
    QDockWidget* m_dependencyDock = nullptr;
    CorefPanel* m_coref = nullptr;
    QDockWidget* m_corefDock = nullptr;
    HeadView* m_headView = nullptr;
    QLineEdit* m_sentenceEdit = nullptr;
    TargetInput* m_target = nullptr;  // encoder-decoder models only
    QAction* m_targetAction = nullptr;
    QLabel* m_statusModel = nullptr;
    QLabel* m_statusCompute = nullptr;
    QProgressBar* m_loadProgress = nullptr;
    QToolButton* m_cancelLoad = nullptr;
    QMenu* m_recentMenu = nullptr;
    ExportDialog* m_exportDialog = nullptr;
    EntropyChartsView* m_charts = nullptr;
    QStringList m_recent;
    WindowLayout m_layout{this};
    bool m_firstRunDocks = false;  // no saved dock layout: size the docks once shown
    bool m_fitted = false;         // the frame was fitted on the screen at the first show
};

}  // namespace attnscope::app
