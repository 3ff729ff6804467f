// The comparison of the sentence on screen through both models (issue 32), run again whenever
// the session's clean pass changes (a new sentence, mask, scale or model) or another second model
// opens, on the ComputeService's background pool; the newest run wins. It runs the second model
// on the clean pass's token ids — the text through the second model's tokenizer, which must give
// the same ids, else the document says the comparison is off — and analysis::compareModels on
// the two passes.
#pragma once

#include <memory>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/model/model.h"
#include "service/corpus_job.h"

namespace attnscope::app {

class ModelCompareJob : public CorpusJob {
public:
    explicit ModelCompareJob(ComputeService& service);

    // Starts a comparison unless the one shown is of the session's clean pass already.
    void follow();

private:
    // What the run under way compares: a clean pass and a second model.
    std::weak_ptr<const analysis::SentenceAnalysis> m_startedA;
    std::weak_ptr<const model::Model> m_startedB;
};

}  // namespace attnscope::app
