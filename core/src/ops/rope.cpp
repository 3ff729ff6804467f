#include "attnscope/ops/rope.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "attnscope/base/error.h"

namespace attnscope::ops {

std::vector<float> RopeSpec::inverseFrequencies(int lastPosition) const {
    std::vector<float> inv(static_cast<std::size_t>(dims / 2));
    // LongRope (HF longrope_frequency_update): the long factors once the sequence, up to its
    // last position, is longer than the original context.
    const std::vector<float>& longRope =
        lastPosition + 1 > originalMaxPositions ? longFactors : shortFactors;
    // Hugging Face computes these in float32 (base ** (arange(0, d, 2) / d)); doing the power
    // in double and rounding once gives the same float or one ulp apart.
    for (std::size_t k = 0; k < inv.size(); ++k) {
        const double exponent = static_cast<double>(2 * k) / dims;
        double f = 1.0 / std::pow(theta, exponent);
        if (scaling == RopeScaling::LongRope && k < longRope.size()) {
            f /= longRope[k];
        } else if (scaling == RopeScaling::Linear) {
            f /= factor;
        } else if (scaling == RopeScaling::Llama3) {
            // methods.md §7.3 (_compute_llama3_parameters): long wavelengths are slowed down
            // by `factor`, short ones kept, the band between blended smoothly.
            const double lowWavelen = originalMaxPositions / lowFreqFactor;
            const double highWavelen = originalMaxPositions / highFreqFactor;
            const double wavelen = 2.0 * std::numbers::pi / f;
            if (wavelen > lowWavelen) {
                f /= factor;
            } else if (wavelen >= highWavelen) {
                const double smooth = (originalMaxPositions / wavelen - lowFreqFactor) /
                                      (highFreqFactor - lowFreqFactor);
                f = (1.0 - smooth) * f / factor + smooth * f;
            }
        }
        if (k < frequencyFactors.size()) {
            f /= frequencyFactors[k];
        }
        inv[k] = static_cast<float>(f);
    }
    return inv;
}

RopeTable ropeTable(const RopeSpec& rope, const std::vector<int>& positions) {
    const int last = positions.empty() ? 0 : *std::max_element(positions.begin(), positions.end());
    const std::vector<float> inv = rope.inverseFrequencies(last);
    const auto attention = static_cast<float>(rope.attentionFactor);
    const auto n = static_cast<Eigen::Index>(positions.size());
    const auto half = static_cast<Eigen::Index>(inv.size());
    RopeTable t{Matrix(n, half), Matrix(n, half)};
    for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index k = 0; k < half; ++k) {
            // The product is rounded to float first, as torch's float32 matmul of
            // inv_freq x position_ids does; the cosine is then taken in double and rounded.
            const float angle = static_cast<float>(positions[static_cast<std::size_t>(i)]) *
                                inv[static_cast<std::size_t>(k)];
            t.cos(i, k) = static_cast<float>(std::cos(static_cast<double>(angle)));
            t.sin(i, k) = static_cast<float>(std::sin(static_cast<double>(angle)));
            if (rope.attentionFactor != 1.0) {  // LongRope: cos and sin, both in float32
                t.cos(i, k) *= attention;
                t.sin(i, k) *= attention;
            }
        }
    }
    return t;
}

void applyRope(Matrix& x, int nHeads, int headDim, const RopeSpec& rope, const RopeTable& table) {
    const int half = rope.dims / 2;
    if (half == 0) {
        return;
    }
    if (x.cols() != static_cast<Eigen::Index>(nHeads) * headDim || table.cos.cols() != half ||
        table.cos.rows() != x.rows()) {
        throw InvalidArgument("RoPE: projection is " + std::to_string(x.rows()) + "x" +
                              std::to_string(x.cols()) + ", expected " +
                              std::to_string(table.cos.rows()) + "x" +
                              std::to_string(nHeads * headDim));
    }
    const bool interleaved = rope.pairing == RopePairing::Interleaved;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        for (int h = 0; h < nHeads; ++h) {
            float* v = x.row(i).data() + static_cast<std::ptrdiff_t>(h) * headDim;
            for (int k = 0; k < half; ++k) {
                const int a = interleaved ? 2 * k : k;
                const int b = interleaved ? 2 * k + 1 : k + half;
                const float c = table.cos(i, k);
                const float s = table.sin(i, k);
                const float xa = v[a];
                const float xb = v[b];
                v[a] = xa * c - xb * s;
                v[b] = xb * c + xa * s;
            }
        }
    }
}

}  // namespace attnscope::ops
