// How a scoring or importance job runs its shares (analysis::ShareExecutor) on one of the
// ComputeService's pools.
#pragma once

#include <QThreadPool>

#include "attnscope/analysis/treebank_scoring.h"

namespace attnscope::app {

// Runs task(0) … task(n − 1) on `pool` and waits for all of them. Tasks never throw
// (analysis::runShares catches inside them).
analysis::ShareExecutor onSharePool(QThreadPool* pool);

}  // namespace attnscope::app
