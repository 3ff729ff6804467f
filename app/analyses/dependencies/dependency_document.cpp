#include "analyses/dependencies/dependency_document.h"

#include "session/analysis_session.h"

namespace attnscope::app {

void DependencyDocument::setScores(std::shared_ptr<const DependencyScores> scores) {
    if (scores && scores->model != session().model()) {
        return;  // scored with a model that is no longer open
    }
    if (scores && scores->treebank != session().treebank()) {
        session().setTreebank(scores->treebank);
    }
    const auto model = scores ? scores->model : nullptr;
    keep(std::move(scores), model);
}

}  // namespace attnscope::app
