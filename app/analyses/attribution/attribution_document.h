// What the session holds about attribution maps (issue 19): for the clean pass of the sentence
// on screen, each method's maps (analysis::computeAttribution) or where their computation
// stands — asked of the ComputeService, running with its progress, failed, or cancelled.
// AnalysisSession keeps one AttributionStore and drops it with the clean pass it belongs to
// (a new sentence, setting or model); its attribution() asks the service for a method that is
// missing, once, as headRecord() does for heads. Plain values, GUI thread only.
#pragma once

#include <array>
#include <memory>
#include <optional>

#include <QMetaType>
#include <QString>

#include "attnscope/analysis/attribution.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "session/meta_types.h"

namespace attnscope::app {

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

class AttributionStore {
public:
    // The clean pass the states belong to; null without one.
    const std::shared_ptr<const analysis::SentenceAnalysis>& result() const { return m_result; }

    // Forgets every method's state: they were of another pass.
    void reset(std::shared_ptr<const analysis::SentenceAnalysis> forResult);

    const AttributionState& state(analysis::AttributionMethod method) const {
        return m_states[index(method)];
    }

    AttributionState& state(analysis::AttributionMethod method) { return m_states[index(method)]; }

private:
    static std::size_t index(analysis::AttributionMethod method) {
        return static_cast<std::size_t>(method);
    }

    std::shared_ptr<const analysis::SentenceAnalysis> m_result;
    std::array<AttributionState, std::size(analysis::kAttributionMethods)> m_states;
};

}  // namespace attnscope::app
