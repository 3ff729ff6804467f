// What the head views show of a corpus survey (issue 18): each head's labels, strongest first,
// per head and not per sentence — the tag in a grid cell's corner, the head view's label line,
// "Show heads labelled …" and the label filter's dimming. The survey (analyses/survey/) sets
// them on the session; the views read them there and never see the survey itself.
#pragma once

#include <memory>
#include <vector>

#include <QString>

#include "attnscope/analysis/head_labels.h"
#include "attnscope/base/head_id.h"

namespace attnscope::app {

using LabelsByHead = std::vector<std::vector<analysis::HeadLabel>>;  // [layer * nHeads + head]

// `head`'s labels in `byHead`; empty for a head outside nLayers × nHeads.
const std::vector<analysis::HeadLabel>& labelsOfHead(const LabelsByHead& byHead, int nLayers,
                                                     int nHeads, HeadId head);

class HeadLabels {
public:
    HeadLabels() = default;

    HeadLabels(std::shared_ptr<const LabelsByHead> byHead, int nLayers, int nHeads)
        : m_byHead(std::move(byHead)), m_layers(nLayers), m_heads(nHeads) {}

    // No survey: no labels and no filter.
    bool empty() const { return m_byHead == nullptr; }

    int nLayers() const { return m_layers; }

    int nHeads() const { return m_heads; }

    const LabelsByHead& all() const;

    const std::vector<analysis::HeadLabel>& of(HeadId head) const {
        return labelsOfHead(all(), m_layers, m_heads, head);
    }

    // The same labels (of the same survey run).
    bool operator==(const HeadLabels& other) const { return m_byHead == other.m_byHead; }

private:
    std::shared_ptr<const LabelsByHead> m_byHead;
    int m_layers = 0;
    int m_heads = 0;
};

// "prev, pos+1" — the head's tags, strongest first; empty when none.
QString labelTags(const std::vector<analysis::HeadLabel>& labels);

// Rich-text tooltip lines for a head's labels: name, evidence, rule.
QString labelTooltip(const std::vector<analysis::HeadLabel>& labels);

}  // namespace attnscope::app
