#include "analyses/survey/mds_scatter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QCursor>
#include <QEvent>
#include <QGraphicsItemGroup>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QTextDocument>
#include <QTextOption>
#include <QToolTip>
#include <QValueAxis>

#include "render/colormap.h"
#include "widgets/chart_axis.h"
#include "widgets/chart_palette.h"
#include "widgets/layer_colors.h"

namespace attnscope::app {

namespace {

// Faint enough that the highlighted heads stand out, still visible as context.
constexpr double kFaintAlpha = 0.2;
constexpr qreal kMarkerSize = 9;
constexpr qreal kRingSize = 17;
// Up to this many layers each gets a legend entry; more get the colour bar instead, because a
// legend of 24 "layer k" entries would take more room than the map.
constexpr int kMaxLayerLegend = 6;

// head_labels.h's rule order; a family's colour comes from its place among those present.
const QStringList& knownFamilies() {
    static const QStringList kFamilies = {"prev",  "next",  "self",   "pos", "sink",
                                          "broad", "punct", "induct", "dup", "syn"};
    return kFamilies;
}

// "pos+2" and "pos-1" are family "pos", "syn:det" is "syn": the map colours by kind of head,
// and one colour per offset or relation would exhaust any qualitative palette.
QString tagFamily(const QString& tag) {
    const auto end = std::find_if(tag.begin(), tag.end(),
                                  [](QChar c) { return c == '+' || c == '-' || c == ':'; });
    return tag.left(static_cast<qsizetype>(end - tag.begin()));
}

// A head the MDS could not place (NaN coordinates) is left off the map, not drawn at a corner.
bool placed(const MdsPoint& p) {
    return std::isfinite(p.x) && std::isfinite(p.y);
}

QColor unlabelledColor(bool dark) {
    return dark ? QColor(0x8c, 0x8c, 0x8c) : QColor(0xa0, 0xa0, 0xa0);
}

QColor faded(QColor color) {
    color.setAlphaF(static_cast<float>(kFaintAlpha));
    return color;
}

QFont sized(QFont font, qreal points, bool bold = false) {
    font.setPointSizeF(points);
    font.setBold(bold);
    return font;
}

}  // namespace

MdsScatter::MdsScatter(QWidget* parent)
    : QChartView(parent),
      m_ring(new QScatterSeries),
      m_xAxis(new QValueAxis),
      m_yAxis(new QValueAxis) {
    setRenderHint(QPainter::Antialiasing);
    setMouseTracking(true);
    QChart* c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setMargins(QMargins(4, 4, 4, 4));
    c->legend()->setAlignment(Qt::AlignRight);
    // Families past the seventh differ by shape, so the legend shows the shape too.
    c->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    // Distances are all that MDS keeps (the axes may be rotated or flipped at will), so the axes
    // are named by component only and carry no unit.
    m_xAxis->setTitleText(tr("MDS 1"));
    m_yAxis->setTitleText(tr("MDS 2"));
    for (QValueAxis* axis : {m_xAxis, m_yAxis}) {
        axis->setLabelFormat("%.2g");
        axis->setTickCount(5);
        axis->setMinorTickCount(0);
    }
    c->addAxis(m_xAxis, Qt::AlignBottom);
    c->addAxis(m_yAxis, Qt::AlignLeft);
    // Not a QColorAxis: it labels its ends "0.0" and "11.0", and a hidden one still draws.
    m_layerKey = new QGraphicsItemGroup(c);
    m_layerKey->setZValue(5);
    m_ring->setObjectName("selectedRing");
    m_ring->setName(tr("selected head"));
    m_ring->setMarkerSize(kRingSize);
    c->addSeries(m_ring);
    m_ring->attachAxis(m_xAxis);
    m_ring->attachAxis(m_yAxis);
    connect(m_ring, &QScatterSeries::clicked, this,
            [this](const QPointF& value) { onClicked(m_ring, value); });
    connect(m_ring, &QScatterSeries::hovered, this,
            [this](const QPointF& value, bool state) { onHovered(m_ring, value, state); });
    m_message = new QGraphicsTextItem(c);
    m_message->setObjectName("emptyMessage");
    QTextOption centred;
    centred.setAlignment(Qt::AlignCenter);
    centred.setWrapMode(QTextOption::WordWrap);
    m_message->document()->setDefaultTextOption(centred);
    m_message->setZValue(10);
    connect(c, &QChart::geometryChanged, this, &MdsScatter::placeMessage);
    connect(c, &QChart::plotAreaChanged, this, &MdsScatter::placeLayerKey);
    applyTheme();
    setPoints({}, 0);
}

void MdsScatter::setPoints(std::vector<MdsPoint> points, int nLayers, const QString& message) {
    clearGroups();
    m_points = std::move(points);
    m_nLayers = nLayers;
    for (const MdsPoint& p : m_points) {
        m_nLayers = std::max(m_nLayers, p.head.layer + 1);
    }
    markFaint();
    buildLayerGroups();
    buildLabelGroups();
    addSeriesInDrawingOrder();
    splitHighlighted();
    const bool empty = m_points.empty();
    m_message->setPlainText(empty ? message : QString());
    m_message->setVisible(empty);
    m_xAxis->setVisible(!empty);
    m_yAxis->setVisible(!empty);
    updateTitle();
    updateRanges();
    applyColours();
    applyVisibility();
    updateRing();
    placeMessage();
}

void MdsScatter::setColouring(MdsColouring colouring) {
    if (colouring == m_colouring) {
        return;
    }
    m_colouring = colouring;
    applyVisibility();
}

void MdsScatter::setHighlighted(std::optional<std::vector<HeadId>> heads) {
    m_highlighted = std::move(heads);
    markFaint();
    splitHighlighted();
}

void MdsScatter::markFaint() {
    m_faint.assign(m_points.size(), false);
    if (!m_highlighted) {
        return;
    }
    const auto& kept = *m_highlighted;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        m_faint[i] = std::find(kept.begin(), kept.end(), m_points[i].head) == kept.end();
    }
}

