// An in-window bar for errors ("Could not open the model: …"), so failures are seen where the
// user works and never only on stderr. Hidden until a message arrives; closable.
#pragma once

#include <QFrame>

class QLabel;

namespace attnscope::app {

class MessageBar : public QFrame {
    Q_OBJECT

public:
    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(const QString& message);

    QString text() const;

private:
    QLabel* m_label;
};

}  // namespace attnscope::app
