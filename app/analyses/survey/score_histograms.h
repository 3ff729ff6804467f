// Small multiples of the survey's score distributions over heads (issue 18): one QtCharts
// histogram per score (how many heads fall in each bin of [0, 1], or of the score's own range
// when it leaves [0, 1]), NaN left out and counted in the title ("12 undefined"). The selected
// head's bin is drawn in the accent colour so its place among the others shows. GUI thread only.
#pragma once

#include <vector>

#include <QString>
#include <QWidget>

class QBarSet;
class QChartView;
class QGridLayout;
class QSaveFile;

namespace attnscope::app {

struct ScoreColumn {
    QString name;                // "prev" — the survey's score name
    QString title;               // "previous token" — the chart's title
    std::vector<double> values;  // one per head, headIndex order; NaN = undefined
};

class ScoreHistograms : public QWidget {
    Q_OBJECT

public:
    explicit ScoreHistograms(QWidget* parent = nullptr);

    // Replaces every chart; `columns` empty clears them. bins >= 1.
    void setScores(std::vector<ScoreColumn> columns, int bins = 10);

    // Head index (layer * nHeads + head) whose bins are accented; -1 for none.
    void setSelectedHead(int index);

    int chartCount() const;

    // Bin counts of chart i (tests; the exported figure).
    std::vector<int> binCounts(int i) const;

    // The whole grid as one picture, for the figure export (PNG via QWidget::grab or SVG).
    bool saveFigure(const QString& path, QString* error = nullptr);

    // Tests: chart i's view, its bars, and the bin the selected head falls in (-1: none).
    QChartView* chartView(int i) const;
    QBarSet* barSet(int i) const;
    int selectedBin(int i) const;

    int columnCount() const { return m_gridColumns; }

private:
    struct Histogram {
        QChartView* view = nullptr;
        QBarSet* bars = nullptr;
        std::vector<int> counts;
        double lo = 0;  // the bins' range
        double hi = 1;
        int undefined = 0;
    };

    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    Histogram makeHistogram(const ScoreColumn& column);
    void placeCharts(int columns);
    void applyTheme(Histogram& h);
    void onBarHovered(int chart, bool state, int bin);
    bool writeSvg(QSaveFile& file);

    std::vector<ScoreColumn> m_columns;
    int m_bins = 10;
    int m_selected = -1;
    std::vector<Histogram> m_charts;
    QGridLayout* m_grid = nullptr;
    int m_gridColumns = 0;
};

}  // namespace attnscope::app
