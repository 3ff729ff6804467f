// Weight-space circuits' part of the session (issue 34): every head's QK/OV spectra, copying and
// positional scores and the composition between heads (analysis::weightCircuits) of the
// session's model. They depend on the weights alone, so one run serves every sentence; a new
// model drops it. Only computed while the Circuits tab is on screen (setViewed), so opening a
// model costs nothing more while it is not. GUI thread only.
#pragma once

#include <memory>

#include "attnscope/analysis/weight_circuits.h"
#include "attnscope/model/model.h"
#include "session/analysis_document.h"

namespace attnscope::app {

class CircuitsDocument : public AnalysisDocument {
    Q_OBJECT

public:
    using AnalysisDocument::AnalysisDocument;

    struct Run {
        std::weak_ptr<const model::Model> forModel;
        analysis::WeightCircuits circuits;
    };

    // The scores of the session's model; null before the first run, or once another opened.
    std::shared_ptr<const Run> run() const { return m_run; }

    // Kept when it is of the session's model (another model opened meanwhile otherwise).
    void setRun(std::shared_ptr<const Run> run);

    // While false (the tab is hidden) nothing is computed.
    bool isViewed() const { return m_viewed; }

    void setViewed(bool viewed);

    bool dropModel() override;

    void announceDropped() override { emit runChanged(); }

signals:
    void runChanged();
    void viewedChanged(bool viewed);

private:
    std::shared_ptr<const Run> m_run;
    bool m_viewed = false;
};

}  // namespace attnscope::app
