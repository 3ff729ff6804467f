// A number for every head of the model open, given to the head views by an analysis: how far
// each head moved in another model, or what it writes to the predicted logit, say. The views
// show them beside the maps (the model grid draws each as a bar under the head's thumbnail, from
// the left, or from the middle for signed scores; its tool tip the value under `name`) and know
// nothing of what computed them. One analysis's scores at a time: the last to publish them owns
// the slot, and clears only its own (HeadOverlays::clearHeadScores).
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
    // Who published them ("dla", "modelCompare"): an analysis withdrawing its scores leaves
    // another's in place.
    QString owner;
    // Values of either sign (a logit attribution): bars from the middle, by |value| of the
    // largest |value|. Otherwise bars from the left, by value of the largest.
    bool signedValues = false;
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

    // The bars' full length: the largest finite value (the largest |value| when signed); 0 when
    // none is above 0.
    double largest() const {
        double most = 0;
        for (const double v : values) {
            const double length = signedValues ? std::abs(v) : v;
            if (std::isfinite(length) && length > most) {
                most = length;
            }
        }
        return most;
    }

    bool operator==(const HeadScores& other) const = default;
};

}  // namespace attnscope::app
