// What the session holds about coreference (issue 16): the CorefUD corpus read, and for one
// model the windows cut with its tokenizer, their texts and the scores of every head and
// baseline on them; plus the gold mention → antecedent arcs of the window on screen, aligned to
// its tokens. Plain values, built off the GUI thread by the ComputeService and kept by the
// AnalysisSession; views only read them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <QString>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/analysis/word_alignment.h"
#include "attnscope/model/model.h"
#include "session/result_document.h"
#include "session/window_gold.h"

namespace attnscope::app {

// Every head's and baseline's coreference counts for the model that computed them, with the
// windows they were counted on.
struct CorefScores {
    std::shared_ptr<const analysis::CorefCorpus> corpus;
    std::shared_ptr<const model::Model> model;
    analysis::CorefScoreOptions options;
    std::size_t limit = 0;  // the window limit in tokens (analysis::windowLimit)
    analysis::CorefWindows windows;
    std::vector<std::string> windowTexts;  // [windows]
    // windowTexts[i] -> i; the first of duplicates.
    std::unordered_map<std::string, std::size_t> byText;
    analysis::CorefAccumulator counts;
};

// Fills the window texts and their index; the rest is moved in.
CorefScores makeCorefScores(std::shared_ptr<const analysis::CorefCorpus> corpus,
                            std::shared_ptr<const model::Model> model,
                            const analysis::CorefScoreOptions& options,
                            analysis::CorefWindows windows, analysis::CorefAccumulator counts);

// "GUM_doc · window 2 · Mary saw John …": how the window chooser names window `index`.
QString windowLabel(const CorefScores& scores, std::size_t index);

// Null when `result`'s text is no window's text, or its tokens do not fit the window's words.
std::shared_ptr<const WindowGold> windowGold(const CorefScores& scores,
                                             const analysis::SentenceAnalysis& result);

// Coreference's part of the session: the scores of the model open, whose gold arcs the head
// views draw (the session's overlays), and the corpus read last, kept for rescoring it when
// another model opens.
class CorefDocument : public ResultDocument {
public:
    using ResultDocument::ResultDocument;

    // Null before any.
    std::shared_ptr<const analysis::CorefCorpus> corpus() const { return m_corpus; }

    // Every head's coreference scores for the current model; null when there are none.
    std::shared_ptr<const CorefScores> scores() const { return result<CorefScores>(); }

    void setScores(std::shared_ptr<const CorefScores> scores);

private:
    std::shared_ptr<const analysis::CorefCorpus> m_corpus;
};

}  // namespace attnscope::app
