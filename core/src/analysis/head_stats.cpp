#include "attnscope/analysis/head_stats.h"

#include <algorithm>
#include <cmath>

namespace attnscope::analysis {

std::vector<float> uniformEntropy(const forward::ForwardResult& r, int layer) {
    std::vector<float> out(static_cast<std::size_t>(r.nTokens));
    const BoolMatrix& mask = r.allowedFor(layer);
    for (int q = 0; q < r.nTokens; ++q) {
        const auto allowed = mask.row(q).cast<int>().sum();
        out[static_cast<std::size_t>(q)] = allowed > 0 ? std::log(static_cast<float>(allowed)) : 0;
    }
    return out;
}

namespace {

// `uniform` is uniformEntropy(r): the same for every head, so headStats computes it once.
HeadStats statsWithUniform(const forward::ForwardResult& r, HeadId head,
                           const std::vector<float>& uniform) {
    HeadStats s;
    s.head = head;
    // Summaries the pass keeps in every mode, so no map is read (they may not be recorded).
    const auto rowMax = r.rowMaxOf(head);
    const auto entropy = r.entropyOf(head);
    double sumH = 0, sumNormH = 0, sumRowMax = 0;
    int rows = 0, normRows = 0;
    for (int q = 0; q < r.nTokens; ++q) {
        if (std::find(r.fullyMaskedRows.begin(), r.fullyMaskedRows.end(), q) !=
            r.fullyMaskedRows.end()) {
            continue;
        }
        ++rows;
        sumH += entropy[q];
        sumRowMax += rowMax[q];
        s.maxWeight = std::max(s.maxWeight, rowMax[q]);
        if (uniform[static_cast<std::size_t>(q)] > 0) {
            sumNormH += entropy[q] / uniform[static_cast<std::size_t>(q)];
            ++normRows;
        }
    }
    s.maxAbsLogit = r.maxAbsLogit[headIndex(head, r.nHeads)];
    if (rows > 0) {
        s.meanEntropy = static_cast<float>(sumH / rows);
        s.meanMaxWeight = static_cast<float>(sumRowMax / rows);
    }
    if (normRows > 0) {
        s.meanNormalizedEntropy = static_cast<float>(sumNormH / normRows);
    }
    return s;
}

}  // namespace

HeadStats headStatsOf(const forward::ForwardResult& r, HeadId head) {
    return statsWithUniform(r, head, uniformEntropy(r, head.layer));
}

std::vector<HeadStats> headStats(const forward::ForwardResult& r) {
    // At most two masks (global and windowed layers): each one's uniform entropies once.
    const std::vector<float> uniform = uniformEntropy(r);
    std::vector<float> windowedUniform;
    std::vector<HeadStats> out;
    out.reserve(static_cast<std::size_t>(r.nLayers * r.nHeads));
    for (int layer = 0; layer < r.nLayers; ++layer) {
        const bool windowed = &r.allowedFor(layer) != &r.allowed;
        if (windowed && windowedUniform.empty()) {
            windowedUniform = uniformEntropy(r, layer);
        }
        for (int head = 0; head < r.nHeads; ++head) {
            out.push_back(statsWithUniform(r, {layer, head}, windowed ? windowedUniform : uniform));
        }
    }
    return out;
}

}  // namespace attnscope::analysis
