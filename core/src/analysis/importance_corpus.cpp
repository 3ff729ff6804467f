// The objective of head importance: which positions of each sentence are masked and what the
// model must predict there (head_importance.h). Kept apart from the passes so the rule the
// PyTorch reference re-implements reads in one place.
#include <algorithm>
#include <cmath>
#include <utility>

#include "attnscope/analysis/head_importance.h"
#include "attnscope/analysis/truncation.h"
#include "attnscope/base/error.h"
#include "attnscope/base/splitmix64.h"

namespace attnscope::analysis {

namespace {

void checkFraction(double fraction) {
    // Written so that NaN fails too.
    if (!(fraction > 0.0 && fraction <= 1.0)) {
        throw InvalidArgument("head importance: mask fraction " + std::to_string(fraction) +
                              " is outside (0, 1]");
    }
}

const tokenize::Tokenizer& requireTokenizer(const model::Model& model) {
    if (!model.tokenizer) {
        throw InvalidArgument(model.dir.string() +
                              ": the model folder has no tokenizer, so sentences cannot be read");
    }
    return *model.tokenizer;
}

std::int32_t requireMaskId(const model::Model& model, const tokenize::Tokenizer& tokenizer) {
    const auto id = tokenizer.specialId(tokenize::SpecialRole::Mask);
    if (!id) {
        throw InvalidArgument(model.dir.string() +
                              ": the tokenizer has no mask token ([MASK] / <mask>), which a "
                              "masked LM needs to be asked for the masked tokens");
    }
    return *id;
}

// The item of one sentence's tokens; no target when there is nothing to predict.
ImportanceItem makeItem(const std::vector<tokenize::Token>& tokens, ImportanceObjective objective,
                        std::int32_t maskId, const ImportanceOptions& options,
                        std::uint64_t sentenceIndex) {
    ImportanceItem item;
    item.ids = tokenize::ids(tokens);
    if (objective == ImportanceObjective::CausalLm) {
        for (std::size_t i = 0; i + 1 < item.ids.size(); ++i) {
            item.targets.emplace_back(static_cast<int>(i), item.ids[i + 1]);
        }
        return item;
    }
    std::vector<int> candidates;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (!tokens[i].special) {
            candidates.push_back(static_cast<int>(i));
        }
    }
    for (const int p :
         maskedPositions(candidates, options.maskFraction, options.seed, sentenceIndex)) {
        const auto at = static_cast<std::size_t>(p);
        item.targets.emplace_back(p, item.ids[at]);
        item.ids[at] = maskId;
    }
    return item;
}

}  // namespace

std::vector<int> maskedPositions(const std::vector<int>& candidates, double fraction,
                                 std::uint64_t seed, std::uint64_t sentenceIndex) {
    checkFraction(fraction);
    const std::size_t m = candidates.size();
    if (m == 0) {
        return {};
    }
    const double rounded = std::floor(fraction * static_cast<double>(m) + 0.5);
    const std::size_t k = std::min(m, std::max<std::size_t>(1, static_cast<std::size_t>(rounded)));
    std::vector<int> pool = candidates;
    SplitMix64 random(seed + sentenceIndex);  // unsigned: wraps mod 2^64 as the rule says
    for (std::size_t i = 0; i < k; ++i) {
        const std::size_t j = i + static_cast<std::size_t>(random.next() % (m - i));
        std::swap(pool[i], pool[j]);
    }
    pool.resize(k);
    std::sort(pool.begin(), pool.end());
    return pool;
}

ImportanceObjective importanceObjective(const model::Model& model) {
    switch (model.spec.prediction) {
        case model::PredictionKind::MaskedLm:
            return ImportanceObjective::MaskedLm;
        case model::PredictionKind::CausalLm:
            return ImportanceObjective::CausalLm;
        case model::PredictionKind::None:
            break;
    }
    throw InvalidArgument(model.dir.string() +
                          ": the checkpoint has no prediction head (no MLM or LM head tensors), "
                          "so there is no loss to measure head importance with");
}

ImportanceCorpus importanceCorpus(const model::Model& model,
                                  const std::vector<std::string>& sentences,
                                  const ImportanceOptions& options) {
    const ImportanceObjective objective = importanceObjective(model);
    const tokenize::Tokenizer& tokenizer = requireTokenizer(model);
    checkFraction(options.maskFraction);
    const std::int32_t maskId =
        objective == ImportanceObjective::MaskedLm ? requireMaskId(model, tokenizer) : 0;
    const auto limit = static_cast<std::size_t>(std::max(model.spec.maxTokens(), 0));
    ImportanceCorpus corpus;
    corpus.sentences = sentences.size();
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        options.cancel.throwIfCancelled();
        std::vector<tokenize::Token> tokens = tokenizer.encode(sentences[i]);
        if (tokens.size() > limit) {
            tokens = tokenizer.encode(fittingPrefix(tokenizer, sentences[i], tokens, limit));
            ++corpus.truncated;
            if (tokens.size() > limit) {
                tokens.clear();  // not even the special tokens fit: nothing to predict
            }
        }
        ImportanceItem item = makeItem(tokens, objective, maskId, options, i);
        if (item.targets.empty()) {
            ++corpus.skipped;
            continue;
        }
        corpus.items.push_back(std::move(item));
        corpus.sentenceOf.push_back(i);
    }
    return corpus;
}

}  // namespace attnscope::analysis
