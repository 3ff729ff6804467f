// Coreference scoring's job (issue 16): reads a CorefUD file (the CorefDocument's corpus is
// reused when `path` is the one it holds), cuts windows with the model's tokenizer and scores
// every head and baseline on them (analysis::scoreCoref), one window a step; the scores go to
// the CorefDocument.
#pragma once

#include <QString>

#include "attnscope/analysis/coref_scoring.h"
#include "service/corpus_job.h"

namespace attnscope::app {

class CorefJob : public CorpusJob {
public:
    explicit CorefJob(ComputeService& service);

    void start(const QString& path, const analysis::CorefScoreOptions& options);
};

}  // namespace attnscope::app
