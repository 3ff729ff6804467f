// Activation patching's background jobs (issue 34): a sweep (analysis::patchSweep, one patched
// run per site, with progress and cancel) and a path (analysis::pathPatch), each a job kind of
// its own on the ComputeService, so a path can be patched while a sweep runs; a newer start of
// one kind replaces its running job, a new model drops both. Both first run the clean and
// corrupted prompts (analysis::runPatchingBase), or reuse the endpoints computed last when
// they are of the same pass, corrupted prompt, position and tokens; the results go to the
// PatchingDocument.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyses/patching/patching_document.h"
#include "service/corpus_job.h"

namespace attnscope::app {

// What the tab asks for: the clean prompt is the session's clean pass.
struct PatchingRequest {
    std::shared_ptr<const analysis::SentenceAnalysis> pass;
    std::vector<std::int32_t> corrupted;
    std::string corruptedText;
    int position = -1;
    std::optional<std::int32_t> target;  // none: patch_tokens.h's default
    std::optional<std::int32_t> distractor;
    forward::ForwardOptions options;  // the session's mask, scale and what-ifs
};

class PatchingJob : public CorpusJob {
    Q_OBJECT

public:
    explicit PatchingJob(ComputeService& service);

    void runSweep(PatchingRequest request, analysis::PatchSweep sweep,
                  analysis::PatchDirection direction);
};

class PathPatchingJob : public CorpusJob {
    Q_OBJECT

public:
    explicit PathPatchingJob(ComputeService& service);

    void runPath(PatchingRequest request, analysis::PathSpec path);
};

}  // namespace attnscope::app
