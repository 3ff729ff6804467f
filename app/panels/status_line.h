// The window's status bar: the open model's architecture and sizes (or "Opening …" with a
// progress bar and Cancel while a model loads), the last pass's tokens, heads and time with its
// truncation and ablations, and the service's passing messages (a file written, a head being
// recomputed). It follows the session and the service by itself. GUI thread only.
#pragma once

#include <QObject>

class QLabel;
class QProgressBar;
class QStatusBar;
class QToolButton;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;

class StatusLine : public QObject {
    Q_OBJECT

public:
    // Adds its widgets to `bar`; `bar` owns them and this.
    StatusLine(QStatusBar* bar, AnalysisSession* session, ComputeService* service);

    // Rewrites the model and pass parts from the session.
    void refresh();

private:
    void wireLoads();
    void wireMessages();
    QString passText() const;

    QStatusBar* m_bar;
    AnalysisSession* m_session;
    ComputeService* m_service;
    QLabel* m_model;
    QLabel* m_compute;
    QProgressBar* m_loadProgress;
    QToolButton* m_cancelLoad;
};

}  // namespace attnscope::app
