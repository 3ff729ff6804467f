// attnscope [MODEL_DIR] [--text "…"]: the desktop application. Everything but start-up lives
// in attnscope_gui.
#include <QApplication>
#include <QCommandLineParser>

#include "attnscope/base/version.h"
#include "main_window.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QApplication::setApplicationName(QStringLiteral("AttnScope"));
    QApplication::setApplicationVersion(QString::fromUtf8(attnscope::version().data()));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Look inside transformer attention: every head, live."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("MODEL_DIR"),
                                 QStringLiteral("Hugging Face model folder to open"));
    const QCommandLineOption text(QStringLiteral("text"), QStringLiteral("Sentence to show"),
                                  QStringLiteral("TEXT"));
    parser.addOption(text);
    parser.process(app);

    attnscope::app::MainWindow window;
    window.show();
    const QStringList args = parser.positionalArguments();
    window.start(args.value(0),
                 parser.isSet(text) ? std::optional(parser.value(text)) : std::nullopt);
    return QApplication::exec();
}
