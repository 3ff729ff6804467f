// The head survey's job (issue 18): reads the corpus (or takes the session's treebank), runs
// computeSurveyRun on the share pool and hands the run to the SurveyDocument. Progress is in
// thousandths of the passes, over sentences and the probe, as for importance: no head is ever
// "done" before the others.
#pragma once

#include <QString>

#include "analyses/survey/survey_document.h"
#include "service/corpus_job.h"

namespace attnscope::app {

class SurveyJob : public CorpusJob {
public:
    explicit SurveyJob(ComputeService& service);

    void start(const QString& path, const SurveyRequest& request);
};

}  // namespace attnscope::app
