// One head's maps for display, for the result on screen. With recorded maps they are copied out
// at once. When the sentence's maps did not fit the memory budget, the last kCached heads
// recomputed are kept; for any other head get() returns null and asks the ComputeService for
// it (requested, once per round), which answers through set() or setFailed(); views redraw on
// changed(). The AnalysisSession owns one and resets it with every new result.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <set>

#include <QObject>
#include <QString>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/model/model.h"

namespace attnscope::app {

class HeadRecords : public QObject {
    Q_OBJECT

public:
    using ResultPtr = std::shared_ptr<const analysis::SentenceAnalysis>;

    // The records are of `result` through `model` from now on: every record, request and
    // failure of the previous one goes, and a new round starts.
    void reset(std::shared_ptr<const model::Model> model, ResultPtr result);

    // Null without a result, or while the head is being recomputed.
    std::shared_ptr<const forward::HeadRecord> get(HeadId head);

    // True while `head` of the current result has been asked of the service and not answered.
    bool waitsFor(HeadId head) const { return m_waiting.count(head) > 0; }

    // Why the core could not recompute `head` for the current result; empty if it did not fail.
    QString error(HeadId head) const;

    // Requests come in rounds: a new result, selected head or compare head starts a new round,
    // and the views (which all observe those changes) ask again for what they show. Requests
    // of an older round that have not started yet are no longer wanted.
    quint64 round() const { return m_round; }

    void startRound();

    // The service's answers about `forResult`'s heads. Answers about any other result than the
    // current one are dropped: the sentence, settings or model changed while they ran.
    void set(const ResultPtr& forResult, HeadId head,
             std::shared_ptr<const forward::HeadRecord> record);
    void setFailed(const ResultPtr& forResult, HeadId head, const QString& message);
    // The request was superseded before it ran; a view still showing `head` asks again.
    void dropRequest(const ResultPtr& forResult, HeadId head);

    static constexpr std::size_t kCached = 8;

signals:
    // For the ComputeService: recompute `head` of the current result (get() missed).
    void requested(attnscope::HeadId head);
    // A record asked for arrived, failed or was dropped: views waiting for `head` redraw.
    void changed(attnscope::HeadId head);
    // A recomputation failed: the message bar's line (the session reports it).
    void failed(const QString& message);

private:
    std::shared_ptr<const model::Model> m_model;
    ResultPtr m_result;
    // Recomputed heads of m_result, most recent first.
    std::deque<std::pair<HeadId, std::shared_ptr<const forward::HeadRecord>>> m_records;
    std::set<HeadId> m_waiting;  // asked of the service in this round, not answered yet
    std::map<HeadId, QString> m_failures;
    quint64 m_round = 0;
};

}  // namespace attnscope::app
