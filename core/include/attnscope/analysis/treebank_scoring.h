// Scoring a model's heads on treebank sentences: for each sentence, build its text from the
// words, tokenize, run the forward pass (the model's default mask), align words and tokens and
// add the counts to a DependencyAccumulator. Sentences longer than the model's positions, without
// a tree, or that cannot be aligned are skipped and counted by reason.
// scoreSentences is single-threaded and const on the model. scoreTreebank splits a treebank into
// shares (every n-th sentence), scores each into its own accumulator and merges them; the caller
// supplies the executor, so the CLI runs shares on std::threads and the app on its own pools.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/base/cancel.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"
#include "attnscope/text/conllu.h"

namespace attnscope::analysis {

struct TreebankScoring {
    std::size_t first = 0;  // score sentences first, first + stride, ...
    std::size_t stride = 1;
    CancelToken cancel;                  // checked between sentences (throws Cancelled)
    std::function<void()> sentenceDone;  // after every sentence, scored or skipped; may be empty
    // After every scored sentence (for dumps); may be empty.
    std::function<void(const text::Sentence&, const std::vector<tokenize::Token>&,
                       const forward::ForwardResult&)>
        scored;
};

// Skip reasons of the treebank scorers (scoreSentences here, runSurvey in survey_corpus.h), on top
// of the accumulator's own (dependency_accumulator.h).
inline constexpr std::string_view kSkipNoTree = "no dependency tree (HEAD is _)";

// "longer than the model's 512 positions"
std::string tooLongReason(const model::Model& model);

// The gold sentence (forms, heads, relations, word spans and own spans) of a CoNLL-U sentence
// and its text.
GoldSentence goldSentence(const text::Sentence& sentence, std::string* text);

// Throws InvalidArgument when the model has no tokenizer.
void scoreSentences(const model::Model& model, std::span<const text::Sentence> sentences,
                    DependencyAccumulator& accumulator, const TreebankScoring& how = {});

// Runs task(0) … task(n - 1), concurrently or not, and returns when all have returned. Tasks
// never throw (scoreTreebank catches inside them), so an executor needs no error handling.
using ShareExecutor =
    std::function<void(std::size_t n, const std::function<void(std::size_t)>& task)>;

// Runs share(0) … share(n - 1) on `run`. A share that throws cancels `cancel`, since the
// others' work would be thrown away; afterwards the first error other than Cancelled is
// rethrown, else Cancelled when some share was cancelled. (scoreTreebank, scoreCoref.)
void runShares(std::size_t n, const CancelToken& cancel, const ShareExecutor& run,
               const std::function<void(std::size_t)>& share);

struct TreebankShares {
    std::size_t shares = 1;  // sentences i, i + shares, ... go to share i
    CancelToken cancel;      // checked between sentences; a failing share also sets it
    // After every sentence, from whichever thread scored it: must be thread-safe.
    std::function<void()> sentenceDone;
    // After every scored sentence, with its share's index: called by one thread per share.
    std::function<void(std::size_t share, const text::Sentence&,
                       const std::vector<tokenize::Token>&, const forward::ForwardResult&)>
        scored;
};

// Scores every sentence into one accumulator, shares merged in order. The first error of a share
// (other than Cancelled) is rethrown after every share stopped; Cancelled when cancelled.
DependencyAccumulator scoreTreebank(const model::Model& model,
                                    std::span<const text::Sentence> sentences,
                                    const ScoreOptions& options, const TreebankShares& how,
                                    const ShareExecutor& run);

}  // namespace attnscope::analysis
