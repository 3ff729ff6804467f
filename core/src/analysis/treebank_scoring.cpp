#include "attnscope/analysis/treebank_scoring.h"

#include <algorithm>
#include <exception>
#include <optional>

#include "attnscope/base/error.h"

namespace attnscope::analysis {

namespace {

// Gives the words of each multiword token whose forms spell its text ("can't" = "ca" + "n't",
// byte for byte) their own consecutive spans inside it; the others keep the shared span.
void splitMultiwordSpans(const text::Sentence& sentence, GoldSentence& gold) {
    gold.ownSpans = gold.wordSpans;
    const std::size_t n = gold.words.size();
    for (const text::MultiwordToken& t : sentence.multiwords) {
        if (t.first < 1 || t.last > static_cast<int>(n) || t.last <= t.first) {
            continue;  // hand-built sentences; surfaceText() does not span these either
        }
        const auto first = static_cast<std::size_t>(t.first - 1);
        const auto last = static_cast<std::size_t>(t.last);
        std::string spelled;
        for (std::size_t w = first; w < last; ++w) {
            spelled += gold.words[w];
        }
        const ByteSpan token = gold.wordSpans[first];
        if (spelled != t.form || token.end - token.begin != spelled.size()) {
            continue;
        }
        std::size_t at = token.begin;
        for (std::size_t w = first; w < last; ++w) {
            gold.ownSpans[w] = {at, at + gold.words[w].size()};
            at = gold.ownSpans[w].end;
        }
    }
}

}  // namespace

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
    splitMultiwordSpans(sentence, gold);
    if (text != nullptr) {
        *text = surface.text;
    }
    return gold;
}

std::string tooLongReason(const model::Model& model) {
    return "longer than the model's " + std::to_string(model.spec.maxTokens()) + " positions";
}

void scoreSentences(const model::Model& model, std::span<const text::Sentence> sentences,
                    DependencyAccumulator& acc, const TreebankScoring& how) {
    if (!model.tokenizer) {
        throw InvalidArgument(model.dir.string() + ": the model folder has no tokenizer");
    }
    const auto maxTokens = static_cast<std::size_t>(model.spec.maxTokens());
    const std::string tooLong = tooLongReason(model);
    for (std::size_t i = how.first; i < sentences.size();
         i += std::max<std::size_t>(how.stride, 1)) {
        how.cancel.throwIfCancelled();
        const text::Sentence& s = sentences[i];
        if (!s.hasTree()) {
            acc.addSkipped(std::string(kSkipNoTree));
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

void runShares(std::size_t n, const CancelToken& cancel, const ShareExecutor& run,
               const std::function<void(std::size_t)>& share) {
    std::vector<std::exception_ptr> errors(n);  // each written by its own share only
    run(n, [&](std::size_t i) {
        try {
            share(i);
        } catch (...) {
            errors[i] = std::current_exception();
            cancel.cancel();  // the other shares' work would be thrown away
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
}

DependencyAccumulator scoreTreebank(const model::Model& model,
                                    std::span<const text::Sentence> sentences,
                                    const ScoreOptions& options, const TreebankShares& how,
                                    const ShareExecutor& run) {
    const std::size_t n = std::max<std::size_t>(how.shares, 1);
    std::vector<std::optional<DependencyAccumulator>> parts(n);
    runShares(n, how.cancel, run, [&](std::size_t share) {
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
    });
    DependencyAccumulator merged = std::move(*parts.front());
    for (std::size_t i = 1; i < n; ++i) {
        merged.merge(*parts[i]);
    }
    return merged;
}

}  // namespace attnscope::analysis
