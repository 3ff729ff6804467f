// The usual shape of an analysis's document (analysis_document.h): one result of the model open —
// a run, a set of scores — set by the analysis's job, refused when it was computed with a model
// that is no longer open, dropped when another model opens, and announced by changed().
// Subclasses give the result its type and name (SurveyDocument::run(), …).
#pragma once

#include <memory>

#include "attnscope/model/model.h"
#include "session/analysis_document.h"

namespace attnscope::app {

class ResultDocument : public AnalysisDocument {
    Q_OBJECT

public:
    using AnalysisDocument::AnalysisDocument;

    bool dropModel() override;

    void announceDropped() override { emit changed(); }

signals:
    void changed();

protected:
    template <class Result>
    std::shared_ptr<const Result> result() const {
        return std::static_pointer_cast<const Result>(m_result);
    }

    // Keeps `result` (null: none) and emits changed(), unless it was computed with `model` and
    // that is no longer the session's: then false, and nothing changes.
    bool keep(std::shared_ptr<const void> result, const std::shared_ptr<const model::Model>& model);

private:
    std::shared_ptr<const void> m_result;
};

}  // namespace attnscope::app
