#include "window_test.h"

namespace attnscope::app::paneltest {

void WindowTest::useOwnSettings() {
    const QString name = QString::fromLatin1(metaObject()->className());
    usePanelTestSettings(QStringLiteral("AttnScope") + name.mid(name.lastIndexOf(u':') + 1));
    QSettings().clear();
}

}  // namespace attnscope::app::paneltest
