#include "widgets/themed_chart_view.h"

#include <QEvent>

#include "widgets/chart_palette.h"
#include "widgets/chart_setup.h"

namespace attnscope::app {

ThemedChartView::ThemedChartView(QWidget* parent) : QChartView(parent) {
    setUpChartView(this);
}

void ThemedChartView::applyTheme() {
    const QPalette pal = palette();
    colourSeries(pal, applyChartTheme(chart(), pal));
}

void ThemedChartView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        applyTheme();
    }
    QChartView::changeEvent(event);
}

}  // namespace attnscope::app
