// Head importance's job (issue 17): reads the corpus (or takes the session's treebank texts),
// builds the masked (or next-token) items and runs analysis::headImportance on the share pool;
// the run goes to the ImportanceDocument. Progress is in thousandths of the passes: the shares
// split the sentences, not the heads, so every head advances together and "head 37 of 144"
// would be untrue.
#pragma once

#include <QString>

#include "analyses/importance/importance_document.h"
#include "service/corpus_job.h"

namespace attnscope::app {

class ImportanceJob : public CorpusJob {
public:
    explicit ImportanceJob(ComputeService& service);

    void start(const QString& path, const ImportanceRequest& request);
};

}  // namespace attnscope::app
