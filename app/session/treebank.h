// What the session holds about a CoNLL-U treebank: the sentences read (for gold trees of typed
// or listed sentences, and the corpus the corpus analyses reuse), and the gold tree and word
// alignment of the sentence on screen. Plain values, built off the GUI thread by the
// ComputeService and kept by the AnalysisSession; views only read them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <QString>

#include "attnscope/analysis/dependency_score.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/analysis/word_alignment.h"
#include "attnscope/model/model.h"
#include "attnscope/text/conllu.h"

namespace attnscope::app {

struct Treebank {
    QString path;
    std::vector<text::Sentence> sentences;
    // Each sentence's surface text (Sentence::surfaceText), built once when read: the sentence
    // list shows them and the gold lookup indexes them.
    std::vector<std::string> texts;
    // texts[i] -> i; the first of duplicates.
    std::unordered_map<std::string, std::size_t> byText;
    int badSentences = 0;  // malformed in the file, left out by the reader

    // Reads and indexes `path`; throws the reader's errors (FormatError names file and line).
    static Treebank read(const QString& path, const CancelToken& cancel);
};

// The gold tree of the sentence on screen, aligned to its tokens (null: not a treebank sentence,
// no tree, or words that cannot be aligned).
struct SentenceGold {
    analysis::GoldSentence gold;
    analysis::WordAlignment alignment;
};

std::shared_ptr<const SentenceGold> sentenceGold(const Treebank& treebank,
                                                 const analysis::SentenceAnalysis& result);

}  // namespace attnscope::app
