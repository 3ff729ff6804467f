// The set-up every analysis chart view shares: antialiased, no animation (a new result must
// appear at once), small margins and the legend at one edge; and its axes at the bottom and the
// left. Header-only, GUI thread.
#pragma once

#include <initializer_list>

#include <QAbstractAxis>
#include <QAbstractSeries>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QMargins>
#include <QPainter>

namespace attnscope::app {

// Sets `view` up and returns its chart for the series and axes the caller adds.
inline QChart* setUpChartView(QChartView* view, int margin = 4,
                              Qt::Alignment legend = Qt::AlignTop) {
    view->setRenderHint(QPainter::Antialiasing);
    QChart* c = view->chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setMargins(QMargins(margin, margin, margin, margin));
    c->legend()->setAlignment(legend);
    return c;
}

// Adds `x` at the bottom and `y` at the left of `chart`, and attaches `series` (already added,
// in the order they are drawn) to both.
inline void addAxes(QChart* chart, QAbstractAxis* x, QAbstractAxis* y,
                    std::initializer_list<QAbstractSeries*> series = {}) {
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : series) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
}

}  // namespace attnscope::app
