// attnscope [MODEL_DIR] [--text "…"]: the desktop application. Everything but start-up lives
// in attnscope_gui. The command line is read under a QCoreApplication, before the QApplication
// exists, so --help, --version and usage errors need no display (issue 13).
#include <variant>

#include <QApplication>
#include <QCoreApplication>

#include "analyses/coref/coref_dock.h"
#include "analyses/importance/importance_dock.h"
#include "analyses/survey/survey_dock.h"
#include "attnscope/base/memory_reuse.h"
#include "attnscope/base/version.h"
#include "command_line.h"
#include "main_window.h"

int main(int argc, char** argv) {
    attnscope::keepFreedMemoryForReuse();
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationVersion(QString::fromUtf8(attnscope::version().data()));
    std::variant<attnscope::app::CommandLine, int> parsed;
    {
        const QCoreApplication core(argc, argv);  // decodes argv as Qt does; needs no display
        parsed = attnscope::app::parseCommandLine(QCoreApplication::arguments());
    }
    if (const int* exitCode = std::get_if<int>(&parsed)) {
        return *exitCode;
    }
    const attnscope::app::CommandLine& commandLine = std::get<attnscope::app::CommandLine>(parsed);

    QApplication app(argc, argv);
    // Wayland desktops match the window to its menu entry (packaging/linux) by this name.
    QGuiApplication::setDesktopFileName(QStringLiteral(ATTNSCOPE_APP_ID));
    attnscope::app::MainWindow window;
    window.show();
    window.start(commandLine.modelDir, commandLine.text);
    if (commandLine.coref) {
        attnscope::app::scoreCorefWhenOpen(&window, window.session(), window.service(),
                                           *commandLine.coref);
    }
    if (commandLine.importance) {
        attnscope::app::computeImportanceWhenOpen(&window, window.session(), window.service(),
                                                  *commandLine.importance);
    }
    if (commandLine.survey) {
        attnscope::app::surveyWhenOpen(&window, window.session(), window.service(),
                                       *commandLine.survey);
    }
    return QApplication::exec();
}
