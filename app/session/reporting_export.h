// One export to a file, with its failure on the message bar: the views' CSV, HDF5 and figure
// exports all end the same way. GUI thread only.
#pragma once

#include <functional>

namespace attnscope::app {

class AnalysisSession;

// Runs `write`; true when it returned. When it throws attnscope::Error, reports "Export failed:
// <what>" through `session` and returns false (anything else propagates).
bool reportingExport(AnalysisSession* session, const std::function<void()>& write);

}  // namespace attnscope::app
