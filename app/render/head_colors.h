// The one colour rule for drawing attention heads (issue 15). The model grid's thumbnails, the
// previews it draws when a sentence's maps were over the memory budget and exported figures
// all colour heads through HeadColorRule, so a head comes out in the same colours everywhere.
//
// The rule: a picture of a set of heads colours each of them against ONE range, the smallest
// that covers every head's own range under the HeatmapStyle's scaling (linear: 0 … the largest
// allowed weight of any of the heads; log: log10 of the smallest positive weight, floored at
// 1e-4, … log10 of the largest; per-row: each query row divided by its own maximum, 0 … 1), so
// one colour bar is true for every map in it. The model grid and an exported grid are the set
// of all heads; the head view and a one-head figure are a set of one. Masked cells are grey.
//
// Without recorded maps a head is drawn from its pooled preview (forward_result.h); a pooled
// cell is masked when every cell it pools is. For up to 48 tokens the preview is the map
// itself, so a preview and a full map of the same head give the same image.
#pragma once

#include <optional>
#include <vector>

#include <QImage>

#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_result.h"
#include "render/heatmap_image.h"

namespace attnscope::render {

class HeadColorRule {
public:
    // `result` must outlive the rule.
    HeadColorRule(const forward::ForwardResult& result, const HeatmapStyle& style);

    // The range shared by `heads` (see the rule above).
    ColorRange rangeOf(const std::vector<HeadId>& heads) const;
    // Every head of the model, as the model grid and an exported grid show them.
    ColorRange rangeOfAllHeads() const;

    // One pixel per cell of what the head is drawn from (its map, or its preview).
    QImage image(HeadId head, const ColorRange& range) const;

private:
    ConstMatrixMap cellsOf(HeadId head) const;
    // The head's own mask (Gemma's local layers have theirs), pooled like its preview.
    const BoolMatrix* mask(HeadId head) const;

    const forward::ForwardResult* m_result;
    HeatmapStyle m_style;
    // Without maps: the pooled masks, if any cell is masked: the result's `allowed`, and the
    // windowed layers' when the layers' masks differ.
    std::optional<BoolMatrix> m_previewMask;
    std::optional<BoolMatrix> m_previewWindowedMask;
};

}  // namespace attnscope::render
