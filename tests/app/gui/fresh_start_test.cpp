// A fresh start (no model given, no settings): the app opens the model it ships with its
// [MASK] sample sentence and shows the Predictions panel for it.
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "session/default_model.h"
#include "window_test.h"

namespace attnscope::app {

class FreshStartTest : public paneltest::WindowTest {
    Q_OBJECT

private slots:

    void opensTheShippedModelWithItsMaskSentenceAndPredictions() {
        QVERIFY2(!defaultModelDir().isEmpty(), "resources/default_model not found");
        MainWindow window;
        paneltest::showWindow(window);
        QSignalSpy computed(window.service(), &ComputeService::computeFinished);
        window.start(QString(), std::nullopt);
        QVERIFY(computed.wait(60000));
        QCOMPARE(window.session()->modelPath(), defaultModelDir());
        const QString text = window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"))->text();
        QVERIFY2(text.contains(QStringLiteral("[MASK]")), qPrintable(text));
        auto* predictions = window.findChild<QDockWidget*>(QStringLiteral("predictionDock"));
        auto* mask = window.findChild<QDockWidget*>(QStringLiteral("maskDock"));
        QVERIFY(predictions != nullptr && mask != nullptr);
        QTRY_VERIFY(!predictions->visibleRegion().isEmpty());
        QVERIFY(mask->visibleRegion().isEmpty());  // tabbed behind Predictions
    }

    // A folder named on the command line is opened even when it is broken, so the user reads
    // why instead of silently getting another model (issue 14).
    void aBrokenFolderOnTheCommandLineIsReported() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString loop = tmp.filePath(QStringLiteral("loop"));
        QVERIFY(QFile::link(loop, loop));
        for (const auto& [path, reason] :
             {std::pair{tmp.filePath(QStringLiteral("nope")), QStringLiteral("No such file")},
              std::pair{loop, QStringLiteral("Too many levels of symbolic links")}}) {
            MainWindow window;
            window.show();
            QSignalSpy reported(window.session(), &AnalysisSession::errorReported);
            window.start(path, std::nullopt);
            QVERIFY(reported.wait(30000));
            const QString message = reported.takeFirst().at(0).toString();
            QVERIFY2(message.contains(path) && message.contains(reason), qPrintable(message));
            QVERIFY(!window.session()->model());
        }
    }
};

}  // namespace attnscope::app

QTEST_MAIN(attnscope::app::FreshStartTest)
#include "fresh_start_test.moc"
