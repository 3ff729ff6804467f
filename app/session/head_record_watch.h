// How a view gets the maps of the heads it shows. When a sentence's maps did not fit the memory
// budget, AnalysisSession::headRecord returns null for a head it does not keep and has the
// ComputeService recompute it; the view shows a "Computing head …" text meanwhile and redraws
// when the answer (or an error) arrives. This object does that bookkeeping once for every view:
// it remembers which heads the last fetch missed and calls `redraw` when one of them changes.
// GUI thread only.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "attnscope/base/head_id.h"
#include "attnscope/forward/head_record.h"

namespace attnscope::app {

class AnalysisSession;

class HeadRecordWatch : public QObject {
    Q_OBJECT

public:
    HeadRecordWatch(AnalysisSession* session, std::function<void()> redraw, QObject* parent);

    // The records of `heads`, in order, for the session's current result; a null entry is being
    // recomputed (or failed: pendingText says why). Forgets what earlier fetches missed.
    std::vector<std::shared_ptr<const forward::HeadRecord>> fetch(const std::vector<HeadId>& heads);
    std::shared_ptr<const forward::HeadRecord> fetch(HeadId head);

    // Drops what the last fetch missed (the view shows something else now).
    void forget() { m_missing.clear(); }

    bool isWaiting() const { return !m_missing.empty(); }

    const std::vector<HeadId>& missing() const { return m_missing; }

    // "Computing heads 1·2, 3·4…" with the reason, or the core's error for a failed head.
    QString pendingText() const;
    // The same without the reason (for small maps); an error stays whole.
    QString pendingHeadline(HeadId head) const;

private:
    AnalysisSession* m_session;
    std::function<void()> m_redraw;
    std::vector<HeadId> m_missing;
};

}  // namespace attnscope::app