void MdsScatter::setSelected(HeadId head) {
    m_selected = head;
    updateRing();
}

QList<QScatterSeries*> MdsScatter::pointSeries() const {
    QList<QScatterSeries*> out;
    for (const Group& g : m_colouring == MdsColouring::Layer ? m_layerGroups : m_labelGroups) {
        out.append(g.series);
    }
    return out;
}

QList<QScatterSeries*> MdsScatter::faintSeries() const {
    QList<QScatterSeries*> out;
    for (const Group& g : m_colouring == MdsColouring::Layer ? m_layerGroups : m_labelGroups) {
        out.append(g.faint);
    }
    return out;
}

QString MdsScatter::message() const {
    return m_message->isVisible() ? m_message->toPlainText() : QString();
}

// A short map (a 1024 x 700 window's Survey dock) gives its title's rows to the points; the
// Survey panel's tab says the same in its tool tip.
void MdsScatter::updateTitle() {
    constexpr int kTitleMinHeight = 260;
    chart()->setTitle(m_points.empty() || height() < kTitleMinHeight
                          ? QString()
                          : tr("Heads placed by MDS: close points attend alike"));
}

void MdsScatter::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    updateTitle();
}

void MdsScatter::changeEvent(QEvent* event) {
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyTheme();
    }
}

void MdsScatter::clearGroups() {
    for (std::vector<Group>* groups : {&m_layerGroups, &m_labelGroups}) {
        for (Group& g : *groups) {
            for (QScatterSeries* s : {g.series, g.faint}) {
                chart()->removeSeries(s);
                delete s;
            }
        }
        groups->clear();
    }
}

MdsScatter::Group MdsScatter::makeGroup(const QString& name, std::vector<int> members, int key) {
    Group g;
    g.series = new QScatterSeries;
    g.faint = new QScatterSeries;
    for (QScatterSeries* s : {g.series, g.faint}) {
        s->setName(name);
        s->setMarkerSize(kMarkerSize);
        connect(s, &QScatterSeries::hovered, this,
                [this, s](const QPointF& value, bool state) { onHovered(s, value, state); });
        connect(s, &QScatterSeries::clicked, this,
                [this, s](const QPointF& value) { onClicked(s, value); });
    }
    g.members = std::move(members);
    g.key = key;
    return g;
}

void MdsScatter::addSeriesInDrawingOrder() {
    // The chart draws series in the order they were added: every faint point first, so none
    // covers a highlighted one, then the full points, then the ring over the point it marks.
    chart()->removeSeries(m_ring);
    for (const bool faint : {true, false}) {
        for (const std::vector<Group>* groups : {&m_layerGroups, &m_labelGroups}) {
            for (const Group& g : *groups) {
                QScatterSeries* s = faint ? g.faint : g.series;
                chart()->addSeries(s);
                s->attachAxis(m_xAxis);
                s->attachAxis(m_yAxis);
            }
        }
    }
    chart()->addSeries(m_ring);
    m_ring->attachAxis(m_xAxis);
    m_ring->attachAxis(m_yAxis);
}

