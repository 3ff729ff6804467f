// Attention while generating's background job (issue 34, item 5): the session's sentence (the
// token ids of its clean pass) continued by forward::generate with the tab's settings, on the
// ComputeService's background pool, progress per step and cancel; its run goes to the
// GenerationDocument. A new Generate replaces a running one; a new model drops it.
#pragma once

#include <QString>

#include "attnscope/forward/sampling.h"
#include "attnscope/model/model.h"
#include "service/corpus_job.h"

namespace attnscope::app {

// Why `model` cannot generate (empty when it can): generation needs a decoder-only causal LM.
QString generationUnsupportedReason(const model::Model& model);

class GenerationJob : public CorpusJob {
    Q_OBJECT

public:
    explicit GenerationJob(ComputeService& service);

    // Starts a generation of `steps` tokens from the session's clean pass; false (nothing
    // started) without a model that can generate or without a pass.
    bool generate(int steps, const forward::SamplerSettings& sampler);
};

}  // namespace attnscope::app
