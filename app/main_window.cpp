#include "main_window.h"

#include "service/compute_service.h"
#include "session/analysis_session.h"

namespace attnscope::app {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_session(new AnalysisSession(this)),
      m_service(new ComputeService(m_session, this)) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("AttnScope"));
}

MainWindow::~MainWindow() = default;

}  // namespace attnscope::app