void MdsScatter::splitHighlighted() {
    const auto xy = [this](const std::vector<int>& indices) {
        QList<QPointF> out;
        out.reserve(static_cast<qsizetype>(indices.size()));
        for (const int i : indices) {
            const MdsPoint& p = m_points[static_cast<std::size_t>(i)];
            out.append(QPointF(p.x, p.y));
        }
        return out;
    };
    for (std::vector<Group>* groups : {&m_layerGroups, &m_labelGroups}) {
        for (Group& g : *groups) {
            g.shown.clear();
            g.dimmed.clear();
            for (const int i : g.members) {
                (m_faint[static_cast<std::size_t>(i)] ? g.dimmed : g.shown).push_back(i);
            }
            g.series->replace(xy(g.shown));
            g.faint->replace(xy(g.dimmed));
        }
    }
}

void MdsScatter::buildLayerGroups() {
    std::vector<std::vector<int>> byLayer(static_cast<std::size_t>(m_nLayers));
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        if (!placed(m_points[i])) {
            continue;
        }
        const int layer = std::max(0, m_points[i].head.layer);
        byLayer[static_cast<std::size_t>(layer)].push_back(static_cast<int>(i));
    }
    for (int layer = 0; layer < m_nLayers; ++layer) {
        auto& members = byLayer[static_cast<std::size_t>(layer)];
        if (!members.empty()) {
            m_layerGroups.push_back(
                makeGroup(tr("layer %1").arg(layer), std::move(members), layer));
        }
    }
    updateLayerBar();
}

void MdsScatter::buildLabelGroups() {
    QStringList families;
    std::vector<std::vector<int>> members;
    std::vector<int> unlabelled;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        const QString family = tagFamily(m_points[i].tag);
        if (!placed(m_points[i])) {
            continue;
        }
        if (family.isEmpty()) {
            unlabelled.push_back(static_cast<int>(i));
            continue;
        }
        auto at = families.indexOf(family);
        if (at < 0) {
            families.append(family);
            members.emplace_back();
            at = families.size() - 1;
        }
        members[static_cast<std::size_t>(at)].push_back(static_cast<int>(i));
    }
    // Rule order (unknown families after the known ones) so the legend reads like the rules.
    std::vector<std::size_t> order(static_cast<std::size_t>(families.size()));
    for (std::size_t k = 0; k < order.size(); ++k) {
        order[k] = k;
    }
    const auto rank = [&families](std::size_t k) {
        const auto known = knownFamilies().indexOf(families[static_cast<qsizetype>(k)]);
        return known < 0 ? std::numeric_limits<qsizetype>::max() : known;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&rank](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    // Unlabelled heads first, so they are drawn under the labelled ones (usually the many).
    if (!unlabelled.empty()) {
        m_labelGroups.push_back(makeGroup(tr("no label"), std::move(unlabelled), -1));
    }
    int slot = 0;
    for (const std::size_t k : order) {
        // Seven Okabe–Ito colours; families beyond them repeat a colour with another shape.
        Group g = makeGroup(families[static_cast<qsizetype>(k)], std::move(members[k]), slot);
        if (slot >= kMaxOverlaySlots) {
            for (QScatterSeries* s : {g.series, g.faint}) {
                s->setMarkerShape(slot >= 2 * kMaxOverlaySlots
                                      ? QScatterSeries::MarkerShapeTriangle
                                      : QScatterSeries::MarkerShapeRectangle);
            }
        }
        m_labelGroups.push_back(std::move(g));
        ++slot;
    }
}

void MdsScatter::applyTheme() {
    QChart* c = chart();
    applyChartTheme(c, palette());
    c->setTitleFont(sized(font(), 9, true));
    c->legend()->setFont(sized(font(), 8));
    for (QValueAxis* axis : {m_xAxis, m_yAxis}) {
        axis->setLabelsFont(sized(font(), 7));
        axis->setTitleFont(sized(font(), 8));
    }
    m_message->setDefaultTextColor(palette().color(QPalette::WindowText));
    m_message->setFont(sized(font(), 10));
    updateLayerBar();
    applyColours();
}

