// Scoring a model's heads on treebank sentences: for each sentence, build its text from the
// words, tokenize, run the forward pass (the model's default mask), align words and tokens and
// add the counts to a DependencyAccumulator. Sentences longer than the model's positions, without
// a tree, or that cannot be aligned are skipped and counted by reason.
// Single-threaded and const on the model: callers that want two cores give each thread its own
// accumulator and a share of the sentences (`first`, `stride`) and merge afterwards.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

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

// The gold sentence (forms, heads, relations, word spans) of a CoNLL-U sentence and its text.
GoldSentence goldSentence(const text::Sentence& sentence, std::string* text);

// Throws InvalidArgument when the model has no tokenizer.
void scoreSentences(const model::Model& model, std::span<const text::Sentence> sentences,
                    DependencyAccumulator& accumulator, const TreebankScoring& how = {});

}  // namespace attnscope::analysis
