#include "widgets/placeholder_stack.h"

#include <QLabel>
#include <QVBoxLayout>

namespace attnscope::app {

PlaceholderStack::PlaceholderStack(QWidget* parent)
    : QStackedWidget(parent), m_placeholder(new QLabel(this)) {
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setForegroundRole(QPalette::PlaceholderText);
    addWidget(m_placeholder);
    auto* layout = new QVBoxLayout(parent);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(this);
}

void PlaceholderStack::setPage(QWidget* page) {
    addWidget(page);
}

void PlaceholderStack::showPlaceholder(const QString& text) {
    m_placeholder->setText(text);
    setCurrentIndex(0);
}

void PlaceholderStack::showPage() {
    setCurrentIndex(1);
}

bool PlaceholderStack::showsPage() const {
    return currentIndex() == 1;
}

}  // namespace attnscope::app
