#include "widgets/message_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QToolButton>

namespace attnscope::app {

namespace {

struct Look {
    QStyle::StandardPixmap icon;
    const char* background;
    const char* border;
    const char* text;
};

// Light backgrounds with dark text, so each reads in light and dark palettes alike; the hues
// are the usual ones (red failure, amber caution, grey-blue note) and the icon says it again for
// readers who do not tell the colours apart.
Look lookOf(MessageBar::Severity severity) {
    switch (severity) {
        case MessageBar::Severity::Warning:
            return {QStyle::SP_MessageBoxWarning, "#fdf0c2", "#c99a06", "#3d2e00"};
        case MessageBar::Severity::Note:
            return {QStyle::SP_MessageBoxInformation, "#e3ebf5", "#6f8db3", "#102a43"};
        case MessageBar::Severity::Error:
            break;
    }
    return {QStyle::SP_MessageBoxCritical, "#f6d6c9", "#c0573a", "#3a1205"};
}

}  // namespace

MessageBar::MessageBar(QWidget* parent)
    : QFrame(parent),
      m_icon(new QLabel(this)),
      m_label(new QLabel(this)),
      m_action(new QPushButton(this)) {
    m_action->setObjectName(QStringLiteral("messageAction"));
    m_action->hide();
    setObjectName(QStringLiteral("messageBar"));
    m_icon->setObjectName(QStringLiteral("messageIcon"));
    m_label->setObjectName(QStringLiteral("messageText"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setFrameShape(QFrame::StyledPanel);
    auto* close = new QToolButton(this);
    close->setObjectName(QStringLiteral("messageClose"));
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
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
    present(Severity::Error, message, {}, {});
}

void MessageBar::showMessage(const QString& message, const QString& actionText,
                             std::function<void()> action) {
    present(Severity::Error, message, actionText, std::move(action));
}

void MessageBar::showWarning(const QString& message) {
    present(Severity::Warning, message, {}, {});
}

void MessageBar::showNote(const QString& message) {
    present(Severity::Note, message, {}, {});
}

void MessageBar::present(Severity severity, const QString& message, const QString& actionText,
                         std::function<void()> action) {
    m_severity = severity;
    const Look look = lookOf(severity);
    setStyleSheet(QStringLiteral("#messageBar { background: %1; border: 1px solid %2; "
                                 "border-radius: 3px; } #messageText { color: %3; }")
                      .arg(QLatin1String(look.background), QLatin1String(look.border),
                           QLatin1String(look.text)));
    const int side = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setPixmap(style()->standardIcon(look.icon, nullptr, this).pixmap(side, side));
    m_label->setText(message);
    m_action->setText(actionText);
    m_action->setVisible(!actionText.isEmpty() && action);
    m_run = std::move(action);
    QFrame::show();
}

QString MessageBar::text() const {
    return isVisible() ? m_label->text() : QString();
}

}  // namespace attnscope::app
