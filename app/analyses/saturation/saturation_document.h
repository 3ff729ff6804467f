// The saturation lab's part of the session (issue 33): the per-head statistics of the model as
// it is for the sentence on screen, kept while the user has a what-if on (QK-norm off or unit,
// soft-cap off or typed, a scale of their own), so the view can plot every head before and after
// it. The statistics with the what-if come from the session's own result. A new model drops it.
#pragma once

#include <memory>
#include <vector>

#include "attnscope/analysis/saturation.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "session/analysis_document.h"

namespace attnscope::app {

class SaturationDocument : public AnalysisDocument {
    Q_OBJECT

public:
    using AnalysisDocument::AnalysisDocument;

    // The model as it is on the token ids of `forPass` (a clean pass with a what-if).
    struct Baseline {
        std::weak_ptr<const analysis::SentenceAnalysis> forPass;
        std::vector<analysis::HeadSaturation> heads;
    };

    // Null while none is computed or none is needed (no what-if on).
    std::shared_ptr<const Baseline> baseline() const { return m_baseline; }

    // The baseline of the session's clean pass, when there is one; else null.
    std::shared_ptr<const Baseline> currentBaseline() const;

    // Kept when it is of the session's clean pass (a newer one is on its way otherwise).
    void setBaseline(std::shared_ptr<const Baseline> baseline);
    void clearBaseline();

    bool dropModel() override;

    void announceDropped() override { emit baselineChanged(); }

signals:
    void baselineChanged();

private:
    std::shared_ptr<const Baseline> m_baseline;
};

}  // namespace attnscope::app
