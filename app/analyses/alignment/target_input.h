// The tool bar's target side for encoder-decoder models (issue 20): the "Target:" field, which
// recomputes every kind of attention as it is typed (teacher forcing), and Translate, which
// decodes the target greedily from the source (ComputeService::translate), the field filling
// as tokens arrive; a new source edit stops it. The limit of tokens is the spin box beside it.
// Its owner shows it for encoder-decoder models only.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;

class TargetInput : public QWidget {
    Q_OBJECT

public:
    TargetInput(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    QLineEdit* targetEdit() const { return m_edit; }

    int maxTokens() const;
    void setMaxTokens(int n);

    // Runs Translate as the button does (false when there is nothing to translate).
    bool translate();

private:
    void refreshButton();

    AnalysisSession* m_session;
    ComputeService* m_service;
    QLineEdit* m_edit;
    QToolButton* m_translate;
    QSpinBox* m_limit;
    QLabel* m_state;
};

}  // namespace attnscope::app
