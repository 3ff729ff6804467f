// Runs one dependency-scoring job in the background for the Dependencies panel: reads a
// CoNLL-U treebank and scores every head on it (treebank_scoring.h). The core starts no
// threads, so this class does: one QtConcurrent task reads the file and scores the even
// sentences while a second task scores the odd ones (`first`/`stride`), each with its own
// DependencyAccumulator; the two are merged when both are done. The GUI thread never waits,
// except in the destructor, which cancels and then waits for the (quickly stopping) workers.
//
// Progress is polled from shared atomic counters by a timer in the GUI thread, so workers never
// touch QObjects. One job at a time: start() while running is refused. GUI thread only.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <QFuture>
#include <QObject>
#include <QString>

#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/base/cancel.h"
#include "attnscope/model/model.h"
#include "attnscope/text/conllu.h"

class QTimer;

namespace attnscope::app {

// A finished scoring run: the merged counts and the treebank it was computed on.
struct DependencyRun {
    QString treebank;
    std::shared_ptr<const analysis::DependencyAccumulator> results;
    std::shared_ptr<const std::vector<text::Sentence>> sentences;
    // Surface text (Sentence::surfaceText) -> index into `sentences`, for gold arcs.
    std::shared_ptr<const std::unordered_map<std::string, std::size_t>> byText;
    int badSentences = 0;  // left out by the CoNLL-U reader
    // Set instead of the above when the job did not finish (workers never throw).
    bool cancelled = false;
    QString error;
};

// Sentences done and in all, shared with the workers.
struct ScoringCounters {
    std::atomic<int> done{0};
    std::atomic<int> total{0};
};

class DependencyScoring : public QObject {
    Q_OBJECT

public:
    explicit DependencyScoring(QObject* parent = nullptr);
    ~DependencyScoring() override;

    bool isRunning() const { return m_running; }

    // Starts scoring `path` with `model`; false (and nothing started) while a job runs.
    bool start(std::shared_ptr<const model::Model> model, const QString& path,
               const analysis::ScoreOptions& options);
    void cancel();

signals:
    void progress(int done, int total);  // sentences; total is 0 while the file is read
    void finished(const attnscope::app::DependencyRun& run);
    void failed(const QString& message);  // not emitted for a cancelled job
    void cancelled();

private:
    void pollProgress();

    QFuture<DependencyRun> m_future;
    CancelToken m_cancel;
    std::shared_ptr<ScoringCounters> m_counters;
    QTimer* m_timer;
    bool m_running = false;
};

}  // namespace attnscope::app
