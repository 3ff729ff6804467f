// Beside the Predictions position: a field to pick a token that is not among the five listed as
// the target (Enter) or the distractor (Ctrl+Enter) of the logit attribution, the lens and
// patching (AnalysisSession::pickTarget / pickDistractor; lookUpToken says what may be typed).
// Its status — the tokens picked, wherever they rank, or why the text typed picked nothing — is
// for the panel's note line (statusChanged), so the dock grows no taller. GUI thread only.
#pragma once

#include <QWidget>

class QLineEdit;

namespace attnscope::app {

class AnalysisSession;

class TokenPickField : public QWidget {
    Q_OBJECT

public:
    explicit TokenPickField(AnalysisSession* session, QWidget* parent = nullptr);

    QLineEdit* edit() const { return m_edit; }

    // The picks in words, or why the last text typed picked nothing; empty with no picks.
    QString statusText() const { return m_status; }

    // What Enter (as_distractor false) or Ctrl+Enter does with the field's text; false, with
    // the reason on the status line, when it names no single token.
    bool pick(bool asDistractor);

signals:
    void statusChanged(const QString& text);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showPicked();
    void setStatus(const QString& text);

    AnalysisSession* m_session;
    QLineEdit* m_edit;
    QString m_status;
};

}  // namespace attnscope::app
