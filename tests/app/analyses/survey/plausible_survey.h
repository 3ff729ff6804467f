// A plausible survey of a 12 × 12 model, as the survey's widgets show it: the points of the
// MDS head map (survey_widgets_test.cpp) and the score columns of the histograms
// (score_histograms_test.cpp).
#pragma once

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <QString>
#include <QStringList>

#include "analyses/survey/mds_scatter.h"
#include "analyses/survey/score_histograms.h"

namespace attnscope::test {

constexpr int kLayers = 12;
constexpr int kHeads = 12;
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A plausible map of a 12 × 12 model: layers drift along MDS 1, a deterministic wobble spreads
// the heads, and some heads carry tags from every family (offsets and relations included).
inline std::vector<app::MdsPoint> plausiblePoints() {
    const QStringList tags = {"prev",  "next",   "self", "pos+2",   "sink",  "broad",
                              "punct", "induct", "dup",  "syn:det", "pos-1", "syn:nsubj"};
    std::vector<app::MdsPoint> points;
    for (int l = 0; l < kLayers; ++l) {
        for (int h = 0; h < kHeads; ++h) {
            app::MdsPoint p;
            p.head = HeadId{l, h};
            const double phase = 2.399 * (l * kHeads + h);  // golden angle: no two coincide
            p.x = 0.06 * (l - kLayers / 2.0) + 0.18 * std::cos(phase) * (1 + 0.1 * h);
            p.y = 0.2 * std::sin(phase) * (1 + 0.05 * l);
            if ((l * 7 + h * 5) % 3 != 0) {
                p.tag = tags[(l + h * 3) % tags.size()];
                p.tooltip = QStringLiteral("<b>%1</b>: evidence %2").arg(p.tag).arg(0.5 + h / 30.0);
            }
            points.push_back(p);
        }
    }
    return points;
}

// Eight scores, mostly low with a tail (the usual shape of a per-head share); the last has
// heads without a value.
inline std::vector<app::ScoreColumn> plausibleScores() {
    std::vector<app::ScoreColumn> columns;
    const QStringList names = {"prev",       "next",         "self",  "sink_rate",
                               "first_mass", "entropy_norm", "punct", "induction"};
    for (int c = 0; c < names.size(); ++c) {
        app::ScoreColumn col;
        col.name = names[c];
        col.title = names[c];
        col.title.replace('_', ' ');
        for (int i = 0; i < kLayers * kHeads; ++i) {
            const double u = std::fmod(0.6180339887 * (i + 1) * (c + 2), 1.0);
            // Mostly low with a tail, the usual shape of a per-head share.
            col.values.push_back(c == 7 && i % 9 == 0 ? kNaN : std::pow(u, 1.0 + c % 4));
        }
        columns.push_back(std::move(col));
    }
    return columns;
}

}  // namespace attnscope::test
