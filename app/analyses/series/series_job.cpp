#include "analyses/series/series_job.h"

#include <optional>

#include "analyses/series/series_document.h"
#include "attnscope/base/error.h"
#include "attnscope/model/model.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

using Statistics = SeriesDocument::Statistics;

// Every checkpoint on `ids`, one model in memory at a time.
std::shared_ptr<const Statistics> computeSeries(
    const std::vector<analysis::SeriesCheckpoint>& series, const std::vector<std::int32_t>& ids,
    const forward::ForwardOptions& options, const CancelToken& cancel, JobProgress& progress) {
    auto stats = std::make_shared<Statistics>();
    stats->tokenIds = ids;
    progress.total = static_cast<int>(series.size());
    std::optional<model::ModelSpec> shape;
    analysis::InductionProbe probe;  // the survey's defaults (InductionProbeOptions)
    for (const analysis::SeriesCheckpoint& c : series) {
        cancel.throwIfCancelled();
        model::LoadOptions load;
        load.tokenizer = model::TokenizerLoading::VocabularyOnly;
        load.cancel = cancel;
        const auto m = model::loadModel(c.path, load);
        if (m->isEncoderDecoder()) {
            throw InvalidArgument(c.path.string() + ": an encoder-decoder model");
        }
        if (!shape) {
            shape = m->spec;
            stats->nHeads = m->spec.nHeads;
            // Drawn once, from the first checkpoint: every checkpoint reads the same sequences.
            probe = analysis::drawInductionProbe(*m, {ids});
        }
        analysis::checkSameShape(*shape, m->spec, c.path.string());
        stats->byCheckpoint.push_back(analysis::trainingStats(*m, {ids}, options, probe));
        ++progress.done;
    }
    return stats;
}

}  // namespace

SeriesJob::SeriesJob(ComputeService& service) : CorpusJob(service, tr("Training series")) {
    auto& document = session().document<SeriesDocument>();
    connect(&session(), &AnalysisSession::resultChanged, this, &SeriesJob::follow);
    connect(&document, &SeriesDocument::seriesChanged, this, [this] {
        m_started.clear();
        follow();
    });
    // Made after CorpusJob's own handler, which drops the run under way: the next result
    // starts a new one even when its ids are the dropped run's.
    connect(&session(), &AnalysisSession::modelChanged, this, [this] { m_started.clear(); });
}

void SeriesJob::follow() {
    auto& document = session().document<SeriesDocument>();
    const auto clean = session().cleanResult();
    // Until a checkpoint of the series is open, the ids would be another model's.
    if (document.checkpoints().empty() || document.current() < 0 || !clean || session().seq2seq()) {
        return;
    }
    const std::vector<std::int32_t>& ids = clean->forward.tokenIds;
    const auto shown = document.statistics();
    if ((isRunning() && m_started == ids) || (shown && shown->tokenIds == ids)) {
        return;
    }
    m_started = ids;
    forward::ForwardOptions options;
    options.mask = session().mask();
    options.mapBudgetBytes = std::size_t{64} << 20;
    Work work = [this, series = document.checkpoints(), ids, options](
                    const CancelToken& cancel, JobProgress& progress) -> JobRunner::ApplyStep {
        forward::ForwardOptions withCancel = options;
        withCancel.cancel = cancel;
        auto stats = computeSeries(series, ids, withCancel, cancel, progress);
        return [this, stats = std::move(stats)] {
            session().document<SeriesDocument>().setStatistics(stats);
        };
    };
    CorpusJob::start(
        QString::fromStdString(document.checkpoints().front().path.string()), std::move(work),
        {tr("The training series failed: "), tr("The training series was cancelled.")});
}

}  // namespace attnscope::app
