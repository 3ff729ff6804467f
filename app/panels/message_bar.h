// An in-window bar for errors ("Could not open the model: …"), so failures are seen where the
// user works and never only on stderr. Hidden until a message arrives; closable. A message may
// carry one action the user can take about it ("Truncate to 512 tokens").
#pragma once

#include <functional>

#include <QFrame>

class QLabel;
class QPushButton;

namespace attnscope::app {

class MessageBar : public QFrame {
    Q_OBJECT

public:
    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(const QString& message);
    // With a button that runs `action` and dismisses the bar.
    void showMessage(const QString& message, const QString& actionText,
                     std::function<void()> action);

    QString text() const;

private:
    QLabel* m_label;
    QPushButton* m_action;
    std::function<void()> m_run;
};

}  // namespace attnscope::app
