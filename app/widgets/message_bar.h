// An in-window bar for errors ("Could not open the model: …") and warnings ("Warning: ignored 1
// unknown tensor(s): …"), so both are seen where the user works and never only on stderr.
// Errors are red with the critical icon, warnings amber with the warning icon, notes neutral
// with the information icon: a harmless loader warning must not read as a failure. Hidden until
// a message arrives; closable; the newest message replaces the one shown. A message may carry
// one action the user can take about it ("Truncate to 512 tokens").
#pragma once

#include <functional>

#include <QFrame>

class QLabel;
class QPushButton;

namespace attnscope::app {

class MessageBar : public QFrame {
    Q_OBJECT

public:
    enum class Severity { Error, Warning, Note };

    explicit MessageBar(QWidget* parent = nullptr);

    // An error.
    void showMessage(const QString& message);
    // An error with a button that runs `action` and dismisses the bar.
    void showMessage(const QString& message, const QString& actionText,
                     std::function<void()> action);
    void showWarning(const QString& message);
    void showNote(const QString& message);

    QString text() const;

    Severity severity() const { return m_severity; }

private:
    void present(Severity severity, const QString& message, const QString& actionText,
                 std::function<void()> action);

    QLabel* m_icon;
    QLabel* m_label;
    QPushButton* m_action;
    std::function<void()> m_run;
    Severity m_severity = Severity::Error;
};

}  // namespace attnscope::app
