// Activation patching's part of the session (issue 34): the endpoints of the last patching run
// (the clean and corrupted passes the core's runs restart from, with the metric's tokens), the
// sweep shown and the paths patched, each kept with the endpoints it was computed on. The
// Activation patching tab runs them when asked (a sweep costs one run per site), never while
// typing, so the shown sweep may be of an earlier sentence: isCurrent says. A new model drops
// everything. GUI thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/analysis/activation_patching.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "session/analysis_document.h"

namespace attnscope::app {

class PatchingDocument : public AnalysisDocument {
    Q_OBJECT

public:
    using AnalysisDocument::AnalysisDocument;

    // The clean and corrupted runs and what they were asked for.
    struct Endpoints {
        std::weak_ptr<const analysis::SentenceAnalysis> forPass;  // the session's clean pass
        std::shared_ptr<const analysis::PatchingBase> base;
        std::optional<std::int32_t> askedTarget;  // none: the clean run's top prediction
        std::optional<std::int32_t> askedDistractor;
        std::string targetPiece;
        std::string distractorPiece;
        std::string corruptedText;  // as typed (ids as text for a model without tokenizer)
        std::vector<std::string> cleanLabels;  // tokenLabel of each clean token
        std::vector<std::string> corruptedLabels;
        int nLayers = 0;
        int nHeads = 0;
    };

    struct Sweep {
        std::shared_ptr<const Endpoints> endpoints;
        analysis::PatchingGrid grid;
    };

    struct PathRow {
        std::shared_ptr<const Endpoints> endpoints;
        analysis::PathSpec spec;
        analysis::PathResult result;
    };

    // The endpoints computed last (by a sweep or a path); null before any.
    std::shared_ptr<const Endpoints> endpoints() const { return m_endpoints; }

    // The sweep shown; null before the first, or once another model opened.
    std::shared_ptr<const Sweep> sweep() const { return m_sweep; }

    // Every path patched since the model opened, oldest first.
    const std::vector<PathRow>& paths() const { return m_paths; }

    // Whether `endpoints` are of the session's clean pass (the sentence, mask, scale and
    // what-ifs shown now).
    bool isCurrent(const Endpoints& endpoints) const;

    void setSweep(std::shared_ptr<const Sweep> sweep);
    void addPath(PathRow row);
    void clearPaths();

    bool dropModel() override;

    void announceDropped() override {
        emit sweepChanged();
        emit pathsChanged();
    }

signals:
    void sweepChanged();
    void pathsChanged();

private:
    void keepEndpoints(const std::shared_ptr<const Endpoints>& endpoints);

    std::shared_ptr<const Endpoints> m_endpoints;
    std::shared_ptr<const Sweep> m_sweep;
    std::vector<PathRow> m_paths;
};

}  // namespace attnscope::app
