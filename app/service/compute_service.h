// The only thing in the app that starts background work, through its JobRunner (one catch
// site, cancel tokens, progress) on pools it owns; never QThreadPool::globalInstance(), which
// Qt's own painting and image scaling use and wait for (a busy global pool froze the window).
//
//   interactive pool (1 thread): forward passes and predictions, newest wins;
//   head pool (1 thread): heads recomputed for over-budget sentences, in the order asked;
//   background pool (2 threads): model loads, the corpus analyses' jobs (service/corpus_job.h,
//   one of each kind, made on first use: job<T>()), slow attribution methods and exports;
//   share pool (2 threads): the shares of a corpus job (analysis::scoreTreebank, scoreCoref …).
//
// It watches the session: a new text, setting or model schedules a forward pass; a new result
// or selected token, the predictions; a missed head record, its recomputation.
//
// Ablations (AnalysisSession::ablations): the clean pass keeps its layer states and is cached
// until the text, a setting or the model changes, so a changed ablation only runs
// forward::runForwardFrom from the first ablated layer, the statistics and the effect measures
// (service/ablation_job.h). Mean ablation's means are cached per model, settings and source.
// Answers go into the session, which keeps only those about what it still shows. Errors go to the
// message bar (AnalysisSession::reportError); the previous results stay.
//
// Head records (service/head_record_jobs.h) and attribution maps (service/attribution_jobs.h)
// are answered by jobs of their own; each corpus analysis has its job (service/corpus_job.h).
//
// Lifetime: the owner deletes the service before the session (MainWindow's destructor does so
// explicitly). The destructor cancels every job and waits for the workers' next cancel check;
// jobs never touch the session from a worker, and no apply step runs after shutdown.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <QElapsedTimer>
#include <QObject>
#include <QThreadPool>

#include "service/attribution_jobs.h"
#include "service/corpus_job.h"
#include "service/head_record_jobs.h"
#include "service/job_runner.h"
#include "session/analysis_session.h"
#include "session/one_of_each.h"

namespace attnscope::app {

struct AblationPlan;
struct CachedMeans;

class ComputeService : public QObject {
    Q_OBJECT

public:
    explicit ComputeService(AnalysisSession* session, QObject* parent = nullptr);
    ~ComputeService() override;

    // Cancels all work without blocking; later requests are ignored. For closing the app (the
    // destructor calls it) and for tests.
    void shutdown();

    // Loads a model folder; on success it replaces the session's model.
    void openModel(const QString& path);
    void cancelLoad();

    bool isLoading() const { return m_jobs.isRunning(JobKind::Load); }

    bool isComputing() const { return m_jobs.isRunning(JobKind::Forward); }

    // Median-worthy timing of the last finished forward pass, in milliseconds.
    double lastComputeMilliseconds() const { return m_lastMs; }

    // Clean passes run so far (an ablation toggled on a cached clean pass runs none).
    int cleanPassCount() const { return m_cleanPasses; }

    // True while a head record is being recomputed or waits to be.
    bool isComputingHeadRecords() const { return m_headRecords.isBusy(); }

    // The one thread head records are recomputed on; tests occupy it to hold a job in flight.
    QThreadPool* headRecordPool() { return &m_headPool; }

    // Where flow and value zeroing run (and loads, scoring, exports); tests occupy it likewise.
    QThreadPool* backgroundPool() { return &m_backgroundPool; }

    // The job of one corpus analysis (service/corpus_job.h), made on first use.
    template <class Job>
    Job& job() {
        return m_corpusJobs.get<Job>(*this);
    }

    // What the corpus jobs run on and report to.
    AnalysisSession& session() { return *m_session; }

    JobRunner& runner() { return m_jobs; }

    QThreadPool* sharePool() { return &m_sharePool; }

    bool isShutDown() const { return m_shutDown; }

    // True (and the message bar told why, naming `feature`) when the session's model cannot run
    // `feature`: encoder-decoder models with a one-stack feature (AnalysisSession::
    // unsupportedReason).
    bool refused(const QString& feature) const;

