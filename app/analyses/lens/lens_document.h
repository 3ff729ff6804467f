// The logit lens's part of the session (issue 34): every stage × position of the session's clean
// pass, the target at each position its final prediction except at the prediction position
// (AnalysisSession::predictionPosition) when a target is picked in the Predictions panel — the
// Logit attribution tab's target there. Only computed while the Logit lens tab is on screen
// (setViewed): a lens costs a vocabulary projection per stage and position. A new model drops
// it. GUI thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/analysis/logit_lens.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/model/model.h"
#include "session/analysis_document.h"

namespace attnscope::app {

class LensDocument : public AnalysisDocument {
    Q_OBJECT

public:
    using AnalysisDocument::AnalysisDocument;

    // Where the picked target replaces a position's final prediction as the target.
    struct PickedAt {
        int position = -1;
        std::int32_t target = 0;

        bool operator==(const PickedAt& other) const = default;
    };

    struct Run {
        std::weak_ptr<const analysis::SentenceAnalysis> forPass;
        std::shared_ptr<const model::Model> model;  // names the tokens' ids
        int topK = 0;
        std::optional<PickedAt> picked;
        analysis::LogitLens lens;
        std::vector<std::string> tokenLabels;  // [nTokens]: the pass's tokens, readable
    };

    // The lens shown last; null before the first, or once another model opened.
    std::shared_ptr<const Run> run() const { return m_run; }

    // The tokens kept per stage and position (tool tips, CSV): 5 unless changed.
    int topK() const { return m_topK; }

    void setTopK(int k);

    // What the session asks for now: the picked target at the prediction position, if any.
    std::optional<PickedAt> pickedNow() const;

    // Whether `run` is of the session's clean pass, picks and topK().
    bool isCurrent(const Run& run) const;

    // Kept when it is of the session's clean pass (a newer one is on its way otherwise).
    void setRun(std::shared_ptr<const Run> run);

    bool isViewed() const { return m_viewed; }

    void setViewed(bool viewed);

    bool dropModel() override;

    void announceDropped() override { emit runChanged(); }

    static constexpr int kDefaultTopK = 5;

signals:
    void runChanged();
    // viewed, or topK changed: the job follows.
    void wantChanged();

private:
    std::shared_ptr<const Run> m_run;
    int m_topK = kDefaultTopK;
    bool m_viewed = false;
};

}  // namespace attnscope::app
