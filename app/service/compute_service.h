// The only thing in the app that starts background work, through its JobRunner (one catch
// site, cancel tokens, progress) on pools it owns; never QThreadPool::globalInstance(), which
// Qt's own painting and image scaling use and wait for (a busy global pool froze the window).
//
//   interactive pool (1 thread): forward passes and predictions, newest wins;
//   head pool (1 thread): heads recomputed for over-budget sentences, in the order asked;
//   background pool (2 threads): model loads, treebank scoring jobs (dependencies and
//   coreference) and exports;
//   share pool (2 threads): the shares of a scoring job (analysis::scoreTreebank, scoreCoref).
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
// Head records: jobs of an earlier result are skipped; jobs of an older request round (the views
// moved on) are dropped before they start; a running job is cancelled as soon as the session
// shows another result. A cancelled job tells the session nothing.
//
// Lifetime: the owner deletes the service before the session (MainWindow's destructor does so
// explicitly). The destructor cancels every job and waits for the workers' next cancel check;
// jobs never touch the session from a worker, and no apply step runs after shutdown.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <QElapsedTimer>
#include <QObject>
#include <QThreadPool>

#include "attnscope/analysis/attribution.h"
#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/analysis/dependency_score.h"
#include "service/job_runner.h"
#include "session/analysis_session.h"

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
    bool isComputingHeadRecords() const { return m_runningHead || !m_headQueue.empty(); }

    // The one thread head records are recomputed on; tests occupy it to hold a job in flight.
    QThreadPool* headRecordPool() { return &m_headPool; }

    // Where flow and value zeroing run (and loads, scoring, exports); tests occupy it likewise.
    QThreadPool* backgroundPool() { return &m_backgroundPool; }

    // Scores every head of the session's model on a CoNLL-U treebank (the session's treebank is
    // reused when `path` is the one it holds). A newer scoring job replaces a running one.
    void scoreTreebank(const QString& path, const analysis::ScoreOptions& options);
    void cancelScoring();

    bool isScoring() const { return m_jobs.isRunning(JobKind::Scoring); }

    // Scores every head and baseline of the session's model on a CorefUD file's coreference:
    // reads it (the session's corpus is reused when `path` is the one it holds), cuts windows
    // with the model's tokenizer and scores them (analysis::scoreCoref). A newer coreference
    // job replaces a running one; dependency scoring goes on beside it.
    void scoreCoref(const QString& path, const analysis::CorefScoreOptions& options);
    void cancelCoref();

    bool isScoringCoref() const { return m_jobs.isRunning(JobKind::CorefScoring); }

    // Every head's (or key/value group's) importance for the session's model on a sentence file
    // or treebank (analysis::headImportance; the session's treebank texts are reused when `path`
    // is the one it holds), on the share pool. A newer importance job replaces a running one.
    // Defined in importance_job.cpp.
    void computeImportance(const QString& path, const ImportanceRequest& request);
    void cancelImportance();

    bool isComputingImportance() const { return m_jobs.isRunning(JobKind::Importance); }

    // Every head's survey scores, MDS map and labels for the session's model on a sentence file
    // or treebank (computeSurveyRun; the session's treebank is reused when `path` is the one it
    // holds), on the share pool. A newer survey replaces a running one. survey_job.cpp.
    void computeSurvey(const QString& path, const SurveyRequest& request);
    void cancelSurvey();

    bool isSurveying() const { return m_jobs.isRunning(JobKind::Survey); }

    // One attribution method's maps of the session's clean pass (issue 19; attribution_job.cpp),
    // asked for by the session (attributionRequested). Raw, norm, rollout and ALTI run on the
    // head pool in the order asked; flow and value zeroing on the background pool with their
    // progress, one at a time: a newer slow request cancels the running one. Jobs of an older
    // pass are cancelled when the session shows another; a cancelled job tells it nothing.
    void computeAttribution(analysis::AttributionMethod method);
    void cancelAttribution(analysis::AttributionMethod method);

    // Writes the session's attribution maps of the sentence on screen to an HDF5 file
    // (export/attribution_export.h) in the background, as exportFile: the methods it holds,
    // raw attention always. False (and the message bar told) without a sentence.
    bool exportAttributions(const QString& path);

    bool isComputingAttribution() const {
        return m_jobs.isRunning(JobKind::Attribution) ||
               m_jobs.isRunning(JobKind::FlowAttribution) ||
               m_jobs.isRunning(JobKind::ValueZeroingAttribution);
    }

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
    void scoringStarted(const QString& path);
    void scoringProgress(int done, int total);  // sentences; total 0 while the file is read
    void scoringFinished(bool ok);              // ok false: failed, cancelled or replaced
    void corefStarted(const QString& path);
    void corefProgress(int done, int total);  // windows; total 0 while reading and cutting
    void corefFinished(bool ok);              // ok false: failed, cancelled or replaced
    void importanceStarted(const QString& path);
    // Thousandths of the passes done (every unit on every sentence, then the pruning curve);
    // total 0 while the file is read.
    void importanceProgress(int done, int total);
    void importanceFinished(bool ok);  // ok false: failed, cancelled or replaced
    void surveyStarted(const QString& path);
    // Thousandths of the passes done; total 0 while the corpus is read and tokenized.
    void surveyProgress(int done, int total);
    void surveyFinished(bool ok);  // ok false: failed, cancelled or replaced
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
    // True (and the message bar told why, naming `feature`) when the session's model cannot run
    // `feature`: encoder-decoder models with a one-stack feature (AnalysisSession::
    // unsupportedReason).
    bool refused(const QString& feature) const;
    // The forward job of an encoder-decoder model: source and target through it, all three
    // kinds (seq2seq_job.cpp).
    void scheduleSeq2Seq(const std::shared_ptr<const model::Model>& model,
                         const forward::ForwardOptions& options);
    void scheduleSeq2SeqPredictions(const std::shared_ptr<const model::Model>& model, int position);
    void onProgress(JobKind kind, int done, int total);
    // The session's treebank when it is the file at `path` (already read: not read again).
    std::shared_ptr<const Treebank> knownTreebank(const QString& path) const;
    // A corpus job's end on the message bar: `failed` followed by the error, or `cancelled`
    // (unless the service is shutting down).
    void reportCorpusJobEnd(const JobEnd& end, const QString& failed, const QString& cancelled);

    struct HeadJob {
        HeadId head;
        quint64 round = 0;  // the session's headRequestRound when asked
        std::shared_ptr<const model::Model> model;
        std::shared_ptr<const analysis::SentenceAnalysis> result;
        quint64 id = 0;  // the runner's job, once started
    };

    struct AttributionJob {
        analysis::AttributionMethod method;
        std::shared_ptr<const analysis::SentenceAnalysis> result;  // the clean pass
        quint64 id = 0;
        // The fraction a slow method has done, written by its worker: the runner's progress
        // signal does not say which job it is about.
        std::shared_ptr<std::atomic<double>> fraction;
    };

    void connectAttributions();                          // attribution_job.cpp
    forward::ForwardOptions attributionOptions() const;  // the session's mask, scale, budget
    void cancelStaleAttributions();

    void queueHeadRecord(HeadId head);
    void cancelStaleHeadRecords();
    void startNextHeadRecord();
    void runHeadRecord(HeadJob job);

    AnalysisSession* m_session;
    // The destructor waits for every pool before any member goes (a scoring job on the
    // background pool uses the share pool).
    QThreadPool m_interactivePool;
    QThreadPool m_headPool;
    QThreadPool m_backgroundPool;
    QThreadPool m_sharePool;
    JobRunner m_jobs;
    double m_lastMs = 0;
    // The clean pass of the current text, settings and model (with layer states); null once
    // any of them changes.
    std::shared_ptr<const analysis::SentenceAnalysis> m_cleanPass;
    std::shared_ptr<const CachedMeans> m_means;
    quint64 m_settingsGeneration = 0;
    int m_cleanPasses = 0;
    std::deque<HeadJob> m_headQueue;  // oldest first
    std::optional<HeadJob> m_runningHead;
    bool m_headStartPosted = false;
    bool m_shutDown = false;
    // Bumped by every new Translate and source: tokens queued to the GUI thread by an older
    // run are dropped (a cancelled run may still have posted some).
    quint64 m_translateRun = 0;
    std::vector<AttributionJob> m_attributionJobs;  // running or queued, fast and slow
};

}  // namespace attnscope::app
