// Dependency scoring's job (issue 6): every head of the session's model on a CoNLL-U treebank
// (the session's treebank is reused when `path` is the one it holds), one sentence a step;
// the scores go to the DependencyDocument.
#pragma once

#include <QString>

#include "attnscope/analysis/dependency_score.h"
#include "service/corpus_job.h"

namespace attnscope::app {

class DependencyJob : public CorpusJob {
public:
    explicit DependencyJob(ComputeService& service);

    void start(const QString& path, const analysis::ScoreOptions& options);
};

}  // namespace attnscope::app
