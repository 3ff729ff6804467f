#include "widgets/placeholder_view.h"

#include <utility>

#include <QLabel>

namespace attnscope::app {

PlaceholderView::PlaceholderView(const char* name, std::function<void(bool)> onViewed,
                                 QWidget* parent)
    : QWidget(parent), m_stack(new PlaceholderStack(this)), m_onViewed(std::move(onViewed)) {
    const QString prefix = QLatin1String(name);
    setObjectName(prefix + QLatin1String("View"));
    m_stack->setObjectName(prefix + QLatin1String("Stack"));
    m_stack->placeholder()->setObjectName(prefix + QLatin1String("Placeholder"));
}

bool PlaceholderView::hasResult() const {
    return m_stack->showsPage();
}

QString PlaceholderView::placeholderText() const {
    return m_stack->showsPage() ? QString() : m_stack->placeholder()->text();
}

void PlaceholderView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_onViewed) {
        m_onViewed(true);
    }
}

void PlaceholderView::hideEvent(QHideEvent* event) {
    QWidget::hideEvent(event);
    if (m_onViewed) {
        m_onViewed(false);
    }
}

}  // namespace attnscope::app
