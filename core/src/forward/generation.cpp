#include "attnscope/forward/generation.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/forward/layer_block.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/ops/layer_ops.h"
#include "attnscope/ops/mask.h"
#include "pass_parts.h"

namespace attnscope::forward {

namespace {

// Every layer's keys and values so far, as attention used them ([tokens, kvHeads * headDim]).
struct KvCache {
    std::vector<Matrix> keys;
    std::vector<Matrix> values;
};

void appendRow(Matrix& m, const Matrix& row) {
    const Eigen::Index rows = m.rows();
    m.conservativeResize(rows + 1, Eigen::NoChange);
    m.row(rows) = row.row(0);
}

// What one query row at position `t` (the newest token) needs in layers of one kind (windowed or
// not): its row of the model's causal mask over keys 0…t and its rotary table.
detail::AttentionContext rowContext(const model::Model& m, int layer, int t, int position) {
    detail::AttentionContext ctx;
    ops::MaskSpec mask;
    mask.causal = true;  // bottom-right aligned: the one query is the last of t + 1 keys
    if (m.spec.windowed(layer)) {
        mask.window = m.spec.slidingWindow;
    }
    ctx.bias = ops::buildBias(mask, 1, t + 1);
    if (m.spec.rope.dims > 0) {
        ctx.rope = ops::ropeTable(m.spec.ropeOf(layer), {position});
    }
    detail::setWhatIf(m.spec, {}, ctx);
    return ctx;
}

// The step's record of one query row over t + 1 keys, with the masks summarizeHead reads.
ForwardResult rowRecord(const model::Model& m, std::int32_t token, int t,
                        const std::map<bool, detail::AttentionContext>& contexts) {
    ForwardResult r;
    detail::sizeRecord(r, m.spec, {token}, t + 1, true);
    r.allowed = ops::allowedFromBias(contexts.at(m.spec.windowed(0)).bias);
    if (m.spec.mixedWindows()) {
        r.windowedLayers = m.spec.slidingLayers;
        r.windowedAllowed = ops::allowedFromBias(contexts.at(true).bias);
    }
    return r;
}

// One row through every layer against the cache (which it extends): the newest token at
// position index t. Returns the record and the final hidden state [1, dModel].
std::pair<ForwardResult, Matrix> decodeRow(const model::Model& m, KvCache& cache,
                                           std::int32_t token, int t, int position) {
    const model::ModelSpec& spec = m.spec;
    std::map<bool, detail::AttentionContext> contexts;
    for (int layer = 0; layer < spec.nLayers; ++layer) {
        if (!contexts.contains(spec.windowed(layer))) {
            contexts.emplace(spec.windowed(layer), rowContext(m, layer, t, position));
        }
    }
    ForwardResult r = rowRecord(m, token, t, contexts);
    Matrix x = detail::embed(m, {{token}, {}}, {position});
    for (int layer = 0; layer < spec.nLayers; ++layer) {
        const auto l = static_cast<std::size_t>(layer);
        const detail::AttentionContext& ctx = contexts.at(spec.windowed(layer));
        detail::Projections p = detail::project(m, layer, attentionInput(m, layer, x), ctx);
        appendRow(cache.keys[l], p.k);
        appendRow(cache.values[l], p.v);
        p.k = std::move(cache.keys[l]);  // the whole cache, lent to this layer's heads
        p.v = std::move(cache.values[l]);
        const float scale = spec.defaultScale(layer);
        r.scales[l] = scale;
        const Matrix concat = detail::attendHeads(spec, p, layer, ctx, scale, r);
        cache.keys[l] = std::move(p.k);
        cache.values[l] = std::move(p.v);
        const Matrix attention = ops::linear(concat, m.weights.layers[l].output);
        x = finishLayer(m, layer, x, attentionResidual(m, layer, x, attention));
    }
    if (spec.finalNorm) {
        x = ops::normalize(x, m.weights.finalNorm, spec.normKind, spec.normEps);
    }
    return {std::move(r), std::move(x)};
}

// The step's rows and entropies from a record whose query `row` is the step's.
void keepRows(const ForwardResult& r, int row, GenerationStep& step) {
    step.keys = r.keyCount();
    for (int layer = 0; layer < r.nLayers; ++layer) {
        for (int head = 0; head < r.nHeads; ++head) {
            const auto map = r.attention({layer, head});
            step.rows.insert(step.rows.end(), map.row(row).data(),
                             map.row(row).data() + map.cols());
            step.entropy.push_back(r.entropyOf({layer, head})[row]);
        }
    }
}

// softmax(logits)[token] in double, as samplingDistribution at temperature 1 without filters
// gives it, but without sorting the vocabulary: that sort (twice per step) took about a sixth
// of a decode step of a 2-layer model with 128k tokens (tests/bench/README.md, issue 34).
double plainProbability(const RowVector& logits, std::int32_t token) {
    const double top = static_cast<double>(logits.maxCoeff());
    double sum = 0;
    for (Eigen::Index i = 0; i < logits.size(); ++i) {
        sum += std::exp(static_cast<double>(logits[i]) - top);
    }
    return std::exp(static_cast<double>(logits[token]) - top) / sum;
}

void choose(const Matrix& logits, const SamplerSettings& sampler, std::mt19937_64& rng,
            GenerationStep& step) {
    step.logits = logits.row(0);
    if (sampler.temperature <= 0.0f) {
        // Greedy: samplingDistribution's one-hot on the first largest logit (ties to the lower
        // id, as its stable sort orders them), found without the sort.
        if (step.logits.array().isNaN().any()) {
            throw InvalidArgument("sampling: the logits hold NaN");
        }
        Eigen::Index best = 0;
        step.logits.maxCoeff(&best);  // the first maximum
        step.token = static_cast<std::int32_t>(best);
        step.sampledProbability = 1.0f;
    } else {
        const std::vector<double> dist = samplingDistribution(step.logits, sampler);
        step.token = drawToken(dist, rng);
        step.sampledProbability = static_cast<float>(dist[static_cast<std::size_t>(step.token)]);
    }
    step.probability = static_cast<float>(plainProbability(step.logits, step.token));
}

}  // namespace

std::vector<std::int32_t> Generation::tokens() const {
    std::vector<std::int32_t> all = prompt;
    for (const GenerationStep& s : steps) {
        all.push_back(s.token);
    }
    return all;
}

Generation generate(const model::Model& m, const std::vector<std::int32_t>& prompt, int steps,
                    const SamplerSettings& sampler, const CancelToken& cancel,
                    const ProgressFn& progress) {
    if (m.isEncoderDecoder() || m.spec.prediction != model::PredictionKind::CausalLm) {
        throw InvalidArgument(m.dir.string() +
                              ": generation needs a causal LM (a decoder with "
                              "its LM head)");
    }
    if (steps < 1) {
        throw InvalidArgument("generation: " + std::to_string(steps) + " steps; at least 1");
    }
    samplingDistribution(RowVector::Zero(1), sampler);  // the settings, before any work
    ForwardOptions o;
    o.recordActivations = true;
    o.cancel = cancel;
    ForwardResult first = runForward(m, {prompt, {}}, o);
    Generation g{m.spec.nLayers, m.spec.nHeads, prompt, {}};
    const int n = first.nTokens;
    const int total = std::min(steps, m.spec.maxTokens() - n);  // the sequence must fit
    KvCache cache{std::move(first.layerKeys), std::move(first.layerValues)};
    std::mt19937_64 rng(sampler.seed);
    std::vector<std::int32_t> tokens = prompt;
    for (int s = 0; s < total; ++s) {
        cancel.throwIfCancelled();
        GenerationStep step;
        if (s == 0) {
            keepRows(first, n - 1, step);
            choose(vocabularyLogits(m, first.hidden.row(n - 1)), sampler, rng, step);
        } else {
            const int t = static_cast<int>(tokens.size()) - 1;
            const int position = detail::positionIds(m.spec, tokens).back();
            auto [record, hidden] = decodeRow(m, cache, tokens.back(), t, position);
            keepRows(record, 0, step);
            choose(vocabularyLogits(m, hidden), sampler, rng, step);
        }
        tokens.push_back(step.token);
        g.steps.push_back(std::move(step));
        if (progress) {
            progress(static_cast<double>(s + 1) / total);
        }
    }
    return g;
}

}  // namespace attnscope::forward
