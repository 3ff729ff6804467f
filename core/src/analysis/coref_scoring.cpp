// Scoring every head on coreference: windows through the model, predictions per head (R6) and
// the counts (coref_scoring.h).
#include "attnscope/analysis/coref_scoring.h"

#include <algorithm>

#include "attnscope/analysis/word_attention.h"
#include "attnscope/base/error.h"

namespace attnscope::analysis {

namespace {

// No own spans: the words of a multiword token share its span (MultiwordRule::Share).
const std::vector<ByteSpan> kShareSpans;

void requireTokenizer(const model::Model& model) {
    if (!model.tokenizer) {
        throw InvalidArgument(model.dir.string() + ": the model folder has no tokenizer");
    }
}

// D11: antecedent head words without a token are dropped; a mention whose own head word has
// none, or that is left without antecedents, gets headWord -1 (not scored, counted apart).
// Returns whether some mention is still scored.
bool dropWordsWithoutToken(std::vector<ScoredMention>& mentions, const WordAlignment& alignment) {
    const auto noToken = [&](int word) {
        return alignment.wordUnit[static_cast<std::size_t>(word)] < 0;
    };
    bool any = false;
    for (ScoredMention& m : mentions) {
        auto& words = m.antecedentWords;
        words.erase(std::remove_if(words.begin(), words.end(), noToken), words.end());
        if (noToken(m.headWord) || words.empty()) {
            m.headWord = -1;
        } else {
            any = true;
        }
    }
    return any;
}

// R6 for every head, [heads][mentions]: window words or kNoPrediction. Words without a unit
// are no candidates (predictHeads skips them).
std::vector<std::vector<int>> predictMentions(const forward::ForwardResult& forward,
                                              const WordAlignment& alignment,
                                              const std::vector<ScoredMention>& mentions,
                                              FromAggregation aggregation) {
    const std::vector<std::vector<int>> unitTokens = alignment.unitTokens();
    std::vector<std::vector<int>> out;
    out.reserve(static_cast<std::size_t>(forward.nLayers * forward.nHeads));
    for (int layer = 0; layer < forward.nLayers; ++layer) {
        for (int head = 0; head < forward.nHeads; ++head) {
            const Matrix map =
                wordAttention(forward.attention({layer, head}), unitTokens, aggregation);
            const std::vector<int> heads = predictHeads(map, alignment, Direction::DepToHead);
            std::vector<int>& picks = out.emplace_back(mentions.size(), kNoPrediction);
            for (std::size_t k = 0; k < mentions.size(); ++k) {
                if (mentions[k].headWord >= 0) {
                    const int p = heads[static_cast<std::size_t>(mentions[k].headWord)];
                    picks[k] = p == kNoPrediction ? kNoPrediction : p - 1;
                }
            }
        }
    }
    return out;
}

struct ShareJob {
    const model::Model& model;
    const CorefCorpus& corpus;
    const CorefWindows& windows;
    const CorefScoreOptions& options;
    const CorefShares& how;
    std::size_t limit = 0;
};

void scoreWindow(const ShareJob& job, std::size_t share, std::size_t index, CorefAccumulator& acc) {
    const CorefWindow& window = job.windows.windows[index];
    std::vector<ScoredMention> mentions = scoredMentions(job.corpus, window);
    const auto nHeads = static_cast<std::size_t>(acc.layers() * acc.heads());
    std::vector<std::vector<int>> none(nHeads, std::vector<int>(mentions.size(), kNoPrediction));
    if (mentions.empty()) {
        acc.addWindow(mentions, none);
        return;
    }
    const WindowText text = windowText(job.corpus, window);
    const std::vector<tokenize::Token> tokens = job.model.tokenizer->encode(text.text);
    if (tokens.size() > job.limit) {
        const int line = job.corpus.sentences[static_cast<std::size_t>(window.firstSentence)].line;
        throw InvalidArgument(job.corpus.path + ":" + std::to_string(line) + ": window " +
                              std::to_string(index) + " has " + std::to_string(tokens.size()) +
                              " tokens, more than the limit of " + std::to_string(job.limit) +
                              "; cut the windows with the same model and options");
    }
    const bool split = job.options.multiword == MultiwordRule::Split;
    const AlignmentResult aligned =
        alignWords(tokens, text.wordSpans, text.forms, split ? text.ownSpans : kShareSpans,
                   MissingWords::NoUnit);
    if (!dropWordsWithoutToken(mentions, *aligned.alignment)) {
        acc.addWindow(mentions, none);
        return;
    }
    const auto result = forward::runForward(job.model, {tokenize::ids(tokens), {}});
    acc.addWindow(mentions,
                  predictMentions(result, *aligned.alignment, mentions, job.options.aggregation));
    if (job.how.scored) {
        job.how.scored(share, index, text.text, tokens, result);
    }
}

}  // namespace

std::size_t windowLimit(const model::Model& model, const CorefScoreOptions& options) {
    const auto positions = static_cast<std::size_t>(std::max(model.spec.maxTokens(), 0));
    return options.maxTokens > 0 && options.maxTokens < positions ? options.maxTokens : positions;
}

CorefWindows cutWindows(const model::Model& model, const CorefCorpus& corpus,
                        const CorefScoreOptions& options, const CancelToken& cancel) {
    requireTokenizer(model);
    const std::function<std::size_t(std::string_view)> count = [&](std::string_view text) {
        cancel.throwIfCancelled();
        return model.tokenizer->encode(text).size();
    };
    return makeWindows(corpus, count, windowLimit(model, options));
}

CorefAccumulator scoreCoref(const model::Model& model, const CorefCorpus& corpus,
                            const CorefWindows& windows, const CorefScoreOptions& options,
                            const CorefShares& how, const ShareExecutor& run) {
    requireTokenizer(model);
    const ShareJob job{model, corpus, windows, options, how, windowLimit(model, options)};
    const std::size_t n = std::max<std::size_t>(how.shares, 1);
    std::vector<CorefAccumulator> parts(n);
    runShares(n, how.cancel, run, [&](std::size_t share) {
        parts[share] = CorefAccumulator(model.spec.nLayers, model.spec.nHeads);
        for (std::size_t i = share; i < windows.windows.size(); i += n) {
            how.cancel.throwIfCancelled();
            scoreWindow(job, share, i, parts[share]);
            if (how.windowDone) {
                how.windowDone();
            }
        }
    });
    CorefAccumulator merged(model.spec.nLayers, model.spec.nHeads);
    for (const CorefAccumulator& part : parts) {
        merged.merge(part);
    }
    CorefCounts& c = merged.counts;
    const text::CorefResult& coref = corpus.coref;
    c.documents = static_cast<std::int64_t>(coref.documents.size());
    c.sentences = static_cast<std::int64_t>(corpus.sentences.size());
    c.sentencesSkipped = windows.sentencesSkipped;
    c.mentions = static_cast<std::int64_t>(coref.mentions.size());
    c.discontinuous = coref.discontinuous;
    c.unclosed = coref.unclosed;
    c.unmatched = coref.unmatched;
    c.malformedSentences = coref.malformedSentences;
    return merged;
}

}  // namespace attnscope::analysis
