// What the README screenshot drivers (readme_screenshots, lab_screenshots) share: letting the
// views repaint, the window at the shots' size, and saving a grab. Not a test; GUI thread.
#pragma once

#include <cstdio>

#include <QDir>
#include <QEventLoop>
#include <QString>
#include <QStringList>
#include <QTimer>

#include "main_window.h"

namespace attnscope::app::shots {

// Runs the event loop for `ms`, so that views repaint.
inline void settle(int ms = 400) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

// Shows `w` at the README's 1500×940, or at ATTNSCOPE_SHOT_SIZE (e.g. 1024x700) to try
// another size.
inline void showAtShotSize(MainWindow& w) {
    const QStringList size = qEnvironmentVariable("ATTNSCOPE_SHOT_SIZE").split(QLatin1Char('x'));
    w.resize(size.size() == 2 ? QSize(size[0].toInt(), size[1].toInt()) : QSize(1500, 940));
    w.show();
}

// Saves the window as `dir`/`name` once the views have repainted.
inline void shot(MainWindow& w, const QString& dir, const char* name) {
    settle();
    const QString path = QDir(dir).filePath(QLatin1String(name));
    w.grab().save(path);
    std::printf("wrote %s\n", qPrintable(path));
}

}  // namespace attnscope::app::shots
