#include "attnscope/forward/prediction.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attnscope/base/error.h"
#include "attnscope/base/threads.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/ops/layer_ops.h"

namespace attnscope::forward {

namespace {

// Encoder-decoder models predict from the decoder's output, with the decoder's head.
const model::Model& headModel(const model::Model& model) {
    return model.decoder ? *model.decoder : model;
}

}  // namespace

bool hasPredictionHead(const model::Model& model) {
    return headModel(model).spec.prediction != model::PredictionKind::None;
}

std::string tokenPiece(const model::Model& model, std::int32_t id) {
    const tokenize::TokenVocabulary* pieces = model.vocabulary();
    std::string piece = pieces != nullptr ? pieces->idToToken(id) : "";
    if (piece.empty()) {
        piece = std::string("#").append(std::to_string(id));
    }
    return piece;
}

std::string predictionKindName(const model::Model& model) {
    if (model.decoder && hasPredictionHead(model)) {
        return "sequence-to-sequence LM";
    }
    switch (model.spec.prediction) {
        case model::PredictionKind::MaskedLm:
            return "masked LM";
        case model::PredictionKind::CausalLm:
            return "causal LM";
        case model::PredictionKind::None:
            break;
    }
    return "none";
}

Matrix vocabularyLogits(const model::Model& top, const Matrix& hidden) {
    if (!hasPredictionHead(top)) {
        throw InvalidArgument(top.dir.string() +
                              ": the checkpoint has no prediction head (no MLM or LM head "
                              "tensors), so it cannot predict tokens");
    }
    applyComputeThreads();
    const model::Model& model = headModel(top);
    const model::PredictionHead& head = model.weights.prediction;
    Matrix x = hidden;
    if (model.spec.predictionScale != 1.0f) {
        x *= model.spec.predictionScale;  // T5's tied head
    }
    if (model.spec.prediction == model::PredictionKind::MaskedLm) {
        x = ops::linear(x, head.transform);
        ops::activate(x, model.spec.headActivation);
        x = ops::layerNorm(x, head.transformNorm, model.spec.normEps);
    }
    // Through ops::linear so a half-precision decoder (tied or not) is widened a block of
    // vocabulary rows at a time, never as a whole [vocabSize, dModel] fp32 copy.
    Matrix logits = ops::linear(x, model.weights.decoder());
    if (head.bias.size() > 0) {
        logits.rowwise() += head.bias.transpose();
    }
    if (const float cap = model.spec.finalLogitSoftcap; cap > 0.0f) {
        logits = ((logits.array() / cap).tanh() * cap).matrix();  // Gemma 2
    }
    return logits;
}

std::vector<int> maskTokenPositions(const model::Model& model,
                                    const std::vector<std::int32_t>& ids) {
    std::vector<int> out;
    const tokenize::TokenVocabulary* vocab = model.vocabulary();
    const auto mask = vocab ? vocab->specialId(tokenize::SpecialRole::Mask) : std::nullopt;
    for (std::size_t i = 0; mask && i < ids.size(); ++i) {
        if (ids[i] == *mask) {
            out.push_back(static_cast<int>(i));
        }
    }
    return out;
}

std::vector<TokenPrediction> topPredictions(const model::Model& model, const ForwardResult& r,
                                            int position, int k) {
    if (position < 0 || position >= r.nTokens) {
        throw InvalidArgument("predictions: position " + std::to_string(position) +
                              " is outside the sequence [0, " + std::to_string(r.nTokens) + ")");
    }
    const Matrix logits = vocabularyLogits(model, r.hidden.row(position));
    const auto vocab = static_cast<std::size_t>(logits.cols());
    const float maxLogit = logits.maxCoeff();
    double sum = 0.0;  // double: tens of thousands of terms
    for (Eigen::Index j = 0; j < logits.cols(); ++j) {
        sum += std::exp(static_cast<double>(logits(0, j) - maxLogit));
    }
    std::vector<std::int32_t> order(vocab);
    std::iota(order.begin(), order.end(), 0);
    const auto take = std::min(vocab, static_cast<std::size_t>(std::max(k, 0)));
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                      [&](std::int32_t a, std::int32_t b) {
                          const float la = logits(0, a);
                          const float lb = logits(0, b);
                          return la > lb || (la == lb && a < b);
                      });
    std::vector<TokenPrediction> out;
    for (std::size_t i = 0; i < take; ++i) {
        TokenPrediction p;
        p.id = order[i];
        p.logit = logits(0, p.id);
        p.probability = static_cast<float>(std::exp(static_cast<double>(p.logit - maxLogit)) / sum);
        p.token = tokenPiece(model, p.id);
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<std::int32_t> greedyContinuation(const model::Model& model,
                                             std::vector<std::int32_t> ids, int steps,
                                             const CancelToken& cancel) {
    if (model.spec.prediction != model::PredictionKind::CausalLm) {
        throw InvalidArgument(model.dir.string() + ": greedy continuation needs a causal LM head");
    }
    std::vector<std::int32_t> added;
    for (int step = 0; step < steps && static_cast<int>(ids.size()) < model.spec.maxTokens();
         ++step) {
        cancel.throwIfCancelled();
        const ForwardResult r = runForward(model, {ids, {}});
        const Matrix logits = vocabularyLogits(model, r.hidden.row(r.nTokens - 1));
        Eigen::Index best = 0;
        for (Eigen::Index j = 1; j < logits.cols(); ++j) {
            if (logits(0, j) > logits(0, best)) {
                best = j;  // strictly greater: the lower id wins a tie
            }
        }
        ids.push_back(static_cast<std::int32_t>(best));
        added.push_back(static_cast<std::int32_t>(best));
    }
    return added;
}

}  // namespace attnscope::forward