    // Attribution maps of the session's clean pass (service/attribution_jobs.h).
    AttributionJobs& attributions() { return m_attributions; }

    // Encoder-decoder models (issue 20; seq2seq_job.cpp). Greedy decoding of the target from the
    // session's source (analysis::greedyTarget), at most `maxTokens` tokens, on the background
    // pool: every token generated sets the session's target text (the field and the
    // teacher-forced views follow), the end token left out. A new source, model or Translate
    // cancels it (newest wins); translateFinished tells how it ended. False (the message bar
    // told) when there is nothing to translate.
    bool translate(int maxTokens);
    void cancelTranslate();

    bool isTranslating() const { return m_jobs.isRunning(JobKind::Translate); }

    static constexpr int kDefaultTranslateTokens = 40;

    // Writes a file in the background: `write` gets the path and throws the core's Error.
    // exportFinished tells how it went; a failure also goes to the message bar.
    void exportFile(const QString& path, std::function<void(const std::string&)> write);

    bool isExporting() const { return m_jobs.isRunning(JobKind::Export); }

signals:
    void loadStarted(const QString& path);
    void loadProgress(double fraction);
    void loadFinished(bool ok, const QString& path);
    void computeStarted();
    void computeFinished(double milliseconds);  // a result reached the session
    void idle();                                // no forward pass running or waiting
    void headRecordStarted(attnscope::HeadId head);
    // The job started for `head` ended: its record or error went to the session, or it was
    // cancelled (a stale result, or shutdown) and nothing did.
    void headRecordFinished(attnscope::HeadId head, bool cancelled);
    void translateStarted();
    // ok false: failed, cancelled or replaced; `targetIds` as greedy decoding produced them
    // (the end token included when reached), empty unless ok.
    void translateFinished(bool ok, const std::vector<std::int32_t>& targetIds);
    void exportStarted(const QString& path);
    void exportFinished(const QString& path, bool ok);

private:
    void scheduleCompute();
    void invalidateCleanPass();
    AblationPlan ablationPlan() const;  // ablation_job.cpp
    // On the worker, after the clean pass (`fresh`: run by this job, not the cache): the
    // ablated pass when the plan has ablations, then the step handing both to the session.
    JobRunner::ApplyStep applyAblated(const model::Model& model,
                                      std::shared_ptr<const analysis::SentenceAnalysis> clean,
                                      bool fresh, const forward::ForwardOptions& options,
                                      const AblationPlan& plan, const QElapsedTimer& timer);
    void schedulePredictions();
    // The forward job of an encoder-decoder model: source and target through it, all three
    // kinds (seq2seq_job.cpp).
    void scheduleSeq2Seq(const std::shared_ptr<const model::Model>& model,
                         const forward::ForwardOptions& options);
    void scheduleSeq2SeqPredictions(const std::shared_ptr<const model::Model>& model, int position);
    void onProgress(JobKind kind, int done, int total);

    AnalysisSession* m_session;
    // The destructor waits for every pool before any member goes (a scoring job on the
    // background pool uses the share pool).
    QThreadPool m_interactivePool;
    QThreadPool m_headPool;
    QThreadPool m_backgroundPool;
    QThreadPool m_sharePool;
    JobRunner m_jobs;
    HeadRecordJobs m_headRecords;
    AttributionJobs m_attributions{*this};
    double m_lastMs = 0;
    // The clean pass of the current text, settings and model (with layer states); null once
    // any of them changes.
    std::shared_ptr<const analysis::SentenceAnalysis> m_cleanPass;
    std::shared_ptr<const CachedMeans> m_means;
    quint64 m_settingsGeneration = 0;
    int m_cleanPasses = 0;
    bool m_shutDown = false;
    // Bumped by every new Translate and source: tokens queued to the GUI thread by an older
    // run are dropped (a cancelled run may still have posted some).
    quint64 m_translateRun = 0;
    // Declared last, gone first: their jobs' ends report through the runner and the session.
    OneOfEach<CorpusJob> m_corpusJobs;
};

}  // namespace attnscope::app
