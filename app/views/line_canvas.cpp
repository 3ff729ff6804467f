#include "views/line_canvas.h"

#include <algorithm>
#include <cmath>

#include <QEvent>
#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

namespace attnscope::app {

namespace {

constexpr double kMargin = 12.0;
constexpr double kGap = 8.0;  // between a label column and the lines
constexpr double kMaxLabelWidth = 160.0;
constexpr double kMinBand = 120.0;   // width of the band the lines cross
constexpr double kMaxBand = 480.0;   // wider bands make lines too flat to follow
constexpr int kTooltipKeys = 5;      // strongest weights listed per head in a tooltip
constexpr double kDimFactor = 0.15;  // opacity of the other lines while hovering a token
// Antialiased lines cost ~2x aliased ones; with more lines than this (several heads at 512
// tokens) the mostly faint lines are rendered into the tiles aliased, to keep a new head fast.
constexpr std::size_t kMaxAntialiasedLines = 20000;

// Pen width for a weight. Thick antialiased strokes are ~2.5x dearer than 1 px ones, and all
// but at most two lines per row weigh under 0.35, so only the strong lines get wider.
double penWidth(double weight) {
    return weight < 0.35 ? 1.0 : 1.0 + 4.0 * (weight - 0.35);
}

// `color` at opacity `alpha` over `background`, as an opaque colour.
QColor blend(const QColor& color, const QColor& background, double alpha) {
    const auto mix = [alpha](float c, float bg) {
        return static_cast<float>(alpha * c + (1.0 - alpha) * bg);
    };
    return QColor::fromRgbF(mix(color.redF(), background.redF()),
                            mix(color.greenF(), background.greenF()),
                            mix(color.blueF(), background.blueF()));
}

int bucketOf(float weight, int buckets) {
    return std::clamp(static_cast<int>(weight * static_cast<float>(buckets)), 0, buckets - 1);
}

}  // namespace

LineCanvas::LineCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void LineCanvas::setData(std::shared_ptr<const analysis::SentenceAnalysis> result,
                         std::vector<OverlayHead> heads, float minWeight) {
    m_result = std::move(result);
    m_placeholder.clear();
    m_labels.clear();
    m_fullyMasked.clear();
    m_heads.clear();
    if (m_result) {
        const auto& f = m_result->forward;
        m_fullyMasked.assign(static_cast<std::size_t>(f.nTokens), false);
        for (const int q : f.fullyMaskedRows) {
            if (q >= 0 && q < f.nTokens) {
                m_fullyMasked[static_cast<std::size_t>(q)] = true;
            }
        }
        for (int i = 0; i < f.nTokens; ++i) {
            m_labels.append(QString::fromStdString(m_result->label(i)));
        }
        for (const OverlayHead& h : heads) {
            if (h.head.layer >= 0 && h.head.layer < f.nLayers && h.head.head >= 0 &&
                h.head.head < f.nHeads) {
                m_heads.push_back({h, {}, {}});
            }
        }
    }
    measureLabels();
    buildLines(minWeight);
    m_tiles.clear();
    if (m_hover && m_hover->index >= m_labels.size()) {
        m_hover.reset();
    }
    updateSize();
    update();
}

void LineCanvas::clear(const QString& placeholder) {
    m_result.reset();
    m_heads.clear();
    m_labels.clear();
    m_fullyMasked.clear();
    m_hover.reset();
    m_placeholder = placeholder;
    m_widestLabel = 0;
    m_tiles.clear();
    updateSize();
    update();
}

// One pass over each head's map; lines are then grouped by weight bucket (counting sort) so the
// painter can draw each bucket with a single pen, lightest first so strong lines end on top.
void LineCanvas::buildLines(float minWeight) {
    if (!m_result) {
        return;
    }
    const auto& f = m_result->forward;
    for (HeadLines& h : m_heads) {
        const Matrix& a = h.head.map;
        std::vector<Line> lines;
        std::array<std::size_t, kBuckets + 1> counts{};
        for (int q = 0; q < f.nTokens; ++q) {
            if (m_fullyMasked[static_cast<std::size_t>(q)]) {
                continue;
            }
            for (int k = 0; k < f.nTokens; ++k) {
                const float w = a(q, k);
                if (f.allowedFor(h.head.head.layer)(q, k) == 0 || w <= 0.0f || w < minWeight) {
                    continue;
                }
                lines.push_back({q, k, w});
                ++counts[static_cast<std::size_t>(bucketOf(w, kBuckets)) + 1];
            }
        }
        for (int b = 0; b < kBuckets; ++b) {
            counts[static_cast<std::size_t>(b) + 1] += counts[static_cast<std::size_t>(b)];
        }
        h.bucketStart = counts;
        h.lines.resize(lines.size());
        for (const Line& line : lines) {
            h.lines[counts[static_cast<std::size_t>(bucketOf(line.weight, kBuckets))]++] = line;
        }
    }
}

int LineCanvas::lineCount() const {
    std::size_t n = 0;
    for (const HeadLines& h : m_heads) {
        n += h.lines.size();
    }
    return static_cast<int>(n);
}

int LineCanvas::highlightedLineCount() const {
    int n = 0;
    for (const HeadLines& h : m_heads) {
        forEachHoverWeight(h, [&n](int, int, float) { ++n; });
    }
    return n;
}

// Calls fn(q, k, weight) for every line of the hovered token in head h: its row (query) or
// column (key), allowed cells only, down to kHoverMinWeight.
template <class Fn>
void LineCanvas::forEachHoverWeight(const HeadLines& h, Fn&& fn) const {
    if (!m_hover || !m_result) {
        return;
    }
    const auto& f = m_result->forward;
    const Matrix& a = h.head.map;
    const bool fromQuery = m_hover->side == Side::Query;
    for (int j = 0; j < f.nTokens; ++j) {
        const int q = fromQuery ? m_hover->index : j;
        const int k = fromQuery ? j : m_hover->index;
        if (f.allowedFor(h.head.head.layer)(q, k) == 0 ||
            m_fullyMasked[static_cast<std::size_t>(q)]) {
            continue;
        }
        const float w = a(q, k);
        if (w >= kHoverMinWeight) {
            fn(q, k, w);
        }
    }
}

void LineCanvas::setHoveredToken(std::optional<Token> token) {
    if (token && (token->index < 0 || token->index >= m_labels.size())) {
        token.reset();
    }
    if (token != m_hover) {
        m_hover = token;
        update();
    }
}

LineCanvas::Layout LineCanvas::layout() const {
    const QFontMetricsF fm(font());
    Layout l;
    l.row = std::max(18.0, std::ceil(fm.height() + 6));
    l.top = kMargin + fm.height() + 8;  // room for the "queries" / "keys" header
    l.labelWidth = std::min(kMaxLabelWidth, m_widestLabel) + 16;
    const double fixed = 2 * l.labelWidth + 2 * kGap;
    const double band = std::clamp(width() - fixed - 2 * kMargin, kMinBand, kMaxBand);
    const double left = std::max(kMargin, (width() - fixed - band) / 2);
    l.leftLabels = left;
    l.lineLeft = left + l.labelWidth + kGap;
    l.lineRight = l.lineLeft + band;
    l.rightLabels = l.lineRight + kGap;
    return l;
}

QRectF LineCanvas::tokenRect(Token token) const {
    const Layout l = layout();
    const double x = token.side == Side::Query ? l.leftLabels : l.rightLabels;
    return {x, l.top + token.index * l.row, l.labelWidth, l.row};
}

std::optional<LineCanvas::Token> LineCanvas::tokenAt(QPointF pos) const {
    if (m_labels.isEmpty()) {
        return std::nullopt;
    }
    const Layout l = layout();
    const int row = static_cast<int>(std::floor((pos.y() - l.top) / l.row));
    if (row < 0 || row >= m_labels.size()) {
        return std::nullopt;
    }
    if (pos.x() >= l.leftLabels && pos.x() < l.lineLeft) {
        return Token{Side::Query, row};
    }
    if (pos.x() > l.lineRight && pos.x() <= l.rightLabels + l.labelWidth) {
        return Token{Side::Key, row};
    }
    return std::nullopt;
}

QSize LineCanvas::sizeHint() const {
    const Layout l = layout();
    return {static_cast<int>(2 * l.labelWidth + 2 * kGap + 360 + 2 * kMargin),
            static_cast<int>(l.top + m_labels.size() * l.row + kMargin)};
}

QSize LineCanvas::minimumSizeHint() const {
    const Layout l = layout();
    return {static_cast<int>(2 * l.labelWidth + 2 * kGap + kMinBand + 2 * kMargin),
            static_cast<int>(l.top + m_labels.size() * l.row + kMargin)};
}

// Measuring 512 labels is the dearest part of a layout, so it happens only when they change.
void LineCanvas::measureLabels() {
    const QFontMetricsF fm(font());
    m_widestLabel = 0;
    for (const QString& label : m_labels) {
        m_widestLabel = std::max(m_widestLabel, fm.horizontalAdvance(label));
    }
}

void LineCanvas::updateSize() {
    setMinimumHeight(minimumSizeHint().height());
    updateGeometry();
}

void LineCanvas::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    const QRectF exposed = event->rect();
    if (!m_result) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
        return;
    }
    const Layout l = layout();
    const QFontMetricsF fm(font());
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(QRectF(l.leftLabels, kMargin, l.labelWidth - 6, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, tr("queries"));
    p.drawText(QRectF(l.rightLabels + 6, kMargin, l.labelWidth, fm.height()),
               Qt::AlignLeft | Qt::AlignVCenter, tr("keys"));
    if (m_heads.empty()) {
        p.drawText(QRectF(l.lineLeft, l.top, l.lineRight - l.lineLeft, 3 * l.row),
                   Qt::AlignCenter | Qt::TextWordWrap, tr("No head chosen to draw"));
    }
    paintTints(p, l, exposed);
    paintLineTiles(p, l, exposed);
    p.setRenderHint(QPainter::Antialiasing);
    paintHoverLines(p, l);
    p.setRenderHint(QPainter::Antialiasing, false);
    paintLabels(p, l, exposed);
}

