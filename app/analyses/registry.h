// The one list of the app's analyses. The main window knows an analysis only through its entry
// here: it builds its own frame (the head views, the sentence list, mask and scale, the menus'
// fixed entries) and then asks every registered analysis, in order, for its tabs and docks and
// for its File menu entries. Adding an analysis is a folder under analyses/ with a function
// returning its Analysis, and one line in registry.cpp; removing one is the reverse (README,
// "Layout").
#pragma once

#include <functional>
#include <vector>

class QDockWidget;
class QMainWindow;
class QMenu;
class QTabWidget;
class QWidget;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;

// What the window lends an analysis to put itself there. GUI thread only.
struct AnalysisHost {
    QMainWindow* window = nullptr;
    AnalysisSession* session = nullptr;
    ComputeService* service = nullptr;
    QTabWidget* tabs = nullptr;          // the view tabs (Head, Lines, then the analyses')
    QDockWidget* bottomDock = nullptr;   // the bottom tab group (Sentences)
    std::function<void()> showHeadView;  // brings the Head tab to the front
};

struct Analysis {
    const char* name;  // for messages and tests: "survey"
    // Adds its tabs and docks; null when it has none.
    std::function<void(const AnalysisHost&)> addViews;
    // Adds its entries to the File menu's corpus group (before the Export entries); null when
    // it has none. Called after every analysis' addViews.
    std::function<void(const AnalysisHost&, QMenu* file)> addFileEntries;
};

// In the order their tabs, docks and menu entries appear.
const std::vector<Analysis>& registeredAnalyses();

// The analysis of a view that is one tab of the view tabs and nothing else: `make(session,
// tabs)` under `title`, given untranslated (QT_TRANSLATE_NOOP("QObject", ...)) because the tab
// is named when the window asks, not when the entry is written.
Analysis tabAnalysis(const char* name, const char* title,
                     std::function<QWidget*(AnalysisSession*, QWidget* parent)> make);

// The usual case: the tab is `View(session, parent)`.
template <class View>
Analysis tabAnalysis(const char* name, const char* title) {
    return tabAnalysis(name, title, [](AnalysisSession* session, QWidget* parent) -> QWidget* {
        return new View(session, parent);
    });
}

// Brings the window's dock named `dockName` (its object name, a string literal:
// "predictionDock") to the front whenever `tab`, one of the view tabs, becomes the current one:
// for a tab whose inputs are picked in that dock. Nothing happens while the window has no such
// dock.
void raiseDockWithTab(const AnalysisHost& host, QWidget* tab, const char* dockName);

}  // namespace attnscope::app
