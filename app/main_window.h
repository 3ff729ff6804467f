// The main window: lays out the views and docks, keeps settings, and wires user actions to
// the session and the compute service. Holds no analysis logic, and knows the analyses only
// through analyses/registry.h.
//
// Layout: a message bar on top of either the welcome page (no model yet) or the view tabs (Head,
// Lines, then the analyses' tabs); docks for the model grid (left), mask & scale and predictions
// (right, tabbed), the sentence list and the analyses' docks (bottom, tabbed, closed until used;
// settings/window_layout.h); the sentence field in the tool bar; the status line below.
#pragma once

#include <optional>

#include <QMainWindow>

#include "analyses/registry.h"
#include "settings/window_layout.h"

class QDockWidget;
class QLineEdit;
class QMenu;
class QStackedWidget;
class QTabWidget;
class QAction;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
class ExportDialog;
class HeadView;
class MessageBar;
class SentencePanel;
class StatusLine;
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
    void wireTreebankSentences();
    void wireSession();
    void restoreSettings();
    void saveSettings() const;
    void rememberModel(const QString& path);
    void refreshRecentMenu();
    void showStartPage();
    void askForModelFolder();
    void askForGgufFile();

    AnalysisSession* m_session;
    ComputeService* m_service;
    MessageBar* m_messages = nullptr;
    QStackedWidget* m_pages = nullptr;
    WelcomePage* m_welcome = nullptr;
    QTabWidget* m_tabs = nullptr;
    SentencePanel* m_sentences = nullptr;
    HeadView* m_headView = nullptr;
    QLineEdit* m_sentenceEdit = nullptr;
    TargetInput* m_target = nullptr;  // encoder-decoder models only
    QAction* m_targetAction = nullptr;
    StatusLine* m_status = nullptr;
    QMenu* m_recentMenu = nullptr;
    ExportDialog* m_exportDialog = nullptr;
    QStringList m_recent;
    AnalysisHost m_host;  // what the registered analyses are lent (buildBottomDocks)
    WindowLayout m_layout{this};
    bool m_firstRunDocks = false;  // no saved dock layout: size the docks once shown
    bool m_fitted = false;         // the frame was fitted on the screen at the first show
};

}  // namespace attnscope::app
