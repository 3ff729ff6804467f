// Attribution maps (issue 19) of the sentence on screen, as the head view and the Methods tab
// show them: for the session's clean pass, each method's maps (analysis::computeAttribution) or
// where their computation stands — asked of the ComputeService, running with its progress,
// failed, or cancelled. In session/, not in analyses/attribution/, because the shared head view
// shows them as one of its methods. The AnalysisSession owns one and drops its states with the
// clean pass they belong to (a new sentence, setting or model); maps() asks the service for a
// method that is missing, once, as HeadRecords::get does for heads. GUI thread only.
#pragma once

#include <array>
#include <memory>

#include <QObject>
#include <QString>

#include "attnscope/analysis/attribution.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "session/meta_types.h"

namespace attnscope::app {

class AnalysisSession;

using AttributionPtr = std::shared_ptr<const analysis::Attribution>;

struct AttributionState {
    enum Status { Missing, Waiting, Ready, Failed, Cancelled };

    Status status = Missing;
    AttributionPtr maps;   // Ready only
    double progress = -1;  // Waiting: fraction done of a slow method; -1 while unknown
    QString message;       // Failed: the core's reason; Cancelled: by whom
};

// The two methods the Methods tab shows side by side, left and right.
struct MethodPair {
    analysis::AttributionMethod left = analysis::AttributionMethod::Raw;
    analysis::AttributionMethod right = analysis::AttributionMethod::Alti;
};

class AttributionMaps : public QObject {
    Q_OBJECT

public:
    using ResultPtr = std::shared_ptr<const analysis::SentenceAnalysis>;
    using Method = analysis::AttributionMethod;

    explicit AttributionMaps(AnalysisSession& session) : m_session(session) {}

    // A method's maps, or null and asks the service for them (requested, once, unless it was
    // cancelled or failed: request() asks again). Flow is unavailable above kFlowMaxTokens.
    AttributionPtr maps(Method method);

    const AttributionState& state(Method method) const { return m_states[index(method)]; }

    bool available(Method method) const;
    void request(Method method);
    void cancel(Method method);

    // The service's answers; dropped unless about the current clean pass.
    void set(const ResultPtr& forResult, Method method, AttributionPtr maps);
    void setProgress(const ResultPtr& forResult, Method method, double fraction);
    void setFailed(const ResultPtr& forResult, Method method, const QString& message);

    // The method the head view shows (Raw: the head's own maps) and the Methods tab's pair.
    Method headViewMethod() const { return m_headViewMethod; }

    void setHeadViewMethod(Method method);

    MethodPair methodPair() const { return m_methodPair; }

    void setMethodPair(MethodPair pair);

    // For the session: forgets every state when the clean pass is another than theirs; true when
    // it did (the session emits changed() after resultChanged, once views hold the new result's
    // tokens). With `encoderDecoder`, the head view goes back to Raw, the only method they have.
    bool follow(const ResultPtr& clean);
    void resetMethodFor(bool encoderDecoder);

signals:
    // The service is to compute or cancel one; a state changed (arrived, failed, cancelled, all
    // dropped); a slow one's fraction done.
    void requested(attnscope::analysis::AttributionMethod method);
    void cancelRequested(attnscope::analysis::AttributionMethod method);
    void changed();
    void progress(attnscope::analysis::AttributionMethod method, double fraction);
    void headViewMethodChanged();
    void methodPairChanged();

private:
    static std::size_t index(Method method) { return static_cast<std::size_t>(method); }

    AttributionState& stateOf(Method method) { return m_states[index(method)]; }

    void start(Method method);
    void askAgain(Method method);

    AnalysisSession& m_session;
    ResultPtr m_result;  // the clean pass the states belong to
    std::array<AttributionState, std::size(analysis::kAttributionMethods)> m_states;
    Method m_headViewMethod = Method::Raw;
    MethodPair m_methodPair;
};

}  // namespace attnscope::app
