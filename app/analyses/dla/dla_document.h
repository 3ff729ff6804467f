// Direct logit attribution's part of the session (issue 34): the terms of the logit at the
// prediction position (AnalysisSession::predictionPosition) of the session's clean pass, for the
// target picked in the Predictions panel or else the top prediction there, minus the picked
// distractor. Only computed while the Logit attribution tab is on screen (setViewed), so typing
// costs nothing more while it is not. A new model drops it. GUI thread only.
#pragma once

#include <memory>
#include <string>

#include "attnscope/analysis/logit_attribution.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "session/analysis_document.h"
#include "session/predictions.h"

namespace attnscope::app {

class DlaDocument : public AnalysisDocument {
    Q_OBJECT

public:
    // Follows the session, so that the heads' terms leave the model grid once they are stale.
    explicit DlaDocument(AnalysisSession& session);

    // One attribution and what it was asked for.
    struct Run {
        std::weak_ptr<const analysis::SentenceAnalysis> forPass;  // the clean pass it is of
        PickedTokens picked;  // the session's picks then: no target means the top prediction
        analysis::LogitAttribution attribution;
        std::string targetPiece;
        std::string distractorPiece;  // empty without a distractor
        std::string positionPiece;    // the token at the position
        int nLayers = 0;              // the model's, for the heads' map
        int nHeads = 0;
    };

    // The attribution shown last; null before the first, or once another model opened.
    std::shared_ptr<const Run> run() const { return m_run; }

    // Whether `run` is of the session's clean pass, prediction position and picks: else a newer
    // one is on its way (or the tab is not on screen).
    bool isCurrent(const Run& run) const;

    // Kept when it is of the session's clean pass (a newer one is on its way otherwise).
    void setRun(std::shared_ptr<const Run> run);

    // While false (the tab is hidden) nothing is computed.
    bool isViewed() const { return m_viewed; }

    void setViewed(bool viewed);

    // Whether the model grid shows each head's term (HeadOverlays::headScores, owner "dla") while
    // the run is of the session's current pass and picks. On by default.
    bool showsOnGrid() const { return m_onGrid; }

    void setShowOnGrid(bool on);

    bool dropModel() override;

    void announceDropped() override { emit runChanged(); }

signals:
    void runChanged();
    void viewedChanged(bool viewed);

private:
    void publish();

    std::shared_ptr<const Run> m_run;
    bool m_viewed = false;
    bool m_onGrid = true;
};

}  // namespace attnscope::app
