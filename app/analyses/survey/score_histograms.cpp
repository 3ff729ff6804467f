#include "analyses/survey/score_histograms.h"

#include <algorithm>
#include <cmath>

#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChartView>
#include <QCursor>
#include <QEvent>
#include <QFileInfo>
#include <QGridLayout>
#include <QImageWriter>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QToolTip>
#include <QValueAxis>

#include "widgets/chart_axis.h"
#include "widgets/chart_palette.h"

namespace attnscope::app {

namespace {

// The grid takes as many columns (2 to 4) as leave each chart this wide: room for a title like
// "induction (16 undefined)" and ten bars. Below kMinChartWidth charts become illegible.
constexpr int kColumnWidth = 190;
constexpr int kMinChartWidth = 110;
constexpr int kMinChartHeight = 90;
constexpr int kSpacing = 2;

int columnsFor(int width) {
    return std::clamp(width / kColumnWidth, 2, 4);
}

struct Binned {
    std::vector<int> counts;
    double lo = 0;
    double hi = 1;
    int undefined = 0;
};

// Scores are shares in [0, 1] and share bins so charts compare; a score that leaves [0, 1] gets
// its own min..max. The top edge belongs to the last bin, so 1.0 is counted.
Binned binValues(const std::vector<double>& values, int bins) {
    Binned b;
    b.counts.assign(static_cast<std::size_t>(bins), 0);
    double lo = 0;
    double hi = 1;
    bool outside = false;
    double min = 0;
    double max = 0;
    bool any = false;
    for (const double v : values) {
        if (!std::isfinite(v)) {
            ++b.undefined;
            continue;
        }
        min = any ? std::min(min, v) : v;
        max = any ? std::max(max, v) : v;
        any = true;
        outside = outside || v < 0 || v > 1;
    }
    if (outside) {
        lo = min;
        hi = max > min ? max : min + 1;
        if (max <= min) {
            lo = min - 0.5;
            hi = min + 0.5;
        }
    }
    b.lo = lo;
    b.hi = hi;
    for (const double v : values) {
        if (std::isfinite(v)) {
            const auto bin = static_cast<int>(std::floor((v - lo) / (hi - lo) * bins));
            ++b.counts[static_cast<std::size_t>(std::clamp(bin, 0, bins - 1))];
        }
    }
    return b;
}

QString number(double v) {
    return QString::number(v, 'g', 3);
}

QFont sized(QFont font, qreal points, bool bold = false) {
    font.setPointSizeF(points);
    font.setBold(bold);
    return font;
}

bool fail(QString* error, const QString& path, const QString& reason) {
    if (error) {
        *error = path + QStringLiteral(": ") + reason;
    }
    return false;
}

}  // namespace

ScoreHistograms::ScoreHistograms(QWidget* parent) : QWidget(parent) {
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(kSpacing);
}

void ScoreHistograms::setScores(std::vector<ScoreColumn> columns, int bins) {
    for (Histogram& h : m_charts) {
        delete h.view;
    }
    m_charts.clear();
    m_columns = std::move(columns);
    m_bins = std::max(1, bins);
    for (const ScoreColumn& column : m_columns) {
        m_charts.push_back(makeHistogram(column));
    }
    m_gridColumns = 0;
    placeCharts(columnsFor(width()));
    setSelectedHead(m_selected);
}

void ScoreHistograms::setSelectedHead(int index) {
    m_selected = index;
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        QBarSet* bars = m_charts[i].bars;
        bars->deselectAllBars();
        const int bin = selectedBin(static_cast<int>(i));
        if (bin >= 0) {
            bars->selectBar(bin);
        }
    }
}

int ScoreHistograms::chartCount() const {
    return static_cast<int>(m_charts.size());
}

std::vector<int> ScoreHistograms::binCounts(int i) const {
    if (i < 0 || i >= chartCount()) {
        return {};
    }
    return m_charts[static_cast<std::size_t>(i)].counts;
}

QChartView* ScoreHistograms::chartView(int i) const {
    return i >= 0 && i < chartCount() ? m_charts[static_cast<std::size_t>(i)].view : nullptr;
}