// The lines change only with the data and the width, but a hover repaints the whole visible
// area; so they are rendered once into tiles of the band and blitted, dimmed by opacity while
// a token is hovered (the hovered token's own lines are drawn on top, bright).
void LineCanvas::paintLineTiles(QPainter& p, const Layout& l, const QRectF& exposed) {
    const QRect band(static_cast<int>(std::floor(l.lineLeft)) - 2, 0,
                     static_cast<int>(std::ceil(l.lineRight - l.lineLeft)) + 4, kTileHeight);
    const qreal dpr = devicePixelRatioF();
    if (band != m_tileBand || dpr != m_tileDpr) {
        m_tiles.clear();
        m_tileBand = band;
        m_tileDpr = dpr;
    }
    const int first = std::max(0, static_cast<int>(exposed.top()) / kTileHeight);
    const int last = std::max(0, static_cast<int>(exposed.bottom()) / kTileHeight);
    if (static_cast<int>(m_tiles.size()) <= last) {
        m_tiles.resize(static_cast<std::size_t>(last) + 1);
    }
    p.save();
    p.setOpacity(m_hover ? kDimFactor : 1.0);
    for (int t = first; t <= last; ++t) {
        QImage& tile = m_tiles[static_cast<std::size_t>(t)];
        if (tile.isNull()) {
            tile = QImage(band.size() * dpr, QImage::Format_ARGB32_Premultiplied);
            tile.setDevicePixelRatio(dpr);
            tile.fill(Qt::transparent);
            QPainter tp(&tile);
            tp.translate(-band.left(), -t * kTileHeight);
            tp.setRenderHint(QPainter::Antialiasing,
                             lineCount() <= static_cast<int>(kMaxAntialiasedLines));
            paintLines(tp, l, QRectF(band.left(), t * kTileHeight, band.width(), kTileHeight));
        }
        p.drawImage(QPointF(band.left(), t * kTileHeight), tile);
    }
    p.restore();
}

