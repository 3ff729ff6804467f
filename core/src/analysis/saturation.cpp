#include "attnscope/analysis/saturation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "attnscope/base/error.h"

namespace attnscope::analysis {

void SaturationAccumulator::add(const forward::ForwardResult& r) {
    if (m_sentences == 0) {
        m_nLayers = r.nLayers;
        m_nHeads = r.nHeads;
        m_heads.assign(static_cast<std::size_t>(r.nLayers) * static_cast<std::size_t>(r.nHeads),
                       {});
    } else if (r.nLayers != m_nLayers || r.nHeads != m_nHeads) {
        throw InvalidArgument("saturation: a pass of " + std::to_string(r.nLayers) + " x " +
                              std::to_string(r.nHeads) + " heads after passes of " +
                              std::to_string(m_nLayers) + " x " + std::to_string(m_nHeads));
    }
    const std::size_t rows = static_cast<std::size_t>(r.nLayers) *
                             static_cast<std::size_t>(r.nHeads) *
                             static_cast<std::size_t>(r.nTokens);
    if (r.rowMaxAbsLogit.size() != rows || r.rowMaxAbsScaled.size() != rows ||
        r.entropy.size() != rows || r.rowMax.size() != rows) {
        throw InvalidArgument(
            "saturation: the pass kept no per-row logit maxima (a result "
            "built by hand or read from a file)");
    }
    const bool unnormed = r.rowMaxAbsUnnormed.size() == rows;
    m_unnormedEverywhere = m_unnormedEverywhere && unnormed;
    std::vector<std::uint8_t> skip(static_cast<std::size_t>(r.nTokens), 0);
    for (const int q : r.fullyMaskedRows) {
        skip[static_cast<std::size_t>(q)] = 1;
    }
    for (int layer = 0; layer < r.nLayers; ++layer) {
        for (int head = 0; head < r.nHeads; ++head) {
            const HeadId h{layer, head};
            Sums& s = m_heads[static_cast<std::size_t>(headIndex(h, r.nHeads))];
            const auto entropy = r.entropyOf(h);
            const auto rowMax = r.rowMaxOf(h);
            const auto logit = r.rowsOf(r.rowMaxAbsLogit, h);
            const auto scaled = r.rowsOf(r.rowMaxAbsScaled, h);
            for (int q = 0; q < r.nTokens; ++q) {
                if (skip[static_cast<std::size_t>(q)] != 0) {
                    continue;
                }
                ++s.rows;
                s.oneHot += rowMax[q] >= kOneHotWeight ? 1 : 0;
                s.entropy.add(entropy[q]);
                s.rowMaxAbsLogit.add(logit[q]);
                s.maxLogit = std::max(s.maxLogit, logit[q]);
                s.maxScaled = std::max(s.maxScaled, scaled[q]);
                if (unnormed) {
                    s.maxUnnormed = std::max(s.maxUnnormed, r.rowsOf(r.rowMaxAbsUnnormed, h)[q]);
                }
            }
        }
    }
    ++m_sentences;
}

void SaturationAccumulator::merge(const SaturationAccumulator& other) {
    if (other.m_sentences == 0) {
        return;
    }
    if (m_sentences == 0) {
        *this = other;
        return;
    }
    if (other.m_nLayers != m_nLayers || other.m_nHeads != m_nHeads) {
        throw InvalidArgument("saturation: cannot merge statistics of models of other shapes");
    }
    for (std::size_t i = 0; i < m_heads.size(); ++i) {
        Sums& a = m_heads[i];
        const Sums& b = other.m_heads[i];
        a.rows += b.rows;
        a.oneHot += b.oneHot;
        a.entropy.add(b.entropy);
        a.rowMaxAbsLogit.add(b.rowMaxAbsLogit);
        a.maxUnnormed = std::max(a.maxUnnormed, b.maxUnnormed);
        a.maxScaled = std::max(a.maxScaled, b.maxScaled);
        a.maxLogit = std::max(a.maxLogit, b.maxLogit);
    }
    m_sentences += other.m_sentences;
    m_unnormedEverywhere = m_unnormedEverywhere && other.m_unnormedEverywhere;
}

void SaturationAccumulator::restore(int nLayers, int nHeads, int sentences, bool unnormedEverywhere,
                                    std::vector<Sums> heads) {
    const std::size_t expected =
        sentences == 0 ? 0 : static_cast<std::size_t>(nLayers) * static_cast<std::size_t>(nHeads);
    if (sentences < 0 || nLayers < 0 || nHeads < 0 || heads.size() != expected) {
        throw InvalidArgument("saturation: restoring " + std::to_string(heads.size()) +
                              " heads for " + std::to_string(nLayers) + " x " +
                              std::to_string(nHeads) + " after " + std::to_string(sentences) +
                              " passes");
    }
    m_nLayers = sentences == 0 ? 0 : nLayers;
    m_nHeads = sentences == 0 ? 0 : nHeads;
    m_sentences = sentences;
    m_unnormedEverywhere = unnormedEverywhere;
    m_heads = std::move(heads);
}

std::vector<HeadSaturation> SaturationAccumulator::result() const {
    std::vector<HeadSaturation> out;
    out.reserve(m_heads.size());
    const float noValue = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t i = 0; i < m_heads.size(); ++i) {
        const Sums& s = m_heads[i];
        const auto index = static_cast<int>(i);
        HeadSaturation h;
        h.head = {index / m_nHeads, index % m_nHeads};
        h.rows = s.rows;
        const double rows = s.rows > 0 ? static_cast<double>(s.rows) : 1.0;
        h.meanEntropy = static_cast<float>(s.entropy.value() / rows);
        h.meanRowMaxAbsLogit = static_cast<float>(s.rowMaxAbsLogit.value() / rows);
        h.oneHotRows = s.oneHot;
        h.oneHotShare = static_cast<float>(static_cast<double>(s.oneHot) / rows);
        h.maxAbsUnnormed = hasUnnormed() ? s.maxUnnormed : noValue;
        h.maxAbsScaled = s.maxScaled;
        h.maxAbsLogit = s.maxLogit;
        out.push_back(h);
    }
    return out;
}

std::vector<HeadSaturation> saturationStats(const forward::ForwardResult& r) {
    SaturationAccumulator acc;
    acc.add(r);
    return acc.result();
}

}  // namespace attnscope::analysis