QBarSet* ScoreHistograms::barSet(int i) const {
    return i >= 0 && i < chartCount() ? m_charts[static_cast<std::size_t>(i)].bars : nullptr;
}

int ScoreHistograms::selectedBin(int i) const {
    if (i < 0 || i >= chartCount() || m_selected < 0) {
        return -1;
    }
    const std::vector<double>& values = m_columns[static_cast<std::size_t>(i)].values;
    if (static_cast<std::size_t>(m_selected) >= values.size() ||
        !std::isfinite(values[static_cast<std::size_t>(m_selected)])) {
        return -1;
    }
    const Histogram& h = m_charts[static_cast<std::size_t>(i)];
    const double v = values[static_cast<std::size_t>(m_selected)];
    const auto bin = static_cast<int>(std::floor((v - h.lo) / (h.hi - h.lo) * m_bins));
    return std::clamp(bin, 0, m_bins - 1);
}

ScoreHistograms::Histogram ScoreHistograms::makeHistogram(const ScoreColumn& column) {
    Binned binned = binValues(column.values, m_bins);
    Histogram h;
    h.counts = std::move(binned.counts);
    h.lo = binned.lo;
    h.hi = binned.hi;
    h.undefined = binned.undefined;
    h.view = new QChartView(this);
    h.view->setObjectName(column.name);
    h.view->setRenderHint(QPainter::Antialiasing);
    h.view->setMinimumSize(kMinChartWidth, kMinChartHeight);
    QChart* chart = h.view->chart();
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(0, 0, 0, 0));
    chart->setBackgroundRoundness(0);
    chart->legend()->hide();
    chart->setTitle(h.undefined > 0 ? tr("%1 (%2 undefined)").arg(column.title).arg(h.undefined)
                                    : column.title);
    h.bars = new QBarSet(column.name);
    int top = 1;
    for (const int c : h.counts) {
        h.bars->append(c);
        top = std::max(top, c);
    }
    auto* series = new QBarSeries;
    series->setBarWidth(0.92);  // bins touch, as in a histogram, with a hairline between
    series->append(h.bars);
    chart->addSeries(series);
    // Bars sit at 0..bins-1; the value axis names the bin edges at lo, the middle and hi.
    auto* x = new QCategoryAxis;
    x->setRange(-0.5, m_bins - 0.5);
    x->setStartValue(-0.5 - 1e-9);  // a category must end after the start to label -0.5
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    x->append(number(h.lo), -0.5);
    x->append(number((h.lo + h.hi) / 2), (m_bins - 1) / 2.0);
    x->append(number(h.hi), m_bins - 0.5);
    x->setGridLineVisible(false);
    auto* y = new QValueAxis;
    y->setTitleText(tr("heads"));
    y->setLabelFormat("%d");
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    const double step = std::max(1.0, std::ceil(niceTickInterval(top, 3)));
    y->setTickInterval(step);
    // Up to the next labelled tick, so the tallest bar's height can be read off the axis.
    y->setRange(0, std::ceil(top / step) * step);
    y->setMinorTickCount(0);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    const int index = static_cast<int>(m_charts.size());
    connect(h.bars, &QBarSet::hovered, this,
            [this, index](bool state, int bin) { onBarHovered(index, state, bin); });
    applyTheme(h);
    return h;
}

void ScoreHistograms::applyTheme(Histogram& h) {
    QChart* chart = h.view->chart();
    const QColor primary = applyChartTheme(chart, palette());
    chart->setBackgroundRoundness(0);
    chart->setTitleFont(sized(font(), 8, true));
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsFont(sized(font(), 7));
        axis->setTitleFont(sized(font(), 7));
    }
    h.bars->setColor(primary);
    h.bars->setBorderColor(primary);
    h.bars->setSelectedColor(selectionColor());
}

