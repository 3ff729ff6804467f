// The test objects of the suites that drive a real main window, so that each suite need not
// declare the same set-up slots: a suite's class derives from one of them (and links
// app_test_support, where they are moc'd), and QTest finds the inherited slots by name.
#pragma once

#include <initializer_list>
#include <memory>

#include <QDockWidget>
#include <QLabel>
#include <QObject>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QString>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"

namespace attnscope::app::paneltest {

// From initTestCase on, the suite's settings are kept apart from the user's and from those of
// the other suites that ctest runs at the same time: each under its own application name,
// "AttnScope" and the test class's name (without its namespace), emptied of what an earlier run
// of the suite left (a map budget, a window state).
class WindowTest : public QObject {
    Q_OBJECT

protected:
    void useOwnSettings();

private slots:

    void initTestCase() { useOwnSettings(); }
};

// As WindowTest, and every case starts with a new shown window (paneltest::shownWindow), which
// is closed after it.
class FreshWindowTest : public WindowTest {
    Q_OBJECT

private slots:

    void init() { m_window = shownWindow(); }

    void cleanup() { m_window.reset(); }

protected:
    // Opens `path` in the window and shows `text` (paneltest::openWithText): the session, or
    // null when either failed.
    AnalysisSession* open(const QString& path, const QString& text) {
        return openWithText(*m_window, path, text);
    }

    std::unique_ptr<MainWindow> m_window;
};

// As WindowTest, and every case starts with openCase and ends with closeCase (PanelFixture:
// the panel's window). A template cannot declare slots, hence this class.
class PanelTest : public WindowTest {
    Q_OBJECT

protected:
    virtual void openCase() = 0;
    virtual void closeCase() = 0;

private slots:

    void init() { openCase(); }

    void cleanup() { closeCase(); }
};

// A corpus panel: its object name, and its background job: the signal the job ends with (false:
// failed, cancelled or replaced), what starts it on a corpus file, and whether it runs.
template <typename Panel>
struct PanelSpec {
    QString objectName;
    void (Panel::*finished)(bool);
    void (Panel::*start)(const QString&);
    bool (Panel::*busy)() const;
};

// The test object of the corpus panel suites: the panel (by object name) in a window that has
// the corpus model open, anew for every case (a suite with more to check there declares its own
// init slot), and its job run to the end. `kSpec` names the panel: a constant of the suite.
template <typename Panel, const PanelSpec<Panel>& kSpec>
class PanelFixture : public PanelTest {
protected:
    void openCase() override { QVERIFY(openPanel()); }

    void closeCase() override { closeWindow(); }

    // The start of the suite's initTestCase: its own settings, and the whole suite skipped
    // when the corpus model is missing; false then, and initTestCase should return.
    bool startSuite() {
        useOwnSettings();
        const QString missing = missingCheckpoint(kCorpusModel);
        if (!missing.isEmpty()) {
            QTest::qSkip(qPrintable(missing), __FILE__, __LINE__);
            return false;
        }
        return true;
    }

    // m_small and m_large, files `small` and `large` in m_dir, written by `write` (a path and a
    // number of copies) with one copy and with `largeCopies`.
    void writeCorpora(const QString& small, const QString& large, int largeCopies,
                      bool (*write)(const QString&, int)) {
        QVERIFY(m_dir.isValid());
        m_small = m_dir.filePath(small);
        m_large = m_dir.filePath(large);
        QVERIFY(write(m_small, 1));
        QVERIFY(write(m_large, largeCopies));
    }

    // A shown window with the first-run layout, `model` open and the panel in it; false when
    // the model did not load or the panel is missing.
    bool openPanel(const QString& model = kCorpusModel) {
        m_window = windowWithModel(model);
        m_panel = m_window ? m_window->template findChild<Panel*>(kSpec.objectName) : nullptr;
        return m_panel != nullptr;
    }

    void closeWindow() {
        m_window.reset();
        m_panel = nullptr;
    }

    void openModel(const QString& path) { QVERIFY(openModelIn(*m_window, path)); }

    // Runs the panel's job on `corpus` and waits (two minutes at most) for its success.
    void runJob(const QString& corpus) {
        QSignalSpy done(m_panel, kSpec.finished);
        (m_panel->*kSpec.start)(corpus);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        QCOMPARE(done.takeFirst().at(0).toBool(), true);
        QVERIFY(!(m_panel->*kSpec.busy)());
    }

    // As runJob, with the panel's settings first set to `request`.
    template <typename Request>
    void runJob(const QString& corpus, const Request& request) {
        m_panel->setRequest(request);
        runJob(corpus);
    }

