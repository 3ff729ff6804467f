// What the GUI tests that drive a real main window share: a test application's settings kept
// apart from the user's, a window laid out as at first start, a model opened and a sentence
// shown in it; and for the corpus panels (Dependencies, Coreference, Importance, Survey): corpora
// written, a failed or cancelled job, exports written, a heatmap cell clicked (their test
// object, PanelFixture, is in window_test.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <variant>

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QString>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

#include "command_line.h"
#include "main_window.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"

namespace attnscope::app::paneltest {

inline void usePanelTestSettings(const QString& applicationName) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(applicationName);
}

// A checkpoint of the test fixtures by folder name, e.g. "bert_f32".
inline QString checkpointDir(const char* name) {
    return QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/") + QString::fromLatin1(name);
}

// The size every window test starts at: the whole first-run layout fits.
inline void showWindow(MainWindow& window) {
    window.resize(1400, 900);
    window.show();
}

inline std::unique_ptr<MainWindow> shownWindow() {
    auto window = std::make_unique<MainWindow>();
    showWindow(*window);
    return window;
}

// Opens `path` in `window` and waits for it; false when it did not load within `ms`.
inline bool openModelIn(MainWindow& window, const QString& path, int ms = 30000) {
    QSignalSpy loaded(window.service(), &ComputeService::loadFinished);
    window.openModel(path);
    return loaded.wait(ms) && loaded.takeFirst().at(0).toBool();
}

// Shows `window` and opens `path` in it; false when it did not load within `ms`.
inline bool showWithModel(MainWindow& window, const QString& path, int ms = 20000) {
    showWindow(window);
    return openModelIn(window, path, ms);
}

// Opens `path` and shows `text`, each within 20 s; the session, or null when either failed.
inline AnalysisSession* openWithText(MainWindow& window, const QString& path, const QString& text) {
    if (!openModelIn(window, path, 20000)) {
        return nullptr;
    }
    AnalysisSession* s = window.session();
    s->setText(text);
    const bool shown = QTest::qWaitFor(
        [&] { return s->result() && s->result()->text == text.toStdString(); }, 20000);
    return shown ? s : nullptr;
}

// Types `text` into the emptied sentence field and waits (20 s at most) for its analysis; false
// when there is no field or no analysis of that text came.
inline bool typeSentence(MainWindow& window, const QString& text) {
    auto* edit = window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    if (!edit) {
        return false;
    }
    edit->clear();
    QTest::keyClicks(edit, text);
    AnalysisSession* s = window.session();
    return QTest::qWaitFor([&] { return s->result() && s->result()->text == text.toStdString(); },
                           20000);
}

// With an encoder-decoder open: types `source` into the emptied source field and `target` into
// the (empty) target field, then waits (20 s at most) for the analysis of both; false when a field
// is missing or no such analysis came.
inline bool typeSourceAndTarget(MainWindow& window, const QString& source, const QString& target) {
    auto* sourceEdit = window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    auto* targetEdit = window.findChild<QLineEdit*>(QStringLiteral("targetEdit"));
    if (!sourceEdit || !targetEdit) {
        return false;
    }
    sourceEdit->clear();
    QTest::keyClicks(sourceEdit, source);
    QTest::keyClicks(targetEdit, target);
    AnalysisSession* s = window.session();
    return QTest::qWaitFor(
        [&] {
            return s->seq2seq() && s->seq2seq()->encoder.text == source.toStdString() &&
                   s->seq2seq()->targetText == target.toStdString();
        },
        20000);
}

// A shown 1400 x 900 window with the first-run layout (no dock state saved by an earlier case)
// and `path` open; null when the model did not load.
inline std::unique_ptr<MainWindow> windowWithModel(const QString& path) {
    QSettings().clear();
    auto window = shownWindow();
    return openModelIn(*window, path) ? std::move(window) : nullptr;
}

// A corpus panel in its bottom dock at a small window (issue 30): the dock opens at a quarter of
// the window so that the head map keeps about half, where the panel scrolls at its minimum
// height, never laid out taller than that (a wrapped summary's height-for-width did); once the
// dock is 300 px tall the panel shows whole. Empty when all holds, else what did not.
inline QString dockedPanelFitProblem(MainWindow& window, QDockWidget* dock, const QWidget* panel) {
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    if (!scroll) {
        return QStringLiteral("the dock holds no scroll area");
    }
    const auto problem = [&] {
        return QStringLiteral("panel %1 px in a viewport of %2 px")
            .arg(panel->height())
            .arg(scroll->viewport()->height());
    };
    if (panel->height() >
        std::max(scroll->viewport()->height(), panel->minimumSizeHint().height())) {
        return problem();
    }
    window.resizeDocks({dock}, {300}, Qt::Vertical);
    QTest::qWait(50);
    return panel->height() <= scroll->viewport()->height() ? QString() : problem();
}

// The corpus panels' model: a small random BERT with a real WordPiece vocabulary (ctest fixture
// deps_checkpoints), so that treebank words are tokenized as a real model would.
inline const QString kCorpusModel = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/deps/bert_wordpiece");

// A causal model with grouped key/value heads (8 query heads on 2): what the corpus panels offer
// only some models.
inline const QString kGqaModel = checkpointDir("llama3_gqa4_f32");

// UD English-EWT dev, the real treebank beside the repo (ATTNSCOPE_SHARED_DIR); tests that need
// it skip when it is absent.
inline const QString kEwtDev =
    QStringLiteral(ATTNSCOPE_SHARED_DIR "/data/ud/UD_English-EWT/en_ewt-ud-dev.conllu");

