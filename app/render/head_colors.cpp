#include "render/head_colors.h"

#include "render/figure_painter.h"
#include "render/heat_cells.h"

namespace attnscope::render {

namespace {

// Pools `allowed` the way the forward pass pools a head into its preview (rows and columns
// i * n / p .. (i + 1) * n / p); a pooled cell stays allowed when any cell it covers is.
std::optional<BoolMatrix> pooledMask(const forward::ForwardResult& f, const BoolMatrix& allowed) {
    const int n = f.nTokens;
    const int p = f.previewSize;
    if (p <= 0 || allowed.rows() != n || allowed.cols() != n || allowed.minCoeff() != 0) {
        return std::nullopt;
    }
    BoolMatrix pooled(p, p);
    for (int i = 0; i < p; ++i) {
        const int r0 = i * n / p;
        const int r1 = (i + 1) * n / p;
        for (int j = 0; j < p; ++j) {
            const int c0 = j * n / p;
            const int c1 = (j + 1) * n / p;
            pooled(i, j) = allowed.block(r0, c0, r1 - r0, c1 - c0).maxCoeff();
        }
    }
    return pooled.minCoeff() == 0 ? std::optional<BoolMatrix>(std::move(pooled)) : std::nullopt;
}

}  // namespace

HeadColorRule::HeadColorRule(const forward::ForwardResult& result, const HeatmapStyle& style)
    : m_result(&result), m_style(style) {
    if (!result.mapsRecorded) {
        m_previewMask = pooledMask(result, result.allowed);
        if (!result.windowedLayers.empty()) {
            m_previewWindowedMask = pooledMask(result, result.windowedAllowed);
        }
    }
}

ConstMatrixMap HeadColorRule::cellsOf(HeadId head) const {
    return m_result->mapsRecorded ? m_result->attention(head) : m_result->previewOf(head);
}

const BoolMatrix* HeadColorRule::mask(HeadId head) const {
    if (!m_result->mapsRecorded) {
        const bool windowed = &m_result->allowedFor(head.layer) != &m_result->allowed;
        const auto& pooled = windowed ? m_previewWindowedMask : m_previewMask;
        return pooled ? &*pooled : nullptr;
    }
    return figureMask(*m_result, head.layer);
}

ColorRange HeadColorRule::rangeOf(const std::vector<HeadId>& heads) const {
    std::vector<ColorRange> ranges;
    ranges.reserve(heads.size());
    for (const HeadId h : heads) {
        ranges.push_back(colorRangeOf(cellsOf(h), mask(h), m_style));
    }
    if (ranges.empty()) {
        return colorRangeOf(Matrix(), nullptr, m_style);
    }
    return unionRange(ranges);
}

ColorRange HeadColorRule::rangeOfAllHeads() const {
    std::vector<HeadId> heads;
    for (int layer = 0; layer < m_result->nLayers; ++layer) {
        for (int head = 0; head < m_result->nHeads; ++head) {
            heads.push_back({layer, head});
        }
    }
    return rangeOf(heads);
}

QImage HeadColorRule::image(HeadId head, const ColorRange& range) const {
    return heatmapImageInRange(cellsOf(head), mask(head), m_style, range);
}

}  // namespace attnscope::render
