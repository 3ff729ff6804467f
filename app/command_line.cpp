#include "command_line.h"

#include <cstdio>

#include <QCommandLineParser>

namespace attnscope::app {

namespace {

// Qt's options for GUI applications (the QGuiApplication and QApplication documentation), which
// the QApplication created after parsing removes from the arguments itself. Qt reads "--name"
// as "-name", and "-style=fusion" as "-style fusion".
const QStringList kQtOptionsWithValue = {
    QStringLiteral("platform"),        QStringLiteral("platformpluginpath"),
    QStringLiteral("platformtheme"),   QStringLiteral("plugin"),
    QStringLiteral("qwindowgeometry"), QStringLiteral("qwindowicon"),
    QStringLiteral("qwindowtitle"),    QStringLiteral("session"),
    QStringLiteral("display"),         QStringLiteral("geometry"),
    QStringLiteral("title"),           QStringLiteral("icon"),
    QStringLiteral("style"),           QStringLiteral("stylesheet")};
const QStringList kQtFlags = {QStringLiteral("reverse"), QStringLiteral("widgetcount"),
                              QStringLiteral("testability")};

bool isQtOptionWithInlineValue(const QString& name) {
    for (const char* prefix : {"style=", "stylesheet=", "qmljsdebugger="}) {
        if (name.startsWith(QLatin1String(prefix))) {
            return true;
        }
    }
    return false;
}

QStringList withoutQtOptions(const QStringList& arguments) {
    QStringList out;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString& arg = arguments[i];
        if (arg == QLatin1String("--")) {  // the rest are positional, whatever they look like
            out << arguments.mid(i);
            break;
        }
        const QString name = arg.startsWith(QLatin1String("--")) ? arg.mid(2)
                             : arg.startsWith(QLatin1Char('-'))  ? arg.mid(1)
                                                                 : QString();
        if (i == 0 || name.isEmpty()) {
            out << arg;
        } else if (kQtOptionsWithValue.contains(name)) {
            ++i;  // and its value
        } else if (!kQtFlags.contains(name) && !isQtOptionWithInlineValue(name)) {
            out << arg;
        }
    }
    return out;
}

int usageError(const QString& message) {
    std::fprintf(stderr, "attnscope: %s\nTry 'attnscope --help' for the options.\n",
                 qPrintable(message));
    return kUsageError;
}

}  // namespace

std::variant<CommandLine, int> parseCommandLine(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Look inside transformer attention: every head, live."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("MODEL_DIR"),
        QStringLiteral("Hugging Face model folder, or .gguf file, to open"));
    const QCommandLineOption text(QStringLiteral("text"), QStringLiteral("Sentence to show"),
                                  QStringLiteral("TEXT"));
    parser.addOption(text);
    const QCommandLineOption coref(
        QStringLiteral("coref"),
        QStringLiteral("Score coreference on a CorefUD treebank once the model is open, and show "
                       "the Coreference dock"),
        QStringLiteral("FILE"));
    parser.addOption(coref);
    const QCommandLineOption importance(
        QStringLiteral("importance"),
        QStringLiteral("Compute head importance on a sentence file (.txt, .conllu) once the model "
                       "is open, and show the Importance dock"),
        QStringLiteral("FILE"));
    parser.addOption(importance);
    const QCommandLineOption survey(
        QStringLiteral("survey"),
        QStringLiteral("Survey every head (scores, labels, head map) on a sentence file (.txt, "
                       ".conllu) once the model is open, and show the Survey dock"),
        QStringLiteral("FILE"));
    parser.addOption(survey);
    const QStringList ours = withoutQtOptions(arguments);
    if (!parser.parse(ours)) {
        return usageError(parser.errorText());
    }
    parser.process(ours);  // prints --help, --help-all or --version and exits; else returns
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        return usageError(QStringLiteral("expected at most one MODEL_DIR, found %1: %2")
                              .arg(positional.size())
                              .arg(positional.join(QStringLiteral(", "))));
    }
    CommandLine line;
    line.modelDir = positional.value(0);
    if (parser.isSet(text)) {
        line.text = parser.value(text);
    }
    if (parser.isSet(coref)) {
        line.coref = parser.value(coref);
    }
    if (parser.isSet(importance)) {
        line.importance = parser.value(importance);
    }
    if (parser.isSet(survey)) {
        line.survey = parser.value(survey);
    }
    return line;
}

}  // namespace attnscope::app