QColor MdsScatter::groupColor(bool byLayer, int key) const {
    const bool dark = isDarkPalette(palette());
    if (byLayer) {
        return layerColor(key, m_nLayers, dark);
    }
    return key < 0 ? unlabelledColor(dark) : overlayColor(key, palette());
}

void MdsScatter::applyColours() {
    // A thin outline in the plot's background keeps overlapping markers apart without drawing a
    // visible ring around faint ones.
    const QBrush brush = chart()->isPlotAreaBackgroundVisible() ? chart()->plotAreaBackgroundBrush()
                                                                : chart()->backgroundBrush();
    // The themes paint the background with a gradient, whose brush colour is meaningless.
    const QColor background = brush.gradient() && !brush.gradient()->stops().isEmpty()
                                  ? brush.gradient()->stops().back().second
                                  : brush.color();
    for (std::vector<Group>* groups : {&m_layerGroups, &m_labelGroups}) {
        for (Group& g : *groups) {
            g.color = groupColor(groups == &m_layerGroups, g.key);
            g.series->setColor(g.color);
            g.faint->setColor(faded(g.color));
            g.series->setBorderColor(background);
            // No outline on faint points: on a dark plot even a background-coloured one shows
            // as a ring darker than the faint fill.
            g.faint->setPen(Qt::NoPen);
        }
    }
    QPen ring(selectionColor(), 2.5);
    m_ring->setPen(ring);
    m_ring->setBrush(Qt::NoBrush);
}

void MdsScatter::applyVisibility() {
    const bool byLayer = m_colouring == MdsColouring::Layer;
    const bool layerLegend = byLayer && m_layerGroups.size() <= kMaxLayerLegend;
    QLegend* legend = chart()->legend();
    for (const std::vector<Group>* groups : {&m_layerGroups, &m_labelGroups}) {
        const bool shown = byLayer == (groups == &m_layerGroups);
        for (const Group& g : *groups) {
            g.series->setVisible(shown);
            g.faint->setVisible(shown);
            for (QLegendMarker* m : legend->markers(g.series)) {
                m->setVisible(shown && (!byLayer || layerLegend));
            }
            for (QLegendMarker* m : legend->markers(g.faint)) {
                m->setVisible(false);
            }
        }
    }
    for (QLegendMarker* m : chart()->legend()->markers(m_ring)) {
        m->setVisible(false);
    }
    const bool bar = byLayer && !layerLegend && !m_layerGroups.empty();
    m_layerKey->setVisible(bar);
    // Room on the right for the bar, which sits outside the plot like a legend.
    chart()->setMargins(QMargins(4, 4, bar ? 44 : 4, 4));
    chart()->legend()->setVisible(!m_points.empty() && (!byLayer || layerLegend));
}

void MdsScatter::updateLayerBar() {
    for (QGraphicsItem* item : m_layerKey->childItems()) {
        m_layerKey->removeFromGroup(item);
        delete item;
    }
    // Hard stops: one band per layer, in the colours of the points, layer 0 at the bottom.
    const bool dark = isDarkPalette(palette());
    const int n = std::max(1, m_nLayers);
    QLinearGradient gradient(0, 1, 0, 0);
    gradient.setCoordinateMode(QGradient::ObjectMode);
    for (int layer = 0; layer < n; ++layer) {
        const QColor color = layerColor(layer, n, dark);
        gradient.setColorAt(static_cast<double>(layer) / n, color);
        gradient.setColorAt(std::nextafter(static_cast<double>(layer + 1) / n, 0.0), color);
    }
    auto* bar = new QGraphicsRectItem;
    bar->setBrush(gradient);
    bar->setPen(Qt::NoPen);
    const QColor text = palette().color(QPalette::WindowText);
    const QFont small = sized(font(), 7);
    QList<QGraphicsItem*> items{bar};
    for (const QString& label : {tr("layer"), QString::number(n - 1), QStringLiteral("0")}) {
        auto* item = new QGraphicsSimpleTextItem(label);
        item->setFont(small);
        item->setBrush(text);
        items.append(item);
    }
    for (QGraphicsItem* item : items) {
        m_layerKey->addToGroup(item);
    }
    placeLayerKey();
}

