#include "attnscope/analysis/treebank_scoring.h"

#include "attnscope/base/error.h"

namespace attnscope::analysis {

GoldSentence goldSentence(const text::Sentence& sentence, std::string* text) {
    const text::SurfaceText surface = sentence.surfaceText();
    GoldSentence gold;
    for (std::size_t i = 0; i < sentence.words.size(); ++i) {
        const text::Word& w = sentence.words[i];
        gold.words.push_back(w.form);
        gold.heads.push_back(w.head);
        gold.relations.push_back(w.deprel);
        gold.wordSpans.push_back({surface.wordSpans[i].begin, surface.wordSpans[i].end});
    }
    if (text != nullptr) {
        *text = surface.text;
    }
    return gold;
}

void scoreSentences(const model::Model& model, std::span<const text::Sentence> sentences,
                    DependencyAccumulator& acc, const TreebankScoring& how) {
    if (!model.tokenizer) {
        throw InvalidArgument(model.dir.string() + ": the model folder has no tokenizer");
    }
    const auto maxTokens = static_cast<std::size_t>(model.spec.maxTokens());
    std::string tooLong = "longer than the model's ";
    tooLong.append(std::to_string(maxTokens)).append(" positions");
    for (std::size_t i = how.first; i < sentences.size();
         i += std::max<std::size_t>(how.stride, 1)) {
        how.cancel.throwIfCancelled();
        const text::Sentence& s = sentences[i];
        if (!s.hasTree()) {
            acc.addSkipped("no dependency tree (HEAD is _)");
        } else {
            std::string text;
            const GoldSentence gold = goldSentence(s, &text);
            const auto tokens = model.tokenizer->encode(text);
            if (tokens.size() > maxTokens) {
                acc.addSkipped(tooLong);
            } else {
                const auto result = forward::runForward(model, {tokenize::ids(tokens), {}});
                if (acc.addSentence(gold, tokens, result).scored && how.scored) {
                    how.scored(s, tokens, result);
                }
            }
        }
        if (how.sentenceDone) {
            how.sentenceDone();
        }
    }
}

}  // namespace attnscope::analysis
