// The main window: lays out the docks and views and wires their signals to the session and
// the compute service. Holds no analysis logic.
#pragma once

#include <QMainWindow>

namespace attnscope::app {

class AnalysisSession;
class ComputeService;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    AnalysisSession* session() const { return m_session; }

    ComputeService* service() const { return m_service; }

private:
    AnalysisSession* m_session;
    ComputeService* m_service;
};

}  // namespace attnscope::app
