// Mean attention by relative offset (key − query) of one head, as bars on a value axis: x is
// the offset (negative = earlier tokens), y the mean weight over the queries that have a key
// at that offset (core/include/attnscope/analysis/relative_position.h). The bar at r* (the
// offset most often holding a row's maximum, Voita's positional rule) is highlighted, and a
// dashed line marks offset 0, the query itself.
//
// The bars are one QAreaSeries (four points per offset), so a 512-token sentence (1,023
// offsets) costs one series, not a thousand bar sets. Only offsets some query may see are
// shown: a causal mask hides every positive offset, and the axis ends at 0 rather than
// showing a flat run of forced zeros. Hovering anywhere over a column shows its offset, mean
// and counts; dragging zooms into a range of offsets, double-click shows them all again.
// Series and axes are created once and refilled. GUI thread only.
#pragma once

#include <optional>
#include <vector>

#include <QString>

#include "attnscope/analysis/relative_position.h"
#include "attnscope/base/head_id.h"
#include "widgets/themed_chart_view.h"

class QAreaSeries;
class QLineSeries;
class QValueAxis;

namespace attnscope::app {

// "−2", "0", "+1": a typographic minus and an explicit plus, as offsets are read.
QString offsetText(int offset);

// What an offset means for a query: "the previous token", "3 tokens ahead", "itself".
QString offsetMeaning(int offset);

class OffsetChart : public ThemedChartView {
    Q_OBJECT

public:
    struct Data {
        HeadId head;
        std::vector<analysis::OffsetValue> offsets;  // every offset, -(n-1)..n-1, in order
        std::optional<int> bestOffset;               // r*, highlighted; nullopt: none
    };

    // Half the width of a bar in offset units (bars are 0.8 wide, with gaps between them).
    static constexpr double kHalfBar = 0.4;

    explicit OffsetChart(QWidget* parent = nullptr);

    void setData(Data profile);
    void clearData();

    // The offsets drawn, left to right: those with at least one allowed key.
    const std::vector<analysis::OffsetValue>& shownOffsets() const { return m_shown; }

    // Bars: points 4i..4i+3 outline the bar of shownOffsets()[i]; points 4i+1 and 4i+2 are at
    // its height.
    QLineSeries* barOutline() const { return m_barsUpper; }

    QAreaSeries* bars() const { return m_bars; }

    QAreaSeries* bestBar() const { return m_best; }

    QLineSeries* zeroLine() const { return m_zero; }

    QValueAxis* offsetAxis() const { return m_xAxis; }

    // The tooltip text for an offset ("" when it is not shown); what hovering displays.
    QString tooltipFor(int offset) const;

protected:
    void colourSeries(const QPalette& pal, const QColor& dataColor) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void setOffsetRange(int first, int last);
    void updateTicks();

    QAreaSeries* m_bars;
    QLineSeries* m_barsUpper;  // owned by m_bars
    QLineSeries* m_barsLower;  // owned by m_bars
    QAreaSeries* m_best;
    QLineSeries* m_bestUpper;
    QLineSeries* m_bestLower;
    QLineSeries* m_zero;
    QValueAxis* m_xAxis;
    QValueAxis* m_yAxis;
    std::vector<analysis::OffsetValue> m_shown;
};

}  // namespace attnscope::app
