// Value-axis ranges shared by the entropy charts: from a little below 0 (so markers at 0 are not
// cut in half by the plot edge) to a little above the largest value, with ticks at round
// numbers anchored at 0. Header-only, GUI thread.
#pragma once

#include <cmath>

#include <QValueAxis>

namespace attnscope::app {

// A 1, 2 or 5 times a power of ten giving about `ticks` intervals over [0, top].
inline double niceTickInterval(double top, int ticks = 5) {
    const double raw = top / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double step : {1.0, 2.0, 5.0}) {
        if (step * magnitude >= raw) {
            return step * magnitude;
        }
    }
    return 10.0 * magnitude;
}

// Values are >= 0 here (entropies, |logits|); `top` is the largest one to show.
inline void setValueRange(QValueAxis* axis, double top) {
    if (!(top > 0) || !std::isfinite(top)) {
        top = 1.0;
    }
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0.0);
    axis->setTickInterval(niceTickInterval(top));
    axis->setRange(-0.04 * top, 1.08 * top);
}

}  // namespace attnscope::app
