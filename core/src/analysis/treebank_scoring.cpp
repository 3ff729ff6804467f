#include "attnscope/analysis/treebank_scoring.h"

#include <algorithm>
#include <exception>
#include <optional>

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

DependencyAccumulator scoreTreebank(const model::Model& model,
                                    std::span<const text::Sentence> sentences,
                                    const ScoreOptions& options, const TreebankShares& how,
                                    const ShareExecutor& run) {
    const std::size_t n = std::max<std::size_t>(how.shares, 1);
    std::vector<std::optional<DependencyAccumulator>> parts(n);
    std::vector<std::exception_ptr> errors(n);  // each written by its own share only
    run(n, [&](std::size_t share) {
        try {
            TreebankScoring one;
            one.first = share;
            one.stride = n;
            one.cancel = how.cancel;
            one.sentenceDone = how.sentenceDone;
            if (how.scored) {
                one.scored = [&how, share](const auto& s, const auto& tokens, const auto& r) {
                    how.scored(share, s, tokens, r);
                };
            }
            parts[share].emplace(model.spec.nLayers, model.spec.nHeads, options);
            scoreSentences(model, sentences, *parts[share], one);
        } catch (...) {
            errors[share] = std::current_exception();
            how.cancel.cancel();  // the other shares' work would be thrown away
        }
    });
    std::exception_ptr cancelled;
    for (const std::exception_ptr& e : errors) {
        if (!e) {
            continue;
        }
        try {
            std::rethrow_exception(e);
        } catch (const Cancelled&) {
            cancelled = e;  // possibly only because another share failed: report that one
        } catch (...) {
            throw;
        }
    }
    if (cancelled) {
        std::rethrow_exception(cancelled);
    }
    DependencyAccumulator merged = std::move(*parts.front());
    for (std::size_t i = 1; i < n; ++i) {
        merged.merge(*parts[i]);
    }
    return merged;
}

}  // namespace attnscope::analysis
