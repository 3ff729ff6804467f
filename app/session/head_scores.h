// A number for every head of the model open, given to the head views by an analysis: how far
// each head moved in another model, say. The views show them beside the maps (the model grid
// draws each as a bar under the head's thumbnail, its tool tip the value under `name`) and know
// nothing of what computed them.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include <QString>

#include "attnscope/base/head_id.h"

namespace attnscope::app {

struct HeadScores {
    // What a value is, with its unit, for tool tips: "JS divergence from B (nats per query row)".
    QString name;
    int nLayers = 0;
    int nHeads = 0;
    std::vector<double> values;  // [layer * nHeads + head]

    bool empty() const { return values.empty(); }

    // NaN for a head outside nLayers × nHeads (the scores of another model's shape).
    double of(HeadId head) const {
        if (head.layer < 0 || head.layer >= nLayers || head.head < 0 || head.head >= nHeads) {
            return std::nan("");
        }
        const auto i = static_cast<std::size_t>(headIndex(head, nHeads));
        return i < values.size() ? values[i] : std::nan("");
    }

    // The largest finite value; 0 when none is above 0 (the bars' full length).
    double largest() const {
        double most = 0;
        for (const double v : values) {
            if (std::isfinite(v) && v > most) {
                most = v;
            }
        }
        return most;
    }

    bool operator==(const HeadScores& other) const = default;
};

}  // namespace attnscope::app
