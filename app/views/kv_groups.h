// How grouped-query attention is described in the GUI: which key/value head a query head
// reads and which other query heads share it. Empty text for models without GQA.
#pragma once

#include <QString>

#include "attnscope/forward/forward_result.h"

namespace attnscope::app {

// "key/value head 1, shared by query heads 4–7"; "" when every head has its own.
QString kvSharingText(const forward::ForwardResult& f, int head);

// True for the first query head of a key/value group, except head 0 (where a group boundary
// is drawn in the grid). Always false without GQA.
bool startsKvGroup(const forward::ForwardResult& f, int head);

}  // namespace attnscope::app