// Every stored line crossing `area`, one drawLines call per weight bucket and head. Buckets go
// lightest first across all heads, so a strong line is never cut by a faint one crossing it.
// Colours are pre-blended with the background and drawn opaque: the raster engine draws
// opaque lines ~5x faster than translucent ones (measured), which keeps 512 tokens fluid.
void LineCanvas::paintLines(QPainter& p, const Layout& l, const QRectF& area) const {
    const QColor background = palette().color(QPalette::Base);
    std::vector<QLineF> batch;
    for (int b = 0; b < kBuckets; ++b) {
        const double weight = (b + 0.5) / kBuckets;
        for (const HeadLines& h : m_heads) {
            batch.clear();
            const auto first = h.bucketStart[static_cast<std::size_t>(b)];
            const auto last = h.bucketStart[static_cast<std::size_t>(b) + 1];
            for (auto i = first; i < last; ++i) {
                const Line& line = h.lines[i];
                const double yq = rowCenter(l, line.q);
                const double yk = rowCenter(l, line.k);
                if (std::max(yq, yk) < area.top() - 4 || std::min(yq, yk) > area.bottom() + 4) {
                    continue;  // the whole line lies outside
                }
                batch.emplace_back(l.lineLeft, yq, l.lineRight, yk);
            }
            if (batch.empty()) {
                continue;
            }
            p.setPen(QPen(blend(h.head.color, background, weight), penWidth(weight), Qt::SolidLine,
                          Qt::FlatCap));
            p.drawLines(batch.data(), static_cast<int>(batch.size()));
        }
    }
}

