// The base of the analysis charts: a chart view set up as they all are (setUpChartView) that
// follows the palette: at every palette change (and whenever a chart calls applyTheme) it picks
// the light or dark chart theme and has the chart colour its series again. GUI thread only.
#pragma once

#include <QChartView>

namespace attnscope::app {

class ThemedChartView : public QChartView {
    Q_OBJECT

public:
    explicit ThemedChartView(QWidget* parent = nullptr);

protected:
    // The chart theme for the current palette, then colourSeries.
    void applyTheme();

    // `data` is the palette's primary data colour (chart_palette.h); setting the chart theme
    // has just reset every series' colours.
    virtual void colourSeries(const QPalette& palette, const QColor& data) = 0;

    void changeEvent(QEvent* event) override;
};

}  // namespace attnscope::app
