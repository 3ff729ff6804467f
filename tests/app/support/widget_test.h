// The test object of the suites that build widgets without a main window (a suite's class
// derives from it and links app_test_support, where it is moc'd; QTest finds the inherited slot
// by name), and what they do with such a widget: show it, and save a picture of it.
#pragma once

#include <QObject>
#include <QStandardPaths>
#include <QString>
#include <QTest>
#include <QWidget>
#include <QtGlobal>

namespace attnscope::test {

// From initTestCase on, QStandardPaths answers with its test locations, so nothing a widget
// stores there reaches the user's folders.
class WidgetTest : public QObject {
    Q_OBJECT

private slots:

    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
};

// `widget` at width x height, shown; false when it was not exposed (nothing painted then).
inline bool showExposed(QWidget& widget, int width, int height) {
    widget.resize(width, height);
    widget.show();
    return QTest::qWaitForWindowExposed(&widget);
}

// The folder ATTNSCOPE_SHOT_DIR names, for a case that only writes pictures for people; empty,
// and the case skipped, when it is unset: the case should return then.
inline QString shotDirOrSkip() {
    const QString dir = qEnvironmentVariable("ATTNSCOPE_SHOT_DIR");
    if (dir.isEmpty()) {
        QTest::qSkip("set ATTNSCOPE_SHOT_DIR to write the pictures", __FILE__, __LINE__);
    }
    return dir;
}

// Not a check: `widget` saved to `path` for people to judge, once the paints that its last
// change queued are done; false when it could not be written.
inline bool saveShot(QWidget& widget, const QString& path) {
    QTest::qWait(50);
    return widget.grab().save(path);
}

}  // namespace attnscope::test
