// The desktop app's command line (app/command_line.h), and the attnscope binary started with no
// display at all (no DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM): --help, --version and usage
// errors must answer without one instead of Qt aborting for want of xcb. Issue 13.
#include "command_line.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QSignalSpy>
#include <QTest>

#include "attnscope/base/version.h"

namespace attnscope::app {

namespace {

struct AppRun {
    bool finished = false;
    QProcess::ExitStatus status = QProcess::CrashExit;
    int exitCode = -1;
    QString out;
    QString err;
};

// Runs the built attnscope with `args` and an environment stripped of every display.
AppRun runWithoutDisplay(const QStringList& args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) {
        env.remove(QString::fromLatin1(name));
    }
    QProcess process;
    process.setProcessEnvironment(env);
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(QStringLiteral(ATTNSCOPE_APP), args);
    AppRun r;
    r.finished = finished.wait(60000);
    if (!r.finished) {
        process.kill();
        finished.wait(5000);
        return r;
    }
    r.status = process.exitStatus();
    r.exitCode = process.exitCode();
    r.out = QString::fromLocal8Bit(process.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(process.readAllStandardError());
    return r;
}

}  // namespace

class CommandLineTest : public QObject {
    Q_OBJECT

private slots:

    void helpNeedsNoDisplay() {
        for (const QString& option : {QStringLiteral("--help"), QStringLiteral("-h")}) {
            const AppRun r = runWithoutDisplay({option});
            QVERIFY2(r.finished, "attnscope --help did not finish");
            QCOMPARE(r.status, QProcess::NormalExit);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QVERIFY2(r.out.contains(QStringLiteral("MODEL_DIR")), qPrintable(r.out));
            QVERIFY2(r.out.contains(QStringLiteral("--text <TEXT>")), qPrintable(r.out));
            QVERIFY2(r.out.contains(QStringLiteral("Look inside transformer attention")),
                     qPrintable(r.out));
        }
    }

    void versionNeedsNoDisplay() {
        const AppRun r = runWithoutDisplay({QStringLiteral("--version")});
        QVERIFY2(r.finished, "attnscope --version did not finish");
        QCOMPARE(r.status, QProcess::NormalExit);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString expected =
            QStringLiteral("AttnScope ") + QString::fromUtf8(attnscope::version().data());
        QCOMPARE(r.out.trimmed(), expected);
    }

    void usageErrorsNeedNoDisplay_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--frobnicate")}
                                        << QStringLiteral("Unknown option 'frobnicate'");
        QTest::newRow("missing value") << QStringList{QStringLiteral("--text")}
                                       << QStringLiteral("Missing value after '--text'");
        QTest::newRow("two folders") << QStringList{QStringLiteral("a"), QStringLiteral("b")}
                                     << QStringLiteral("at most one MODEL_DIR");
    }

    void usageErrorsNeedNoDisplay() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const AppRun r = runWithoutDisplay(args);
        QVERIFY2(r.finished, "attnscope did not finish");
        QCOMPARE(r.status, QProcess::NormalExit);
        QCOMPARE(r.exitCode, kUsageError);
        QVERIFY2(r.err.startsWith(QStringLiteral("attnscope: ")), qPrintable(r.err));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("--help")), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void readsModelFolderAndText() {
        const auto parsed =
            parseCommandLine({QStringLiteral("attnscope"), QStringLiteral("models/bert"),
                              QStringLiteral("--text"), QStringLiteral("the [MASK] sat")});
        QVERIFY(std::holds_alternative<CommandLine>(parsed));
        const CommandLine& line = std::get<CommandLine>(parsed);
        QCOMPARE(line.modelDir, QStringLiteral("models/bert"));
        QCOMPARE(line.text, std::optional(QStringLiteral("the [MASK] sat")));
        const auto none = parseCommandLine({QStringLiteral("attnscope")});
        QVERIFY(std::holds_alternative<CommandLine>(none));
        QVERIFY(std::get<CommandLine>(none).modelDir.isEmpty());
        QVERIFY(!std::get<CommandLine>(none).text);
    }

    // The QApplication created after parsing takes Qt's own options; they are no usage error.
    void leavesQtOptionsToQApplication() {
        const auto parsed = parseCommandLine(
            {QStringLiteral("attnscope"), QStringLiteral("-platform"), QStringLiteral("offscreen"),
             QStringLiteral("--style=fusion"), QStringLiteral("-reverse"), QStringLiteral("dir"),
             QStringLiteral("-qwindowgeometry"), QStringLiteral("800x600"),
             QStringLiteral("--text"), QStringLiteral("hi")});
        QVERIFY(std::holds_alternative<CommandLine>(parsed));
        QCOMPARE(std::get<CommandLine>(parsed).modelDir, QStringLiteral("dir"));
        QCOMPARE(std::get<CommandLine>(parsed).text, std::optional(QStringLiteral("hi")));
        // After "--" everything is a positional argument, even what looks like a Qt option.
        const auto rest = parseCommandLine(
            {QStringLiteral("attnscope"), QStringLiteral("--"), QStringLiteral("-reverse")});
        QVERIFY(std::holds_alternative<CommandLine>(rest));
        QCOMPARE(std::get<CommandLine>(rest).modelDir, QStringLiteral("-reverse"));
    }
};

}  // namespace attnscope::app

QTEST_MAIN(attnscope::app::CommandLineTest)
#include "command_line_test.moc"
