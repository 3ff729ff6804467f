// The ComputeService's attribution jobs (issue 19): one method's maps of the session's clean
// pass, asked for by the session's AttributionMaps. Raw, norm, rollout and ALTI run on the head
// pool in the order asked; flow and value zeroing on the background pool with their progress,
// one at a time: a newer slow request cancels the running one. Jobs of an older pass are
// cancelled when the session shows another; a cancelled job tells it nothing. In service/, not
// in analyses/attribution/, because the shared head view shows these maps as its methods.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "attnscope/analysis/attribution.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/forward_pass.h"

namespace attnscope::app {

class ComputeService;

class AttributionJobs : public QObject {
    Q_OBJECT

public:
    explicit AttributionJobs(ComputeService& service);

    void compute(analysis::AttributionMethod method);
    void cancel(analysis::AttributionMethod method);

    bool isBusy() const;

    // Writes the session's attribution maps of the sentence on screen to an HDF5 file
    // (export/attribution_export.h) in the background, as ComputeService::exportFile: the
    // methods it holds, raw attention always. False (and the message bar told) without a
    // sentence.
    bool exportTo(const QString& path);

private:
    struct Job {
        analysis::AttributionMethod method;
        std::shared_ptr<const analysis::SentenceAnalysis> result;  // the clean pass
        quint64 id = 0;
        // The fraction a slow method has done, written by its worker: the runner's progress
        // signal does not say which job it is about.
        std::shared_ptr<std::atomic<double>> fraction;
    };

    forward::ForwardOptions options() const;  // the session's mask, scale, budget
    void cancelStale();
    void reportProgress();

    ComputeService& m_service;
    std::vector<Job> m_jobs;  // running or queued, fast and slow
};

}  // namespace attnscope::app
