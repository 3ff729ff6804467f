// What a view shows in place of heads whose maps are not there yet. When a sentence's maps did
// not fit the memory budget, the session has the ComputeService recompute the heads on screen
// on a worker; meanwhile the view says so (or, should the core fail, why it could not).
// GUI thread only.
#pragma once

#include <vector>

#include <QString>

#include "attnscope/base/head_id.h"

namespace attnscope::app {

class AnalysisSession;

// "Computing head 3·7…" with the reason, or "Could not compute head 3·7: …" when the core
// failed for one of `heads`.
QString headRecordPendingText(const AnalysisSession& session, const std::vector<HeadId>& heads);

// The same without the reason for computing (the first line); an error stays whole.
QString headRecordPendingHeadline(const AnalysisSession& session, const std::vector<HeadId>& heads);

// The status bar's line while the service recomputes `head`: "Computing head 3·7 (…)…".
QString headRecordStatusMessage(HeadId head);

}  // namespace attnscope::app
