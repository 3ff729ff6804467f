// What the session holds about head importance (issue 17): one run of analysis::headImportance
// on a corpus for one model: what was asked, what was read and the result (every unit's Δloss,
// the pruning curve). Plain values, built off the GUI thread by the ComputeService and kept by
// the AnalysisSession, which drops them when another model opens; views only read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <QString>

#include "attnscope/analysis/head_importance.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/interventions.h"
#include "attnscope/model/model.h"
#include "session/result_document.h"

namespace attnscope::app {

// The user's choices for one run.
struct ImportanceRequest {
    forward::AblationKind kind = forward::AblationKind::Zero;
    bool kvGroups = false;  // units are key/value groups (grouped-query models)
    // The first sentences of the file; 0 takes them all. 100 keeps a BERT-base run within
    // minutes on two cores (issue 17's benchmark).
    int maxSentences = 100;
    std::uint64_t seed = 0;
    double maskFraction = 0.15;  // masked LMs only
};

struct ImportanceRun {
    QString corpusPath;
    std::shared_ptr<const model::Model> model;
    ImportanceRequest request;
    std::size_t sentencesInFile = 0;
    std::size_t sentencesUsed = 0;  // the first min(maxSentences, sentencesInFile)
    std::size_t skipped = 0;        // no target (analysis::ImportanceCorpus)
    std::size_t truncated = 0;      // cut to the model's positions
    analysis::ImportanceResult result;
};

// The sentences a run reads: the file's, or `known` (the session's treebank texts) when given,
// cut to request.maxSentences. Throws the reader's errors, which name the file and line.
std::vector<std::string> importanceSentences(const QString& path,
                                             const std::vector<std::string>* known,
                                             const ImportanceRequest& request, std::size_t* inFile);

// Runs the whole job on `run` (the caller's share executor): corpus, importance, the run.
// `progress` gets the fraction done from any thread.
ImportanceRun computeImportanceRun(std::shared_ptr<const model::Model> model, const QString& path,
                                   std::vector<std::string> sentences, std::size_t inFile,
                                   const ImportanceRequest& request, const CancelToken& cancel,
                                   const ProgressFn& progress, std::size_t shares,
                                   const analysis::ShareExecutor& run);

// Units per layer a request gets on `model`: its key/value heads for kvGroups on a
// grouped-query model, else its query heads.
int importanceUnits(const model::Model& model, bool kvGroups);

// "head 3-7" or "group 3-g1" (0-based, as the CLI's --heads takes them).
QString unitName(const analysis::ImportanceResult& result, int layer, int unit);
// "Head" or "Group": the table's column title.
QString unitTitle(const analysis::ImportanceResult& result);

// [nLayers * nUnits]: 1 for the unit whose ablation raises the loss most, N for the least
// (the reverse of result.order, whose ties break by lower layer, then lower head).
std::vector<int> importanceRanks(const analysis::ImportanceResult& result);

// The query head a click on unit (layer, unit) opens: the head itself, or the first query head
// of the key/value group.
HeadId headOfUnit(const analysis::ImportanceResult& result, int nHeads, int layer, int unit);

// "zero", "mean", "sink" ablation, with what the run is over, for the summary and the figures.
QString ablationText(const ImportanceRun& run);

// One line: ablation, objective, file and sentences, targets, clean loss and accuracy.
QString importanceSummary(const ImportanceRun& run);

// Importance's part of the session: the run of the model open — every head's (or key/value
// group's) importance on a corpus.
class ImportanceDocument : public ResultDocument {
public:
    using ResultDocument::ResultDocument;

    // Null when there is none.
    std::shared_ptr<const ImportanceRun> run() const { return result<ImportanceRun>(); }

    void setRun(std::shared_ptr<const ImportanceRun> run) {
        const auto model = run ? run->model : nullptr;
        keep(std::move(run), model);
    }
};

}  // namespace attnscope::app
