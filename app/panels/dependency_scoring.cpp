#include "panels/dependency_scoring.h"

#include <exception>
#include <optional>

#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/error.h"

namespace attnscope::app {

namespace {

constexpr std::size_t kWorkers = 2;
constexpr int kPollMilliseconds = 50;

struct Job {
    std::shared_ptr<const model::Model> model;
    std::string path;
    analysis::ScoreOptions options;
    CancelToken cancel;
};

// Scores every kWorkers-th sentence starting at `first`.
analysis::DependencyAccumulator scoreShare(const Job& job,
                                           std::shared_ptr<const std::vector<text::Sentence>> s,
                                           std::size_t first,
                                           std::shared_ptr<ScoringCounters> counters) {
    analysis::DependencyAccumulator acc(job.model->spec.nLayers, job.model->spec.nHeads,
                                        job.options);
    analysis::TreebankScoring how;
    how.first = first;
    how.stride = kWorkers;
    how.cancel = job.cancel;
    how.sentenceDone = [counters] { counters->done.fetch_add(1, std::memory_order_relaxed); };
    analysis::scoreSentences(*job.model, *s, acc, how);
    return acc;
}

// The whole job, on a pool thread: read, score half here and half on a second task, merge.
DependencyRun runJob(const Job& job, std::shared_ptr<ScoringCounters> counters) {
    text::ConlluOptions read;
    read.cancel = job.cancel;
    text::ConlluResult file = text::readConllu(job.path, read);
    text::requireSentences(file, job.path);
    auto sentences = std::make_shared<const std::vector<text::Sentence>>(std::move(file.sentences));
    counters->total.store(static_cast<int>(sentences->size()));

    // The second half keeps its error as an exception_ptr: QtConcurrent would wrap it.
    struct Half {
        std::optional<analysis::DependencyAccumulator> counts;
        std::exception_ptr error;
    };

    QFuture<Half> other = QtConcurrent::run([job, sentences, counters] {
        Half half;
        try {
            half.counts.emplace(scoreShare(job, sentences, 1, counters));
        } catch (...) {
            half.error = std::current_exception();
        }
        return half;
    });
    std::optional<analysis::DependencyAccumulator> mine;
    try {
        mine.emplace(scoreShare(job, sentences, 0, counters));
    } catch (...) {
        job.cancel.cancel();  // stop the other half before giving up
        other.waitForFinished();
        throw;
    }
    const Half theirs = other.result();
    if (theirs.error) {
        std::rethrow_exception(theirs.error);
    }
    mine->merge(*theirs.counts);
    auto byText = std::make_shared<std::unordered_map<std::string, std::size_t>>();
    for (std::size_t i = 0; i < sentences->size(); ++i) {
        byText->emplace((*sentences)[i].surfaceText().text, i);
    }
    DependencyRun run;
    run.treebank = QString::fromStdString(job.path);
    run.results = std::make_shared<const analysis::DependencyAccumulator>(std::move(*mine));
    run.sentences = sentences;
    run.byText = std::move(byText);
    run.badSentences = file.skipped;
    return run;
}

// runJob with every error caught: QtConcurrent (Qt 6.4) would wrap it in QUnhandledException.
DependencyRun runJobCaught(const Job& job, std::shared_ptr<ScoringCounters> counters) {
    DependencyRun run;
    try {
        return runJob(job, std::move(counters));
    } catch (const Cancelled&) {
        run.cancelled = true;
    } catch (const std::exception& e) {
        run.error = QString::fromStdString(e.what());
    } catch (...) {
        run.error = QStringLiteral("unknown error");
    }
    return run;
}

}  // namespace

DependencyScoring::DependencyScoring(QObject* parent) : QObject(parent), m_timer(new QTimer(this)) {
    m_timer->setInterval(kPollMilliseconds);
    connect(m_timer, &QTimer::timeout, this, &DependencyScoring::pollProgress);
}

DependencyScoring::~DependencyScoring() {
    if (m_running) {
        m_cancel.cancel();
        m_future.waitForFinished();  // runJobCaught never throws
    }
}

bool DependencyScoring::start(std::shared_ptr<const model::Model> model, const QString& path,
                              const analysis::ScoreOptions& options) {
    if (m_running || !model) {
        return false;
    }
    m_running = true;
    m_cancel = CancelToken();
    m_counters = std::make_shared<ScoringCounters>();
    const Job job{std::move(model), path.toStdString(), options, m_cancel};
    auto counters = m_counters;
    m_timer->start();
    emit progress(0, 0);
    // The continuation may run at once when the job fails immediately (a missing file).
    m_future = QtConcurrent::run([job, counters] { return runJobCaught(job, counters); });
    m_future.then(this, [this](const DependencyRun& run) {
        m_running = false;
        m_timer->stop();
        pollProgress();
        if (run.cancelled) {
            emit cancelled();
        } else if (!run.error.isEmpty()) {
            emit failed(run.error);
        } else {
            emit finished(run);
        }
    });
    return true;
}

void DependencyScoring::cancel() {
    m_cancel.cancel();
}

void DependencyScoring::pollProgress() {
    if (m_counters) {
        emit progress(m_counters->done.load(), m_counters->total.load());
    }
}

}  // namespace attnscope::app
