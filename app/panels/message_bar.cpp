#include "panels/message_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

namespace attnscope::app {

MessageBar::MessageBar(QWidget* parent)
    : QFrame(parent), m_label(new QLabel(this)), m_action(new QPushButton(this)) {
    m_action->setObjectName(QStringLiteral("messageAction"));
    m_action->hide();
    setObjectName(QStringLiteral("messageBar"));
    m_label->setObjectName(QStringLiteral("messageText"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setFrameShape(QFrame::StyledPanel);
    // A warm background that reads in light and dark palettes alike, with dark text on it.
    setStyleSheet(
        QStringLiteral("#messageBar { background: #f6d6c9; border: 1px solid #c0573a; "
                       "border-radius: 3px; } #messageText { color: #3a1205; }"));
    auto* close = new QToolButton(this);
    close->setObjectName(QStringLiteral("messageClose"));
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_action);
    layout->addWidget(close);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    connect(m_action, &QPushButton::clicked, this, [this] {
        hide();
        const std::function<void()> run = std::move(m_run);  // it may show another message
        m_run = {};
        if (run) {
            run();
        }
    });
    hide();
}

void MessageBar::showMessage(const QString& message) {
    showMessage(message, {}, {});
}

void MessageBar::showMessage(const QString& message, const QString& actionText,
                             std::function<void()> action) {
    m_label->setText(message);
    m_action->setText(actionText);
    m_action->setVisible(!actionText.isEmpty() && action);
    m_run = std::move(action);
    show();
}

QString MessageBar::text() const {
    return isVisible() ? m_label->text() : QString();
}

}  // namespace attnscope::app
