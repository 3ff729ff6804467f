// The ablation entries of a head's context menu (model grid and head view) and the window's
// "Clear all ablations" action. They only call the session's ablation setters; the
// ComputeService recomputes from there.
//
//   Ablate (zero) / (mean) / (sink)        this query head
//   Ablate its key/value group ▸ …          grouped-query models only (disabled otherwise)
//   Clear ablation of this head             when an ablation covers it
//   Clear all ablations                     when any is set
#pragma once

#include <QString>

#include "attnscope/base/head_id.h"
#include "attnscope/forward/interventions.h"

class QAction;
class QMenu;
class QObject;

namespace attnscope::app {

class AnalysisSession;

// Appends the entries for `head` to `menu`. Object names: ablateZero, ablateMean, ablateSink,
// ablateGroupZero, ablateGroupMean, ablateGroupSink, clearHeadAblation, clearAllAblations.
void addAblationActions(QMenu* menu, AnalysisSession* session, HeadId head);

// "Clear all ablations" with its shortcut (Ctrl+Shift+K), enabled while any ablation is set.
QAction* makeClearAblationsAction(AnalysisSession* session, QObject* parent);

// What an ablation does to the head's maps, for the head view's banner and tool tips:
// "rows forced onto the first token" for sink.
QString ablationEffectText(forward::AblationKind kind);

}  // namespace attnscope::app
