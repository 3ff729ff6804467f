#include "session/result_document.h"

#include "session/analysis_session.h"

namespace attnscope::app {

bool ResultDocument::dropModel() {
    const bool had = m_result != nullptr;
    m_result.reset();  // of the old model's heads: a cell clicked would open another model's head
    return had;
}

bool ResultDocument::keep(std::shared_ptr<const void> result,
                          const std::shared_ptr<const model::Model>& model) {
    if (result && model != session().model()) {
        return false;  // computed with a model that is no longer open
    }
    m_result = std::move(result);
    emit changed();
    return true;
}

}  // namespace attnscope::app
