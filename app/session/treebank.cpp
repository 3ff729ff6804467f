#include "session/treebank.h"

#include <exception>

#include "attnscope/analysis/treebank_scoring.h"

namespace attnscope::app {

Treebank Treebank::read(const QString& path, const CancelToken& cancel) {
    text::ConlluOptions options;
    options.cancel = cancel;
    const std::string file = path.toStdString();
    text::ConlluResult read = text::readConllu(file, options);
    text::requireSentences(read, file);
    Treebank treebank;
    treebank.path = path;
    treebank.sentences = std::move(read.sentences);
    treebank.badSentences = static_cast<int>(read.skipped);
    treebank.texts.reserve(treebank.sentences.size());
    for (std::size_t i = 0; i < treebank.sentences.size(); ++i) {
        treebank.texts.push_back(treebank.sentences[i].surfaceText().text);
        treebank.byText.emplace(treebank.texts.back(), i);
    }
    return treebank;
}

std::shared_ptr<const SentenceGold> sentenceGold(const Treebank& treebank,
                                                 const analysis::SentenceAnalysis& result) {
    const auto it = treebank.byText.find(result.text);
    if (it == treebank.byText.end() || !treebank.sentences[it->second].hasTree()) {
        return nullptr;
    }
    auto gold = std::make_shared<SentenceGold>();
    gold->gold = analysis::goldSentence(treebank.sentences[it->second], nullptr);
    try {
        // The scoring default (MultiwordRule::Split), so the arcs join the units scored.
        auto aligned = analysis::alignWords(result.tokens, gold->gold.wordSpans, gold->gold.words,
                                            gold->gold.ownSpans);
        if (!aligned.ok()) {
            return nullptr;
        }
        gold->alignment = std::move(*aligned.alignment);
    } catch (const std::exception&) {
        return nullptr;  // spans that do not fit these tokens: no gold arcs rather than wrong ones
    }
    return gold;
}

}  // namespace attnscope::app