void MdsScatter::placeLayerKey() {
    const QList<QGraphicsItem*> items = m_layerKey->childItems();
    if (items.size() != 4) {
        return;
    }
    // Order as updateLayerBar adds them: bar, caption, top layer, layer 0.
    const QRectF plot = chart()->plotArea();
    const qreal barX = plot.right() + 12;
    auto* caption = static_cast<QGraphicsSimpleTextItem*>(items[1]);
    const qreal top = plot.top() + caption->boundingRect().height() + 4;
    static_cast<QGraphicsRectItem*>(items[0])->setRect(barX, top, 9, plot.bottom() - top);
    caption->setPos(barX + 4.5 - caption->boundingRect().width() / 2, plot.top());
    const qreal labelX = barX + 12;
    items[2]->setPos(labelX, top - 1);
    items[3]->setPos(labelX, plot.bottom() - items[3]->boundingRect().height() + 1);
}

void MdsScatter::updateRing() {
    QList<QPointF> ring;
    for (const MdsPoint& p : m_points) {
        if (p.head == m_selected && placed(p)) {
            ring.append(QPointF(p.x, p.y));
        }
    }
    m_ring->replace(ring);
}

void MdsScatter::updateRanges() {
    if (m_points.empty()) {
        m_xAxis->setRange(0, 1);
        m_yAxis->setRange(0, 1);
        return;
    }
    const auto span = [this](double MdsPoint::*coord, QValueAxis* axis) {
        double lo = std::numeric_limits<double>::infinity();
        double hi = -lo;
        for (const MdsPoint& p : m_points) {
            if (placed(p)) {
                lo = std::min(lo, p.*coord);
                hi = std::max(hi, p.*coord);
            }
        }
        if (lo > hi) {  // none placed
            lo = 0;
            hi = 0;
        }
        // A margin so edge markers (and the ring) are not cut by the plot's border.
        const double pad = hi > lo ? 0.06 * (hi - lo) : 1.0;
        axis->setRange(lo - pad, hi + pad);
        // Round ticks through 0: the coordinates are centred, so 0 is the map's middle.
        axis->setTickType(QValueAxis::TicksDynamic);
        axis->setTickAnchor(0.0);
        axis->setTickInterval(niceTickInterval(hi - lo + 2 * pad, 4));
    };
    span(&MdsPoint::x, m_xAxis);
    span(&MdsPoint::y, m_yAxis);
}

void MdsScatter::placeMessage() {
    const QRectF area = chart()->geometry();
    m_message->setTextWidth(std::max(80.0, area.width() - 40));
    const QRectF box = m_message->boundingRect();
    m_message->setPos(area.center().x() - box.width() / 2, area.center().y() - box.height() / 2);
}

int MdsScatter::nearestPoint(const QScatterSeries* series, const QPointF& value) const {
    const std::vector<int>* indices = nullptr;
    for (const std::vector<Group>* groups : {&m_layerGroups, &m_labelGroups}) {
        for (const Group& g : *groups) {
            if (series == g.series || series == g.faint) {
                indices = series == g.series ? &g.shown : &g.dimmed;
            }
        }
    }
    if (series == m_ring) {
        // The ring lies over the selected head's point and takes its hover and click.
        const auto it = std::find_if(m_points.begin(), m_points.end(),
                                     [this](const MdsPoint& p) { return p.head == m_selected; });
        return it == m_points.end() ? -1 : static_cast<int>(it - m_points.begin());
    }
    int best = -1;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (const int i : indices ? *indices : std::vector<int>{}) {
        const MdsPoint& p = m_points[static_cast<std::size_t>(i)];
        const double d = std::hypot(p.x - value.x(), p.y - value.y());
        if (d < bestDistance) {
            bestDistance = d;
            best = i;
        }
    }
    return best;
}

void MdsScatter::onHovered(const QScatterSeries* series, const QPointF& value, bool state) {
    const int i = state ? nearestPoint(series, value) : -1;
    if (i < 0) {
        QToolTip::hideText();
        return;
    }
    const MdsPoint& p = m_points[static_cast<std::size_t>(i)];
    QString text = QStringLiteral("<b>") +
                   tr("head %1").arg(QString::fromStdString(p.head.toString())) +
                   QStringLiteral("</b>");
    text += p.tooltip.isEmpty() ? QStringLiteral("<br>") + tr("no label")
                                : QStringLiteral("<br>") + p.tooltip;
    QToolTip::showText(QCursor::pos(), text, this);
}

void MdsScatter::onClicked(const QScatterSeries* series, const QPointF& value) {
    const int i = nearestPoint(series, value);
    if (i >= 0) {
        emit headClicked(m_points[static_cast<std::size_t>(i)].head);
    }
}

}  // namespace attnscope::app
