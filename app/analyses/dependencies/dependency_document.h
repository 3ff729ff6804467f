// Dependency scoring's part of the session (issue 6): every head's counts on the session's
// treebank for the model open. The treebank itself, with the gold tree of the sentence on
// screen, is the session's (session/treebank.h): the sentence list and the head views use it.
#pragma once

#include <memory>

#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/model/model.h"
#include "session/result_document.h"
#include "session/treebank.h"

namespace attnscope::app {

// Every head's dependency counts on a treebank, for the model that computed them.
struct DependencyScores {
    std::shared_ptr<const Treebank> treebank;
    std::shared_ptr<const model::Model> model;
    analysis::DependencyAccumulator counts;
};

class DependencyDocument : public ResultDocument {
public:
    using ResultDocument::ResultDocument;

    // Null when there are none.
    std::shared_ptr<const DependencyScores> scores() const { return result<DependencyScores>(); }

    // Their treebank becomes the session's.
    void setScores(std::shared_ptr<const DependencyScores> scores);
};

}  // namespace attnscope::app