// Why a test skips when `dir` holds no checkpoint (made by the ctest fixture `fixture`); empty
// when it holds one.
inline QString missingCheckpoint(const QString& dir, const char* fixture = "deps_checkpoints") {
    if (QFile::exists(dir + QStringLiteral("/config.json"))) {
        return {};
    }
    return QStringLiteral("no checkpoint at %1 (run the %2 fixture)")
        .arg(dir, QString::fromLatin1(fixture));
}

// The plain-text corpus of the Importance and Survey tests: varied, short, English sentences.
inline constexpr const char* kCorpusSentences[] = {
    "The keys to the cabinet are on the table.", "She greeted him warmly at the door.",
    "Paris is a big city with many museums.",    "The old dog slept near the fire all afternoon.",
    "We will meet again when the rain stops.",   "A small bird sang in the garden this morning.",
};

inline bool writeText(const QString& path, const QString& text) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        return false;
    }
    QTextStream(&file) << text;
    return true;
}

// kCorpusSentences `copies` times, a sentence a line: once for a quick run, many times for a
// run long enough to cancel mid-way.
inline bool writeCorpusSentences(const QString& path, int copies) {
    QString text;
    for (int i = 0; i < copies; ++i) {
        for (const char* s : kCorpusSentences) {
            text += QString::fromUtf8(s) + QLatin1Char('\n');
        }
    }
    return writeText(path, text);
}

// Copies the first `n` sentences (blank-line separated, as in CoNLL-U) of `from` to `to`.
inline bool copyFirstSentences(const QString& from, const QString& to, int n) {
    QFile in(from);
    QFile out(to);
    if (!in.open(QIODevice::ReadOnly | QIODevice::Text) ||
        !out.open(QIODevice::WriteOnly | QIODevice::Text)) {
        return false;
    }
    int done = 0;
    while (done < n && !in.atEnd()) {
        const QByteArray line = in.readLine();
        out.write(line);
        done += line.trimmed().isEmpty() ? 1 : 0;
    }
    return done == n;
}

// Runs the tasks in order on this thread: the core's own run in one share, to compare with
// what the panel computed on the service's pool.
inline void sequential(std::size_t n, const std::function<void(std::size_t)>& task) {
    for (std::size_t i = 0; i < n; ++i) {
        task(i);
    }
}

// The entry of a menu of `window`'s menu bar with that object name or that text (an empty one
// matches nothing); null when there is none (yet: some menus are filled once a model is open).
inline QAction* findMenuAction(QMainWindow* window, const QString& objectName,
                               const QString& text = {}) {
    for (QAction* menu : window->menuBar()->actions()) {
        for (QAction* a : menu->menu() ? menu->menu()->actions() : QList<QAction*>{}) {
            if ((!objectName.isEmpty() && a->objectName() == objectName) ||
                (!text.isEmpty() && a->text() == text)) {
                return a;
            }
        }
    }
    return nullptr;
}

// The entries of `window`'s first menu, File.
inline QList<QAction*> fileMenuActions(QMainWindow* window) {
    return window->menuBar()->actions().front()->menu()->actions();
}

// The window's command line `attnscope OPTION FILE`; empty when it does not parse.
inline std::optional<CommandLine> commandLineWith(const char* option, const QString& file) {
    const auto parsed =
        parseCommandLine({QStringLiteral("attnscope"), QString::fromLatin1(option), file});
    const auto* line = std::get_if<CommandLine>(&parsed);
    return line ? std::optional<CommandLine>(*line) : std::nullopt;
}

// Exports `window`'s analysis to HDF5 at `path`, in the background: the export starts, the
// service reports its end within `ms`, and the file was written or (`written` false) not.
inline void expectHdf5Export(MainWindow& window, const QString& path, bool written,
                             int ms = 30000) {
    QSignalSpy finished(window.service(), &ComputeService::exportFinished);
    QVERIFY(window.exportHdf5(path));
    QVERIFY(finished.wait(ms));
    QCOMPARE(finished.first().at(1).toBool(), written);
}

// After a job that must fail: `finished` reports failure once within `ms` and the one error
// reported names `says` (the file, or "cancelled").
inline void expectJobFailed(const QSignalSpy& finished, const QSignalSpy& errors,
                            const QString& says, int ms) {
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, ms);
    QCOMPARE(finished.first().at(0).toBool(), false);
    QCOMPARE(errors.count(), 1);
    const QString message = errors.first().at(0).toString();
    QVERIFY2(message.contains(says), qPrintable(message));
}

// Waits (a minute at most) until a job's `progress` spy has reported work done.
inline bool progressed(const QSignalSpy& progress) {
    return QTest::qWaitFor([&] { return !progress.isEmpty() && progress.last().at(0).toInt() > 0; },
                           60000);
}

// The `count` exports the service started are written, each successfully, within 30 s.
inline void expectExportsWritten(const QSignalSpy& written, int count) {
    QTRY_COMPARE_WITH_TIMEOUT(written.count(), count, 30000);
    for (int i = 0; i < count; ++i) {
        QCOMPARE(written.at(i).at(1).toBool(), true);
    }
}

// Clicks cell (row, column) of `heatmap` once it is shown large enough to hit.
inline void clickCell(HeatmapWidget* heatmap, int row, int column) {
    QTRY_VERIFY(heatmap->isVisible() && heatmap->cellRect(row, column).width() > 2);
    QTest::mouseClick(heatmap, Qt::LeftButton, {},
                      heatmap->cellRect(row, column).center().toPoint());
}

}  // namespace attnscope::app::paneltest
