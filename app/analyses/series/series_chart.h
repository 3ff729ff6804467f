// The training series' chart (issue 33): one line per head through its statistic at every
// checkpoint (x: the step, or the checkpoint's place when the names give no steps), faint and
// coloured by layer, the selected head drawn over them thick in the selection colour, and the
// checkpoint the session has open marked by a vertical line. Hovering a point names the head,
// the checkpoint and the value; clicking it emits pointClicked. QtCharts; GUI thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <QChartView>
#include <QString>

#include "attnscope/base/head_id.h"

class QLineSeries;
class QValueAxis;

namespace attnscope::app {

class SeriesChart : public QChartView {
    Q_OBJECT

public:
    struct Data {
        std::vector<double> x;                    // [checkpoints]
        std::vector<QString> labels;              // [checkpoints] "step1000"
        std::vector<std::vector<double>> values;  // [heads][checkpoints], layer-major
        int nLayers = 0;
        int nHeads = 0;
        QString xTitle;
        QString yTitle;
    };

    explicit SeriesChart(QWidget* parent = nullptr);

    void setData(Data next);
    void clearData();

    void setSelected(HeadId head);
    // The checkpoint the session has open; -1: none of them.
    void setCurrent(int checkpoint);

    QSize minimumSizeHint() const override { return {280, 200}; }

    // Tests: the heads' lines (layer-major), the selected head's, the current-checkpoint marker.
    const std::vector<QLineSeries*>& headLines() const { return m_lines; }

    QLineSeries* selectedLine() const { return m_selectedLine; }

    QLineSeries* currentMarker() const { return m_marker; }

signals:
    void pointClicked(attnscope::HeadId head, int checkpoint);

private:
    void rebuild();
    void updateSelected();
    void updateMarker();
    int checkpointAt(double x) const;
    void onHovered(HeadId head, const QPointF& p, bool state);

    Data m_data;
    HeadId m_selected{0, 0};
    int m_current = -1;
    std::vector<QLineSeries*> m_lines;
    QLineSeries* m_selectedLine = nullptr;
    QLineSeries* m_marker = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
};

}  // namespace attnscope::app
