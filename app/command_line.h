// The desktop app's command line: attnscope [MODEL_DIR] [--text TEXT] [--coref FILE]
// [--importance FILE] [--survey FILE]. main.cpp parses it before any QApplication exists, so
// --help, --version and usage errors work without a display (a QApplication aborts when it finds
// none). Call from the GUI thread; needs no Qt application object, but --help prints the
// executable's name only when a QCoreApplication exists.
#pragma once

#include <optional>
#include <variant>

#include <QString>
#include <QStringList>

namespace attnscope::app {

struct CommandLine {
    QString modelDir;              // empty: the model used last, or the one AttnScope ships
    std::optional<QString> text;   // --text
    std::optional<QString> coref;  // --coref: a CorefUD file to score once the model is open
    // --importance: sentences (.txt or .conllu) to compute head importance on once it is open
    std::optional<QString> importance;
    // --survey: sentences (.txt or .conllu) to survey the heads on once it is open
    std::optional<QString> survey;
};

// Exit code of a usage error (an unknown option, a missing value, two model folders), as
// attnscope-cli uses.
inline constexpr int kUsageError = 2;

// Parses `arguments` (QCoreApplication::arguments(): the program, then its arguments). --help,
// --help-all and --version print to stdout and exit with 0, as QCommandLineParser::process
// does. A usage error is printed to stderr and returned as kUsageError. Qt's own options for GUI
// applications (-platform, -style, ...) are passed over: the QApplication takes them.
std::variant<CommandLine, int> parseCommandLine(const QStringList& arguments);

}  // namespace attnscope::app
