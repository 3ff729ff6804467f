#include "view_test_data.h"

#include <cmath>
#include <filesystem>
#include <random>

#include "attnscope/analysis/head_stats.h"
#include "hand_made_results.h"

namespace attnscope::test {

std::shared_ptr<const model::Model> loadFixtureModel(const std::string& name) {
    return model::loadModel(std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints" / name);
}

std::shared_ptr<const analysis::SentenceAnalysis> analyze(const model::Model& model,
                                                          const std::vector<std::int32_t>& ids,
                                                          const forward::MaskChoice& mask) {
    forward::ForwardOptions options;
    options.mask = mask;
    return std::make_shared<const analysis::SentenceAnalysis>(
        analysis::analyzeIds(model, ids, options));
}

std::shared_ptr<const model::Model> shapeOnlyModel(int nLayers, int nHeads) {
    auto m = std::make_shared<model::Model>();
    m->spec.nLayers = nLayers;
    m->spec.nHeads = nHeads;
    return m;
}

namespace {

const char* const kWords[] = {
    "Ġthe",   "Ġquick", "Ġbrown",     "Ġfox",    "Ġjumps", "Ġover",  "Ġthe",
    "Ġlazy",  "Ġdog",   ",",          "Ġand",    "Ġthen",  "Ġit",    "Ġsleeps",
    "Ġunder", "Ġa",     "Ġtree",      "Ġnear",   "Ġthe",   "Ġriver", "Ġbank",
    ".",      "ĠThe",   "Ġattention", "Ġheads",  "Ġof",    "Ġa",     "Ġtransformer",
    "Ġlook",  "Ġat",    "Ġdifferent", "Ġtokens", ".",      "Ċ"};

// Logit of key k for query q under one of five head patterns (Clark et al.'s common kinds).
float patternLogit(int kind, int q, int k, float noise) {
    switch (kind) {
        case 0:  // previous token
            return (k == q - 1 ? 6.0f : 0.0f) + noise;
        case 1:  // first-token sink
            return (k == 0 ? 5.0f : 0.0f) + noise;
        case 2:  // self
            return (k == q ? 5.0f : 0.0f) + noise;
        case 3:  // broad
            return 0.3f * noise;
        default:  // local window, decaying with distance
            return -0.6f * static_cast<float>(q - k) + noise;
    }
}

}  // namespace

std::shared_ptr<const analysis::SentenceAnalysis> syntheticAnalysis(int nLayers, int nHeads,
                                                                    int nTokens, unsigned seed) {
    auto a = std::make_shared<analysis::SentenceAnalysis>();
    const int nWords = static_cast<int>(std::size(kWords));
    for (int i = 0; i < nTokens; ++i) {
        a->tokens.push_back(token(i % nWords, kWords[i % nWords]));
    }
    a->forward = forwardFrame(nLayers, nHeads, nTokens, 0, "causal");
    forward::ForwardResult& f = a->forward;
    f.allowed.setZero();
    for (int q = 0; q < nTokens; ++q) {
        f.allowed.row(q).head(q + 1).setOnes();
    }
    const auto cells = static_cast<std::size_t>(nLayers) * nHeads * nTokens * nTokens;
    f.logits.assign(cells, 0.0f);
    f.probs.assign(cells, 0.0f);
    f.entropy.assign(static_cast<std::size_t>(nLayers) * nHeads * nTokens, 0.0f);
    f.scales.assign(static_cast<std::size_t>(nLayers), 0.125f);
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> row(static_cast<std::size_t>(nTokens));
    for (int layer = 0; layer < nLayers; ++layer) {
        for (int head = 0; head < nHeads; ++head) {
            const int kind = (layer * 7 + head * 3) % 5;
            // Deeper layers get sharper logits, so max |logit| grows with depth as in real models.
            const float sharpness = 1.0f + 0.15f * static_cast<float>(layer);
            const std::size_t base =
                (static_cast<std::size_t>(layer) * nHeads + head) * nTokens * nTokens;
            for (int q = 0; q < nTokens; ++q) {
                float maxLogit = -1e30f;
                for (int k = 0; k <= q; ++k) {
                    const float z = sharpness * patternLogit(kind, q, k, normal(rng));
                    f.logits[base + static_cast<std::size_t>(q) * nTokens + k] = z;
                    maxLogit = std::max(maxLogit, z);
                }
                double sum = 0;
                for (int k = 0; k <= q; ++k) {
                    row[static_cast<std::size_t>(k)] = std::exp(
                        f.logits[base + static_cast<std::size_t>(q) * nTokens + k] - maxLogit);
                    sum += row[static_cast<std::size_t>(k)];
                }
                double h = 0;
                for (int k = 0; k <= q; ++k) {
                    const double p = row[static_cast<std::size_t>(k)] / sum;
                    f.probs[base + static_cast<std::size_t>(q) * nTokens + k] =
                        static_cast<float>(p);
                    if (p > 0) {
                        h -= p * std::log(p);
                    }
                }
                f.entropy[(static_cast<std::size_t>(layer) * nHeads + head) * nTokens + q] =
                    static_cast<float>(h);
            }
        }
    }
    f.summarizeFromMaps();
    a->stats = analysis::headStats(f);
    return a;
}

}  // namespace attnscope::test
