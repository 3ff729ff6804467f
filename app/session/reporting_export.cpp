#include "session/reporting_export.h"

#include "attnscope/base/error.h"
#include "session/analysis_session.h"

namespace attnscope::app {

bool reportingExport(AnalysisSession* session, const std::function<void()>& write) {
    try {
        write();
        return true;
    } catch (const Error& e) {
        session->reportError(
            AnalysisSession::tr("Export failed: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
}

}  // namespace attnscope::app
