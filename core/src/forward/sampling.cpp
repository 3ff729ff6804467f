#include "attnscope/forward/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "attnscope/base/error.h"

namespace attnscope::forward {

namespace {

void check(const RowVector& logits, const SamplerSettings& s) {
    if (logits.size() == 0) {
        throw InvalidArgument("sampling: no logits");
    }
    if (logits.array().isNaN().any()) {
        throw InvalidArgument("sampling: the logits hold NaN");
    }
    if (std::isnan(s.temperature)) {
        throw InvalidArgument("sampling: the temperature is not a number");
    }
    if (!(s.topP > 0.0f)) {
        throw InvalidArgument("sampling: top_p " + std::to_string(s.topP) + " is not in (0, 1]");
    }
}

// Softmax of logits[kept] / temperature (temperature 1: plain), in double.
std::vector<double> softmaxOver(const RowVector& logits, const std::vector<std::int32_t>& kept,
                                double temperature) {
    double top = -INFINITY;
    for (const std::int32_t id : kept) {
        top = std::max(top, static_cast<double>(logits[id]) / temperature);
    }
    std::vector<double> p(kept.size());
    double sum = 0;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        p[i] = std::exp(static_cast<double>(logits[kept[i]]) / temperature - top);
        sum += p[i];
    }
    for (double& v : p) {
        v /= sum;
    }
    return p;
}

}  // namespace

std::vector<double> samplingDistribution(const RowVector& logits, const SamplerSettings& s) {
    check(logits, s);
    const auto vocab = static_cast<std::size_t>(logits.size());
    // Sorted by logit, ties to the lower id: both filters then keep a prefix.
    std::vector<std::int32_t> kept(vocab);
    std::iota(kept.begin(), kept.end(), 0);
    std::stable_sort(kept.begin(), kept.end(),
                     [&](std::int32_t a, std::int32_t b) { return logits[a] > logits[b]; });
    std::vector<double> out(vocab, 0.0);
    if (s.temperature <= 0.0f) {
        out[static_cast<std::size_t>(kept.front())] = 1.0;
        return out;
    }
    if (s.topK > 0 && static_cast<std::size_t>(s.topK) < vocab) {
        kept.resize(static_cast<std::size_t>(s.topK));
    }
    if (s.topP < 1.0f) {
        const std::vector<double> p = softmaxOver(logits, kept, 1.0);
        double sum = 0;
        std::size_t keep = 0;
        while (keep < kept.size()) {
            sum += p[keep++];
            if (sum >= static_cast<double>(s.topP)) {
                break;
            }
        }
        kept.resize(std::max<std::size_t>(keep, 1));
    }
    const std::vector<double> p = softmaxOver(logits, kept, static_cast<double>(s.temperature));
    for (std::size_t i = 0; i < kept.size(); ++i) {
        out[static_cast<std::size_t>(kept[i])] = p[i];
    }
    return out;
}

std::int32_t drawToken(const std::vector<double>& distribution, std::mt19937_64& rng) {
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    double sum = 0;
    std::int32_t last = 0;
    for (std::size_t i = 0; i < distribution.size(); ++i) {
        if (distribution[i] <= 0) {
            continue;
        }
        last = static_cast<std::int32_t>(i);
        sum += distribution[i];
        if (u < sum) {
            return last;
        }
    }
    return last;  // rounding left the sum just under u: the last token with mass
}

}  // namespace attnscope::forward