// The hovered token's lines, read from its full row or column rather than the thresholded set,
// so a broad head still shows where its attention goes. Opacity ~ sqrt(weight) lifts light
// lines without a floor that would make a sharp head look broad.
void LineCanvas::paintHoverLines(QPainter& p, const Layout& l) const {
    std::array<std::vector<QLineF>, kBuckets> buckets;
    for (const HeadLines& h : m_heads) {
        for (auto& b : buckets) {
            b.clear();
        }
        forEachHoverWeight(h, [&](int q, int k, float w) {
            const float strength = std::sqrt(w);  // buckets on the opacity scale
            buckets[static_cast<std::size_t>(bucketOf(strength, kBuckets))].emplace_back(
                l.lineLeft, rowCenter(l, q), l.lineRight, rowCenter(l, k));
        });
        for (int b = 0; b < kBuckets; ++b) {
            const auto& batch = buckets[static_cast<std::size_t>(b)];
            if (batch.empty()) {
                continue;
            }
            const double alpha = (b + 0.5) / kBuckets;
            QColor c = h.head.color;
            c.setAlphaF(static_cast<float>(alpha));
            p.setPen(QPen(c, penWidth(alpha * alpha) + 0.5, Qt::SolidLine, Qt::FlatCap));
            p.drawLines(batch.data(), static_cast<int>(batch.size()));
        }
    }
}

// While a token is hovered, the tokens on the other side get a background whose opacity is
// the weight between them (the strongest head's colour), so the targets read without lines.
void LineCanvas::paintTints(QPainter& p, const Layout& l, const QRectF& exposed) const {
    if (!m_hover || m_heads.empty()) {
        return;
    }
    const auto& f = m_result->forward;
    const int first = std::max(0, static_cast<int>((exposed.top() - l.top) / l.row));
    const int last = std::min(f.nTokens - 1, static_cast<int>((exposed.bottom() - l.top) / l.row));
    const bool fromQuery = m_hover->side == Side::Query;
    for (int i = first; i <= last; ++i) {
        const int q = fromQuery ? m_hover->index : i;
        const int k = fromQuery ? i : m_hover->index;
        if (f.allowed(q, k) == 0 || m_fullyMasked[static_cast<std::size_t>(q)]) {
            continue;
        }
        float best = 0;
        QColor color;
        for (const HeadLines& h : m_heads) {
            const float w = h.head.map(q, k);
            if (w > best) {
                best = w;
                color = h.head.color;
            }
        }
        if (best <= 0) {
            continue;
        }
        color.setAlphaF(std::min(1.0f, best) * 0.55f);
        const Token other{fromQuery ? Side::Key : Side::Query, i};
        p.fillRect(tokenRect(other).adjusted(2, 1, -2, -1), color);
    }
}

