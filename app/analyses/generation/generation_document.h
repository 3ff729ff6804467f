// Attention while generating's part of the session (issue 34, item 5): the last generation the
// Generation tab ran from the session's sentence (forward/generation.h), with the labels the tab
// shows, and the step the user stepped to. A run is kept when the sentence changes (it says what
// its prompt was); a new model drops it. GUI thread only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <QString>

#include "attnscope/forward/generation.h"
#include "attnscope/model/model.h"
#include "session/analysis_document.h"

namespace attnscope::app {

class GenerationDocument : public AnalysisDocument {
    Q_OBJECT

public:
    using AnalysisDocument::AnalysisDocument;

    // One generation and what it was asked for.
    struct Run {
        forward::Generation generation;
        forward::SamplerSettings sampler;
        int stepsAsked = 0;               // more than steps() when the positions ran out
        std::vector<std::string> labels;  // [prompt + steps] readable pieces (tokenLabel)
        std::vector<std::string> pieces;  // [steps] the chosen tokens' vocabulary pieces
        std::string continuation;         // the generated tokens as text (decoded)
        std::string modelName;            // the model's folder, for the CSV
        std::weak_ptr<const model::Model> model;

        int promptLength() const { return static_cast<int>(generation.prompt.size()); }

        int steps() const { return static_cast<int>(generation.steps.size()); }

        // "greedy" or "temperature 0.8, top_k 40, top_p 0.95, seed 7" (the CLI's words).
        std::string samplerText() const;
    };

    // The run shown; null before the first, or once another model opened.
    std::shared_ptr<const Run> run() const { return m_run; }

    void setRun(std::shared_ptr<const Run> run);

    // The step shown, 0-based; 0 without a run.
    int step() const { return m_step; }

    // Clamped to the run's steps.
    void setStep(int step);

    bool dropModel() override;

    void announceDropped() override { emit runChanged(); }

signals:
    void runChanged();
    void stepChanged(int step);

private:
    std::shared_ptr<const Run> m_run;
    int m_step = 0;
};

}  // namespace attnscope::app
