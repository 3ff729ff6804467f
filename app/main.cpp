// attnscope: the desktop application. Everything but start-up lives in attnscope_gui.
#include <QApplication>

#include "main_window.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QApplication::setApplicationName(QStringLiteral("AttnScope"));
    attnscope::app::MainWindow window;
    window.show();
    return QApplication::exec();
}
