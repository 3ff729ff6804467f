#include "analyses/generation/generation_job.h"

#include <cmath>

#include "analyses/generation/generation_document.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/tokenize/detokenize.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

using Run = GenerationDocument::Run;

// On the worker: the generation with the labels the tab shows.
std::shared_ptr<const Run> generateRun(const std::shared_ptr<const model::Model>& m,
                                       const analysis::SentenceAnalysis& pass, int steps,
                                       const forward::SamplerSettings& sampler,
                                       const CancelToken& cancel, JobProgress& progress) {
    progress.total = steps;
    auto run = std::make_shared<Run>();
    run->sampler = sampler;
    run->stepsAsked = steps;
    run->model = m;
    run->modelName = m->dir.string();
    run->generation = forward::generate(
        *m, pass.forward.tokenIds, steps, sampler, cancel, [&progress, steps](double fraction) {
            progress.done = static_cast<int>(std::lround(fraction * steps));
        });
    for (int i = 0; i < pass.forward.nTokens; ++i) {
        run->labels.push_back(pass.label(i));
    }
    std::vector<std::int32_t> generated;
    for (const forward::GenerationStep& s : run->generation.steps) {
        run->pieces.push_back(forward::tokenPiece(*m, s.token));
        run->labels.push_back(analysis::tokenLabel(run->pieces.back()));
        generated.push_back(s.token);
    }
    if (m->tokenizer) {
        run->continuation = tokenize::decodeIds(*m->tokenizer, generated);
    }
    return run;
}

}  // namespace

QString generationUnsupportedReason(const model::Model& model) {
    if (model.isEncoderDecoder() || model.spec.prediction != model::PredictionKind::CausalLm) {
        return GenerationJob::tr(
            "Generation needs a decoder-only model (GPT-2, Llama, Qwen, …) with its language-"
            "model head: this model does not predict the next token.");
    }
    return {};
}

GenerationJob::GenerationJob(ComputeService& service) : CorpusJob(service, tr("Generation")) {}

bool GenerationJob::generate(int steps, const forward::SamplerSettings& sampler) {
    const auto m = model();
    const auto clean = session().cleanResult();
    if (!m || !clean || session().seq2seq() || !generationUnsupportedReason(*m).isEmpty()) {
        return false;
    }
    Work work = [this, m, clean, steps, sampler](const CancelToken& cancel,
                                                 JobProgress& progress) -> JobRunner::ApplyStep {
        auto run = generateRun(m, *clean, steps, sampler, cancel, progress);
        return [this, run = std::move(run)] {
            if (run->model.lock() == model()) {
                session().document<GenerationDocument>().setRun(run);
            }
        };
    };
    CorpusJob::start(QString(), std::move(work),
                     {tr("The generation failed: "), tr("The generation was cancelled.")});
    return true;
}

}  // namespace attnscope::app
