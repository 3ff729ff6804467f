// What the session holds about the head survey (issue 18): one run of analysis::runSurvey on a
// corpus for one model — what was asked, what was read, every head's scores, the distances and
// MDS map, for a treebank each head's best dependency relation, and the labels rules L1–L10 gave.
// Plain values, built off the GUI thread by the ComputeService and kept by the AnalysisSession,
// which drops them when another model opens; views only read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <QString>

#include "attnscope/analysis/head_labels.h"
#include "attnscope/analysis/survey_corpus.h"
#include "attnscope/base/head_id.h"
#include "attnscope/model/model.h"
#include "session/head_labels.h"
#include "session/result_document.h"

namespace attnscope::app {

// The user's choices for one run (the CLI's survey options).
struct SurveyRequest {
    // The first sentences of the file; 0 takes them all. 200 keeps a BERT-base run under a
    // minute on two cores (issue 18's benchmark: 500 within two minutes).
    int maxSentences = 200;
    double sinkEps = 0.3;         // S8
    int probeRepeats = 4;         // S7, causal models only
    int probeLength = 10;         // S7
    std::uint64_t probeSeed = 0;  // S7
    int rareTop = 500;            // S10
    analysis::LabelRules rules;   // L1–L10 thresholds
};

struct SurveyRun {
    QString corpusPath;
    std::shared_ptr<const model::Model> model;
    SurveyRequest request;
    analysis::SurveyOptions options;  // as run: ids, eps, probe (its cancel/progress unset)
    std::size_t sentencesInFile = 0;
    std::size_t sentencesUsed = 0;  // the first min(maxSentences, sentencesInFile)
    std::size_t tooLong = 0;        // left out: longer than the model's positions
    analysis::HeadSurvey survey;
    // Treebank corpora only (else empty): per-relation accuracies and each head's best relation.
    std::optional<analysis::DependencyLabels> dependencies;
    std::vector<analysis::BestRelation> bestRelations;  // [heads] or empty
    LabelsByHead labels;  // [heads], strongest first (session/head_labels.h)

    int nLayers() const { return survey.nLayers; }

    int nHeads() const { return survey.nHeads; }

    const std::vector<analysis::HeadLabel>& labelsOf(HeadId head) const;
};

// Runs the whole job: reads `path` (.conllu as a treebank with its trees, else one sentence a
// line) or takes `known` (the session's treebank, already read) when given, cuts it to
// request.maxSentences, surveys it on `run`'s shares and labels the heads. Throws the reader's
// errors (which name the file and line), InvalidArgument, Cancelled.
SurveyRun computeSurveyRun(std::shared_ptr<const model::Model> model, const QString& path,
                           const std::vector<text::Sentence>* known, const SurveyRequest& request,
                           const CancelToken& cancel, const ProgressFn& progress,
                           std::size_t shares, const analysis::ShareExecutor& run);

// Relabels a finished run with other thresholds (no pass rerun).
void relabel(SurveyRun& run, const analysis::LabelRules& rules);

// One line: corpus, sentences surveyed / left out, the probe, how many heads got a label.
QString surveySummary(const SurveyRun& run);

// The survey's part of the session: the run of the model open, whose labels the head views show
// (the session's head labels follow it).
class SurveyDocument : public ResultDocument {
public:
    using ResultDocument::ResultDocument;

    // Null when there is none.
    std::shared_ptr<const SurveyRun> run() const { return result<SurveyRun>(); }

    void setRun(std::shared_ptr<const SurveyRun> run);
};

}  // namespace attnscope::app
