// The tool bar's input: "Sentence:" (or "Source:" for an encoder-decoder model) and the field
// whose every edit recomputes all heads. A one-stack model without tokenizer files reads token
// ids there instead (issue 30, AnalysisSession::takesTokenIds): the label says "Token ids:",
// the placeholder gives an example, and a wrong part (not a number, outside the vocabulary) is
// named in red beside the field (not selected: the next keystroke would replace it) while
// nothing is recomputed.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;

namespace attnscope::app {

class AnalysisSession;

class SentenceField : public QWidget {
    Q_OBJECT

public:
    explicit SentenceField(AnalysisSession* session, QWidget* parent = nullptr);

    QLineEdit* edit() const { return m_edit; }

    // The error shown beside the field (empty: none).
    QString errorText() const;

private:
    void refreshForModel();
    void refreshError();

    AnalysisSession* m_session;
    QLabel* m_label;
    QLineEdit* m_edit;
    QLabel* m_error;
};

}  // namespace attnscope::app