    // Starts the job on the whole of m_large (a `Request` without a sentence limit): long enough
    // to cancel mid-way.
    template <typename Request>
    void startLongJob() {
        Request all;
        all.maxSentences = 0;
        m_panel->setRequest(all);
        (m_panel->*kSpec.start)(m_large);
    }

    // Spies on how the panel's job ends: its end signal, and the errors the session reports.
    // Made before the job starts.
    struct JobEnd {
        QSignalSpy finished;
        QSignalSpy errors;
        QSignalSpy notes;  // a cancelled job's notice is a note, not an error
    };

    JobEnd spyOnJobEnd() const {
        return {QSignalSpy(m_panel, kSpec.finished),
                QSignalSpy(m_window->session(), &AnalysisSession::errorReported),
                QSignalSpy(m_window->session(), &AnalysisSession::noteReported)};
    }

    // The job started on `fileName`, missing from m_dir, fails within 30 s and names it; what
    // `shown` returns (the result the panel shows) is the same after as before.
    template <typename Shown>
    void expectMissingFileFails(const QString& fileName, Shown shown) {
        const auto before = shown();
        JobEnd end = spyOnJobEnd();
        (m_panel->*kSpec.start)(m_dir.filePath(fileName));  // may fail before it returns
        expectJobFailed(end.finished, end.errors, fileName, 30000);
        QCOMPARE(shown(), before);
    }

    // The running job, cancelled with the Cancel button `cancelName`, ends cancelled within a
    // minute, as `end` tells.
    void expectCancelledBy(const QString& cancelName, const JobEnd& end) {
        QVERIFY((m_panel->*kSpec.busy)());
        clickCancel(cancelName);
        expectJobFailed(end.finished, end.notes, QStringLiteral("cancelled"), 60000);
        QCOMPARE(end.errors.count(), 0);
    }

    // The panel's table exported to `csv` and its results to `h5`, both written within 30 s.
    void exportCsvAndResults(const QString& csv, const QString& h5) {
        QSignalSpy written(m_window->service(), &ComputeService::exportFinished);
        QVERIFY(m_panel->exportCsv(csv));
        QVERIFY(m_panel->exportResults(h5));
        expectExportsWritten(written, 2);
    }

    template <typename Widget = QWidget>
    Widget* child(const QString& name) const {
        return m_window->template findChild<Widget*>(name);
    }

    // Clicks the panel's visible Cancel button.
    void clickCancel(const QString& name) {
        auto* cancel = child<QPushButton>(name);
        QVERIFY(cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
    }

    QDockWidget* raiseDock(const QString& name) {
        auto* dock = child<QDockWidget>(name);
        dock->show();
        dock->raise();
        return dock;
    }

    // A central tab other than the Head view's, so that a click on the panel's heatmap or table
    // can be seen to bring the Head view back.
    QTabWidget* leaveHeadView() {
        auto* tabs = child<QTabWidget>(QStringLiteral("viewTabs"));
        tabs->setCurrentIndex(2);
        return tabs;
    }

    // At a 1024 x 700 window, the job run on m_small with `request` opens the dock `dockName`;
    // the panel fits it, its summary `summaryName` is one line with the whole text in its tool
    // tip, and each of `parts` is still at least 100 px tall.
    template <typename Request>
    void expectFitsSmallWindow(const Request& request, const QString& dockName,
                               const QString& summaryName,
                               std::initializer_list<const QWidget*> parts) {
        m_window->resize(1024, 700);
        runJob(m_small, request);
        auto* dock = child<QDockWidget>(dockName);
        QTRY_VERIFY(dock->isVisible());
        QTest::qWait(200);  // the dock's first-open resize is queued
        const QString fit = dockedPanelFitProblem(*m_window, dock, m_panel);
        QVERIFY2(fit.isEmpty(), qPrintable(fit));
        auto* summary = child<QLabel>(summaryName);
        QCOMPARE(summary->toolTip(), m_panel->summaryText());
        QVERIFY(summary->height() < 2 * summary->fontMetrics().height());
        for (const QWidget* part : parts) {
            QVERIFY(part->height() >= 100);
        }
    }

    QTemporaryDir m_dir;  // corpora and exports
    QString m_small;      // a corpus quick to run
    QString m_large;      // a corpus long enough to cancel mid-run
    std::unique_ptr<MainWindow> m_window;
    Panel* m_panel = nullptr;
};

}  // namespace attnscope::app::paneltest
