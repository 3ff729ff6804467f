// A corpus ready for the head survey (head_survey.h), shared by the CLI and the app: sentences
// tokenized with the model's tokenizer (those longer than its positions left out and counted),
// the special, punctuation and period ids of S1/S4, and — when the corpus is a treebank — the
// gold trees, so one forward pass per sentence feeds both the survey and the dependency scoring
// (treebank_scoring.h's rules) whose per-head accuracies give the survey its "best relation" and
// the labels their L10 (head_labels.h).
//
// Usage:
//   SurveyCorpus corpus = surveyCorpusFromTreebank(model, treebank.sentences, cancel);
//   SurveyOptions options;  addCorpusIds(model, corpus, options);
//   SurveyRun run = runSurvey(model, corpus, options, {}, executor);
//   DependencyLabels deps = dependencyLabels(*run.dependencies);
//   labelHeads(run.survey, {}, &deps);
// No Qt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attnscope/analysis/dependency_accumulator.h"
#include "attnscope/analysis/head_labels.h"
#include "attnscope/analysis/head_survey.h"
#include "attnscope/text/conllu.h"

namespace attnscope::analysis {

struct SurveyCorpus {
    std::vector<std::vector<std::int32_t>> ids;  // one per surveyed sentence
    std::vector<std::int32_t> specialIds;        // ids the tokenizer marked special here, sorted
    std::size_t read = 0;                        // sentences given
    std::size_t inFile = 0;     // readSurveyCorpus: sentences the file (or `known`) held
    std::size_t malformed = 0;  // readSurveyCorpus: bad treebank sentences the reader left out
    std::size_t tooLong = 0;    // left out: longer than the model's positions
    // Treebank only, parallel to ids: the gold tree (empty words when the sentence has none,
    // "HEAD is _") and the tokens its ids came from, for DependencyAccumulator::addSentence.
    std::vector<GoldSentence> gold;
    std::vector<std::vector<tokenize::Token>> tokens;

    bool hasTrees() const { return !gold.empty(); }
};

// Sentences as text (text::readSentences). InvalidArgument when the model has no tokenizer;
// Cancelled between sentences.
SurveyCorpus surveyCorpusFromLines(const model::Model& model, std::span<const std::string> lines,
                                   const CancelToken& cancel = {});

// Treebank sentences, their text built as treebank_scoring.h's goldSentence builds it, so the
// dependency counts equal scoreTreebank's on the same sentences (too-long ones are skipped there
// with the same reason).
SurveyCorpus surveyCorpusFromTreebank(const model::Model& model,
                                      std::span<const text::Sentence> sentences,
                                      const CancelToken& cancel = {});

// The corpus at `path`: a treebank when text::isTreebankPath (its trees kept), else one sentence a
// line (text::readSentences); or `known`, that treebank's sentences already read. Only the first
// maxSentences are kept (0: all). Throws the readers' errors (which name the file and line),
// Cancelled, and surveyCorpusFrom*'s.
SurveyCorpus readSurveyCorpus(const model::Model& model, const std::filesystem::path& path,
                              std::size_t maxSentences, const CancelToken& cancel = {},
                              const std::vector<text::Sentence>* known = nullptr);

// S1/S4's ids. Special: Hugging Face's all_special_ids as far as the tokenizer tells them — its
// special roles ([CLS], [SEP], BOS, EOS, pad, mask, unk), the added tokens its files mark special
// (for the slow SentencePiece tokenizers every added token) and the corpus's special ids.
// Punctuation: Clark's ("." and ","), i.e. the vocabulary pieces that are exactly "." or ","
// once the word-boundary mark is removed (WordPiece "##", byte-level BPE's "Ġ" via its byte
// table, SentencePiece "▁"), special tokens excluded; period: those that are ".". And the
// tokenizer's BOS for the probe (S7) when it has one.
void addCorpusIds(const model::Model& model, const SurveyCorpus& corpus, SurveyOptions& options);

struct SurveyRun {
    HeadSurvey survey;
    // Present for a treebank: the dependency counts of the same passes (sentences without a
    // tree and too-long ones counted as skipped, by reason).
    std::optional<DependencyAccumulator> dependencies;
};

// surveyCorpus on corpus.ids, and for a treebank the dependency counts from the same forward
// passes (one accumulator per share, merged in share order: counts are integers, so the result
// does not depend on the shares either).
SurveyRun runSurvey(const model::Model& model, const SurveyCorpus& corpus,
                    const SurveyOptions& options, const ScoreOptions& scoring,
                    const ShareExecutor& run);

// L10's input from dependency counts: every relation of relationTable(minCount)'s rows but
// "all" (root and punct are left out there), each head's accuracy the better of its two
// directions (NaN when neither predicted), the baseline the relation's best fixed offset.
DependencyLabels dependencyLabels(const DependencyAccumulator& counts, std::int64_t minCount = 100);

}  // namespace attnscope::analysis
