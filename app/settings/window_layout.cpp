#include "settings/window_layout.h"

#include <algorithm>
#include <memory>

#include <QDockWidget>
#include <QMainWindow>
#include <QMargins>
#include <QScreen>
#include <QTimer>

#include "settings/app_settings.h"

namespace attnscope::app {

void WindowLayout::captureFirstRun() {
    m_firstRun = m_window->saveState(AppSettings::kWindowStateVersion);
}

bool WindowLayout::restore(const AppSettings& settings) {
    if (!m_window->restoreGeometry(settings.windowGeometry())) {
        const QScreen* screen = m_window->screen();
        m_window->resize(
            firstRunWindowSize(screen != nullptr ? screen->availableGeometry() : QRect()));
        m_unfitted = m_window->size();
    }
    return m_window->restoreState(settings.windowState(), AppSettings::kWindowStateVersion);
}

void WindowLayout::save(AppSettings& settings) const {
    settings.setWindowGeometry(m_window->saveGeometry());
    settings.setWindowState(m_window->saveState(AppSettings::kWindowStateVersion));
}

void WindowLayout::reset(AppSettings& settings) {
    settings.forgetWindowState();
    m_window->restoreState(m_firstRun, AppSettings::kWindowStateVersion);
    QTimer::singleShot(0, m_window, [this] { sizeDocks(); });
}

// The grid about a fifth of the width (its thumbnails scale with it), the right-hand panels
// enough for a prediction's token, bar and percentage; neither below its dock's minimum, which
// resizeDocks enforces anyway.
void WindowLayout::sizeDocks() {
    auto* grid = m_window->findChild<QDockWidget*>(QStringLiteral("gridDock"));
    auto* right = m_window->findChild<QDockWidget*>(QStringLiteral("predictionDock"));
    if (grid != nullptr && right != nullptr) {
        const int width = m_window->width();
        m_window->resizeDocks({grid, right},
                              {std::clamp(width / 5, 200, 380), std::clamp(width / 5, 220, 300)},
                              Qt::Horizontal);
    }
}

// Nine tenths of a large screen (the heads want the room; a fixed 1400 × 900 left a 1920 × 1080
// screen a third empty), all of a laptop's: at 1366 × 768 and below every pixel counts.
QSize WindowLayout::firstRunWindowSize(const QRect& available) {
    if (available.isEmpty()) {
        return {1400, 900};
    }
    const QSize all = available.size();
    return all.width() <= 1366 ? all : all * 0.9;
}

void WindowLayout::fitOnScreen() {
    const QScreen* screen = m_window->screen();
    if (screen == nullptr || m_unfitted != m_window->size() ||
        (m_window->windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen)) !=
            Qt::WindowNoState) {
        return;
    }
    const QRect inner = m_window->geometry();
    const QRect outer = m_window->frameGeometry();
    const QMargins frame(inner.left() - outer.left(), inner.top() - outer.top(),
                         outer.right() - inner.right(), outer.bottom() - inner.bottom());
    const QRect fitted = fittedGeometry(inner, frame, screen->availableGeometry());
    if (fitted != inner) {
        m_window->setGeometry(fitted);
        m_unfitted = m_window->size();  // checked again once the window manager has framed it
    }
}

QRect WindowLayout::fittedGeometry(const QRect& geometry, const QMargins& frame,
                                   const QRect& available) {
    if (available.isEmpty()) {
        return geometry;
    }
    const QRect room = available.marginsRemoved(frame);
    QRect fitted(geometry.topLeft(), geometry.size().boundedTo(room.size()));
    fitted.moveLeft(std::clamp(fitted.left(), room.left(), room.right() - fitted.width() + 1));
    fitted.moveTop(std::clamp(fitted.top(), room.top(), room.bottom() - fitted.height() + 1));
    return fitted;
}

int WindowLayout::bottomDockHeight(int windowHeight) {
    return windowHeight / 4;
}

void WindowLayout::sizeOnFirstShow(QMainWindow* window, QDockWidget* dock) {
    auto sized = std::make_shared<bool>(false);
    QObject::connect(dock, &QDockWidget::visibilityChanged, window, [window, dock, sized](bool on) {
        if (on && !*sized) {
            *sized = true;
            QTimer::singleShot(0, window, [window, dock] {
                window->resizeDocks({dock}, {bottomDockHeight(window->height())}, Qt::Vertical);
            });
        }
    });
}

}  // namespace attnscope::app