void ScoreHistograms::placeCharts(int columns) {
    if (columns == m_gridColumns) {
        return;
    }
    m_gridColumns = columns;
    // A fresh layout: QGridLayout keeps the stretch of rows and columns it once had.
    delete m_grid;
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(kSpacing);
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        const int at = static_cast<int>(i);
        m_grid->addWidget(m_charts[i].view, at / columns, at % columns);
    }
    for (int c = 0; c < columns; ++c) {
        m_grid->setColumnStretch(c, 1);
    }
    // Our own minimum rather than the layout's (columns × chart minimum), so the widget can
    // narrow to two columns and the grid then follows in resizeEvent.
    const int rows = std::max(1, (chartCount() + columns - 1) / columns);
    setMinimumSize(2 * kMinChartWidth + kSpacing, rows * (kMinChartHeight + kSpacing));
}

void ScoreHistograms::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        for (Histogram& h : m_charts) {
            applyTheme(h);
        }
    }
}

void ScoreHistograms::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeCharts(columnsFor(width()));
}

void ScoreHistograms::onBarHovered(int chart, bool state, int bin) {
    if (!state || chart >= chartCount()) {
        QToolTip::hideText();
        return;
    }
    const Histogram& h = m_charts[static_cast<std::size_t>(chart)];
    const double step = (h.hi - h.lo) / m_bins;
    const double from = h.lo + bin * step;
    // Bins are half-open except the last, which holds its top edge.
    const QString close = bin + 1 == m_bins ? QStringLiteral("]") : QStringLiteral(")");
    const int count = h.counts[static_cast<std::size_t>(bin)];
    const QString heads = count == 1 ? tr("1 head") : tr("%1 heads").arg(count);
    QString text = m_columns[static_cast<std::size_t>(chart)].title + QStringLiteral("\n") +
                   tr("[%1, %2%3: %4").arg(number(from), number(from + step), close, heads);
    if (bin == selectedBin(chart)) {
        const double value =
            m_columns[static_cast<std::size_t>(chart)].values[static_cast<std::size_t>(m_selected)];
        text += QStringLiteral("\n") + tr("the selected head: %1").arg(number(value));
    }
    QToolTip::showText(QCursor::pos(), text, this);
}

bool ScoreHistograms::writeSvg(QSaveFile& file) {
    const QSize canvas = size();
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(canvas);
    svg.setViewBox(QRect(QPoint(0, 0), canvas));
    svg.setTitle(tr("Survey score histograms"));
    svg.setDescription(QStringLiteral("AttnScope chart"));
    QPainter painter;
    if (!painter.begin(&svg)) {
        return false;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    // Each chart's scene as vectors, where the grid placed it.
    for (const Histogram& h : m_charts) {
        const QRectF target(h.view->geometry());
        h.view->scene()->render(&painter, target, h.view->chart()->geometry());
    }
    return painter.end();
}

bool ScoreHistograms::saveFigure(const QString& path, QString* error) {
    if (m_charts.empty()) {
        return fail(error, path, tr("no histograms to save (run the survey first)"));
    }
    const QByteArray suffix = QFileInfo(path).suffix().toLower().toLatin1();
    const bool svg = suffix == "svg";
    if (!svg && !QImageWriter::supportedImageFormats().contains(suffix)) {
        return fail(error, path,
                    tr("unsupported image format \"%1\" (use .png or .svg)")
                        .arg(QString::fromLatin1(suffix)));
    }
    if (!isVisible()) {
        // Not on screen (a tab not opened yet, or never shown): its size means nothing, and a
        // top-level grab would shrink it to its minimum. Export three columns of readable size.
        const int rows = (chartCount() + 2) / 3;
        resize(3 * kColumnWidth + 2 * kSpacing, rows * 160);
        placeCharts(columnsFor(width()));
    }
    m_grid->activate();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return fail(error, path, tr("cannot write: %1").arg(file.errorString()));
    }
    const bool written = svg ? writeSvg(file) : grab().toImage().save(&file, suffix.constData());
    if (!written) {
        file.cancelWriting();
        return fail(error, path, tr("cannot render the histograms: %1").arg(file.errorString()));
    }
    if (!file.commit()) {
        return fail(error, path, tr("cannot write: %1").arg(file.errorString()));
    }
    return true;
}

}  // namespace attnscope::app