void LineCanvas::paintLabels(QPainter& p, const Layout& l, const QRectF& exposed) const {
    const QFontMetricsF fm(font());
    const int first = std::max(0, static_cast<int>((exposed.top() - l.top) / l.row));
    const int last = std::min(static_cast<int>(m_labels.size()) - 1,
                              static_cast<int>((exposed.bottom() - l.top) / l.row));
    const QColor text = palette().color(QPalette::Text);
    const QColor muted = palette().color(QPalette::PlaceholderText);
    for (int i = first; i <= last; ++i) {
        const QString label = fm.elidedText(m_labels[i], Qt::ElideRight, l.labelWidth - 12);
        for (const Side side : {Side::Query, Side::Key}) {
            const Token token{side, i};
            const QRectF r = tokenRect(token);
            const bool hovered = m_hover == token;
            if (hovered) {
                p.fillRect(r.adjusted(1, 0, -1, 0), palette().color(QPalette::Highlight));
            }
            const bool masked = side == Side::Query && m_fullyMasked[static_cast<std::size_t>(i)];
            p.setPen(hovered ? palette().color(QPalette::HighlightedText) : masked ? muted : text);
            const QRectF inner = r.adjusted(6, 0, -6, 0);
            p.drawText(inner,
                       (side == Side::Query ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                       label);
        }
    }
}

QString LineCanvas::tooltipFor(Token token) const {
    const auto& f = m_result->forward;
    const int i = token.index;
    const bool query = token.side == Side::Query;
    QString html = QStringLiteral("<b>%1 %2 “%3”</b>")
                       .arg(query ? tr("Query") : tr("Key"))
                       .arg(i)
                       .arg(m_labels[i].toHtmlEscaped());
    if (query && m_fullyMasked[static_cast<std::size_t>(i)]) {
        return html + "<br>" + tr("fully masked: this query sees no key");
    }
    html += "<br>" + (query ? tr("strongest keys it attends to:")
                            : tr("strongest queries attending to it:"));
    for (const HeadLines& h : m_heads) {
        const Matrix& a = h.head.map;
        std::vector<std::pair<float, int>> weights;
        for (int j = 0; j < f.nTokens; ++j) {
            const int q = query ? i : j;
            const int k = query ? j : i;
            if (f.allowedFor(h.head.head.layer)(q, k) != 0 &&
                !m_fullyMasked[static_cast<std::size_t>(q)]) {
                weights.emplace_back(a(q, k), j);
            }
        }
        const auto shown = std::min<std::size_t>(kTooltipKeys, weights.size());
        std::partial_sort(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(shown),
                          weights.end(), [](const auto& x, const auto& y) { return x > y; });
        QStringList parts;
        for (std::size_t n = 0; n < shown; ++n) {
            parts << QStringLiteral("“%1” %2")
                         .arg(m_labels[weights[n].second].toHtmlEscaped())
                         .arg(weights[n].first, 0, 'f', 3);
        }
        html += QStringLiteral("<br><span style=\"color:%1\">■</span> L%2 H%3: %4")
                    .arg(h.head.color.name())
                    .arg(h.head.head.layer)
                    .arg(h.head.head.head)
                    .arg(parts.isEmpty() ? tr("none") : parts.join(QStringLiteral(" · ")));
    }
    return html;
}

void LineCanvas::mouseMoveEvent(QMouseEvent* event) {
    const auto token = tokenAt(event->position());
    if (token == m_hover) {
        return;
    }
    m_hover = token;
    update();
    if (token && m_result) {
        QToolTip::showText(event->globalPosition().toPoint(), tooltipFor(*token), this);
    } else {
        QToolTip::hideText();
    }
}

void LineCanvas::leaveEvent(QEvent*) {
    setHoveredToken(std::nullopt);
}

void LineCanvas::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        m_tiles.clear();  // line colours are blended with the background
    }
    if (event->type() == QEvent::FontChange) {
        m_tiles.clear();  // row positions move
        measureLabels();
        updateSize();
    }
    QWidget::changeEvent(event);
}

}  // namespace attnscope::app
