#include "render/figure_painter.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QPaintEngine>
#include <QPainter>

#include "render/color_bar.h"
#include "render/head_colors.h"
#include "render/heat_cells.h"
#include "render/text_extent.h"

namespace attnscope::render {

namespace {

// Type sizes and gaps, in points (1/72 inch): a figure printed at its physical size reads
// like a journal figure. Token labels shrink from kMaxLabelPt to kMinLabelPt with the cells.
constexpr double kMarginPt = 12;
constexpr double kTitlePt = 11;
constexpr double kMinTitlePt = 8;  // a narrow figure shrinks its title to this, then wraps it
constexpr double kSubtitlePt = 9;
constexpr double kNotePt = 7.5;
constexpr double kHeaderPt = 9;
constexpr double kTickPt = 8;
constexpr double kMaxLabelPt = 8;
constexpr double kMinLabelPt = 5;  // smaller labels are not legible in print
constexpr double kLabelGapPt = 2.5;
constexpr double kPanelGapPt = 8;
constexpr double kTitleGapPt = 8;
constexpr double kBarGapPt = 12;
constexpr double kBarWidthPt = 9;
constexpr double kMinBarHeightPt = 24;  // below the panels only when they are tinier still
constexpr double kHatchSpacingPt = 3;
constexpr double kMinHatchCellPt = 2.5;  // smaller cells: the flat grey alone says "masked"
constexpr double kMaxLabelExtentPt = 80;
// Vector cells only while the file stays small; larger maps are embedded as an image. The
// token limit holds for rows and columns alike, the cell limit counts rows × columns.
constexpr int kMaxVectorTokens = 64;
constexpr long long kMaxVectorCells = 250000;

struct Context {
    QPaintDevice* device = nullptr;
    QSizeF size;
    double dpi = 96;

    double pt(double points) const { return points * dpi / 72.0; }

    QFont font(double points, bool bold = false) const {
        QFont f;
        // Fonts that print well and carry the symbols we use (·, ↵, superscripts); Qt falls
        // back to the system's sans-serif when none is installed.
        f.setFamilies({QStringLiteral("DejaVu Sans"), QStringLiteral("Liberation Sans"),
                       QStringLiteral("Arial")});
        f.setStyleHint(QFont::SansSerif);
        // Pixel sizes, not point sizes: the painter's units are the figure's pixels on every
        // device, whatever DPI the device itself reports.
        f.setPixelSize(std::max(1, static_cast<int>(std::lround(pt(points)))));
        f.setBold(bold);
        return f;
    }

    QFontMetricsF metrics(const QFont& f) const { return QFontMetricsF(f, device); }
};

// Everything whose size does not depend on the cells.
struct Fixed {
    QFont title, subtitle, note, header;
    ColorBarStyle bar;
    double margin = 0, labelGap = 0, panelGap = 0;
    double titleHeight = 0;  // title block including the gap below it
    double barBlockWidth = 0;
    double headerWidth = 0, headerHeight = 0;
    double axisHeight = 0;
    double legendHeight = 0;
    // Some cell is masked (the legend shows the hatching); each panel hatches its layer's mask.
    bool masked = false;
};

// Maps are [rows = nTokens, columns = keyCount()] with square cells, so a panel is square only
// for self-attention. Row labels sit left of a panel, column labels above it: each axis has
// its own extent (its longest label).
struct Layout {
    double cell = 0;
    double panelW = 0, panelH = 0;
    bool labels = false;
    int labelStep = 1;
    QFont labelFont;
    double rowLabelExtent = 0, colLabelExtent = 0;
    double blockLeft = 0, blockTop = 0;
    double titleTop = 0;
    std::vector<double> colLeft;  // [cols] left edge of the maps in each grid column
    std::vector<double> rowTop;   // [rows] top edge of the maps in each grid row
    QRectF bar;
};

// The title font from kTitlePt down to kMinTitlePt, the largest that fits one line.
QFont fittedTitleFont(const Context& ctx, const QString& title) {
    const double width = ctx.size.width() - 2 * ctx.pt(kMarginPt);
    QFont font = ctx.font(kTitlePt, true);
    const int minPx = ctx.font(kMinTitlePt, true).pixelSize();
    while (font.pixelSize() > minPx && ctx.metrics(font).horizontalAdvance(title) > width) {
        font.setPixelSize(font.pixelSize() - 1);
    }
    return font;
}

// A line of the title block. The title and the note wrap onto more lines on a narrow figure
// (they say which head and how to read it); the sentence is elided instead.
struct TitleLine {
    QString text;
    QFont font;
    QColor color;
    bool wrap = false;
};

std::vector<TitleLine> titleLines(const FigureContent& c, const Fixed& f) {
    std::vector<TitleLine> lines;
    for (TitleLine line : {TitleLine{c.title, f.title, Qt::black, true},
                           TitleLine{c.subtitle, f.subtitle, Qt::black, false},
                           TitleLine{c.note, f.note, QColor(0x55, 0x55, 0x55), true}}) {
        if (!line.text.isEmpty()) {
            lines.push_back(line);
        }
    }
    return lines;
}

double titleWidth(const Context& ctx, const Fixed& f) {
    return std::max(1.0, ctx.size.width() - 2 * f.margin);
}

double titleLineHeight(const Context& ctx, const Fixed& f, const TitleLine& line) {
    const QFontMetricsF fm = ctx.metrics(line.font);
    if (!line.wrap) {
        return fm.height();
    }
    const QRectF box(0, 0, titleWidth(ctx, f), 1e6);
    return fm.boundingRect(box, Qt::AlignHCenter | Qt::TextWordWrap, line.text).height();
}

Fixed fixedParts(const Context& ctx, const FigureContent& c) {
    Fixed f;
    f.title = fittedTitleFont(ctx, c.title);
    f.subtitle = ctx.font(kSubtitlePt);
    f.note = ctx.font(kNotePt);
    f.header = ctx.font(kHeaderPt);
    f.bar = {ctx.font(kTickPt), ctx.font(kHeaderPt), ctx.pt(3), ctx.pt(2.5)};
    f.margin = ctx.pt(kMarginPt);
    f.labelGap = ctx.pt(kLabelGapPt);
    f.panelGap = ctx.pt(kPanelGapPt);
    f.masked = figureMask(*c.forward) != nullptr;
    double title = 0;
    for (const TitleLine& line : titleLines(c, f)) {
        title += titleLineHeight(ctx, f, line) + ctx.pt(1.5);
    }
    f.titleHeight = title > 0 ? title + ctx.pt(kTitleGapPt) : 0.0;
    f.barBlockWidth =
        ctx.pt(kBarGapPt) + ctx.pt(kBarWidthPt) + colorBarLabelWidth(c.range, f.bar, ctx.device);
    const QFontMetricsF hm = ctx.metrics(f.header);
    for (const QString& h : c.rowHeaders) {
        f.headerWidth = std::max(f.headerWidth, hm.horizontalAdvance(h));
    }
    f.headerHeight = hm.height();
    f.axisHeight = c.axisTitles ? hm.height() : 0.0;
    f.legendHeight = f.masked ? ctx.pt(6) + hm.height() : 0.0;
    return f;
}

bool labelsOn(const FigureContent& c, const Layout& l, int index) {
    return l.labels && (c.labelPlacement == TokenLabelPlacement::EveryPanel || index == 0);
}

bool hasCaptions(const FigureContent& c) {
    return std::any_of(c.panels.begin(), c.panels.end(),
                       [](const FigurePanel& p) { return !p.caption.isEmpty(); });
}

// Room left of the maps in grid column `col`, outermost first: row header, axis title, labels.
double leftExtent(const FigureContent& c, const Fixed& f, const Layout& l, int col) {
    double w = 0;
    if (col == 0 && !c.rowHeaders.isEmpty()) {
        w += f.headerWidth + f.panelGap;  // clear of the longest token label
    }
    if (c.axisTitles) {
        w += f.axisHeight + f.labelGap;
    }
    if (labelsOn(c, l, col)) {
        w += l.rowLabelExtent + f.labelGap;
    }
    return std::ceil(w);
}

// Room above the maps in grid row `row`: column header, caption, axis title, labels.
double topExtent(const FigureContent& c, const Fixed& f, const Layout& l, int row) {
    double h = 0;
    if (row == 0 && !c.colHeaders.isEmpty()) {
        h += f.headerHeight + f.labelGap;
    }
    if (hasCaptions(c)) {
        h += f.headerHeight + f.labelGap;
    }
    if (c.axisTitles) {
        h += f.axisHeight + f.labelGap;
    }
    if (labelsOn(c, l, row)) {
        h += l.colLabelExtent + f.labelGap;
    }
    return std::ceil(h);
}

const QStringList& columnLabels(const FigureContent& c) {
    return c.keyLabels.isEmpty() ? c.tokenLabels : c.keyLabels;
}

double labelExtentFor(const Context& ctx, const QStringList& labels, const QFont& font) {
    const double w = widestAdvance(ctx.metrics(font), labels);
    return std::ceil(std::min({w, ctx.pt(kMaxLabelExtentPt), 0.22 * ctx.size.width()}));
}

// Places everything for token labels in `labelFont` (null: no labels).
Layout solve(const Context& ctx, const FigureContent& c, const Fixed& f, const QFont* labelFont) {
    Layout l;
    l.labels = labelFont != nullptr;
    if (l.labels) {
        l.labelFont = *labelFont;
        l.rowLabelExtent = labelExtentFor(ctx, c.tokenLabels, *labelFont);
        l.colLabelExtent = labelExtentFor(ctx, columnLabels(c), *labelFont);
    }
    double sumLeft = 0;
    for (int col = 0; col < c.cols; ++col) {
        sumLeft += leftExtent(c, f, l, col);
    }
    double sumTop = 0;
    for (int row = 0; row < c.rows; ++row) {
        sumTop += topExtent(c, f, l, row);
    }
    const int n = std::max(1, c.forward->nTokens);
    const int k = std::max(1, c.forward->keyCount());
    const double freeW =
        ctx.size.width() - 2 * f.margin - f.barBlockWidth - sumLeft - (c.cols - 1) * f.panelGap;
    const double freeH =
        ctx.size.height() - 2 * f.margin - f.titleHeight - sumTop - (c.rows - 1) * f.panelGap;
    l.cell = std::max(0.05, std::min(freeW / (c.cols * k), freeH / (c.rows * n)));
    if (l.cell >= 3) {
        l.cell = std::floor(l.cell);  // whole pixels: every PNG cell the same size
    }
    l.panelW = l.cell * k;
    l.panelH = l.cell * n;
    const double blockW = sumLeft + c.cols * l.panelW + (c.cols - 1) * f.panelGap;
    const double blockH = sumTop + c.rows * l.panelH + (c.rows - 1) * f.panelGap;
    const double spareW = ctx.size.width() - 2 * f.margin - blockW - f.barBlockWidth;
    const double spareH = ctx.size.height() - 2 * f.margin - f.titleHeight - blockH;
    l.blockLeft = std::round(f.margin + std::max(0.0, spareW / 2));
    l.titleTop = std::round(f.margin + std::max(0.0, spareH / 2));
    l.blockTop = l.titleTop + std::ceil(f.titleHeight);
    double x = l.blockLeft;
    for (int col = 0; col < c.cols; ++col) {
        x += leftExtent(c, f, l, col);
        l.colLeft.push_back(std::round(x));
        x += l.panelW + f.panelGap;
    }
    double y = l.blockTop;
    for (int row = 0; row < c.rows; ++row) {
        y += topExtent(c, f, l, row);
        l.rowTop.push_back(std::round(y));
        y += l.panelH + f.panelGap;
    }
    const double top = l.rowTop.front();
    const double bottom = l.rowTop.back() + l.panelH - f.legendHeight;
    // Flat maps (cross-attention to a long source from a few target tokens) get a bar as long
    // as its caption, running below them while the page has room: a caption longer than its bar
    // grows upwards, into the title. Square maps keep the layout they always had.
    const double caption =
        l.panelW > l.panelH
            ? ctx.metrics(f.bar.captionFont).horizontalAdvance(colorBarCaption(c.range))
            : 0.0;
    const double room = ctx.size.height() - f.margin - f.legendHeight - top;
    l.bar = QRectF(l.colLeft.back() + l.panelW + ctx.pt(kBarGapPt), top, ctx.pt(kBarWidthPt),
                   std::max({ctx.pt(kMinBarHeightPt), bottom - top, std::min(caption, room)}));
    return l;
}

// The largest token labels that fit the cells; thinned or dropped when even the smallest
// legible size does not fit.
Layout layoutFigure(const Context& ctx, const FigureContent& c, const Fixed& f) {
    if (c.tokenLabels.size() != c.forward->nTokens ||
        columnLabels(c).size() != c.forward->keyCount()) {
        return solve(ctx, c, f, nullptr);
    }
    const QFont largest = ctx.font(kMaxLabelPt);
    const Layout first = solve(ctx, c, f, &largest);
    const int minPx = std::max(1, static_cast<int>(std::lround(ctx.pt(kMinLabelPt))));
    for (int px = largest.pixelSize(); px >= minPx; --px) {
        QFont font = largest;
        font.setPixelSize(px);
        // Line height includes the leading; labels a little taller than a cell still read.
        if (ctx.metrics(font).height() <= first.cell * 1.1) {
            // Smaller labels leave more room, so the cells only grow and the labels still fit.
            return px == largest.pixelSize() ? first : solve(ctx, c, f, &font);
        }
    }
    if (!c.thinLabels) {
        return solve(ctx, c, f, nullptr);
    }
    QFont smallest = largest;
    smallest.setPixelSize(minPx);
    Layout thinned = solve(ctx, c, f, &smallest);
    thinned.labelStep =
        std::max(1, static_cast<int>(std::ceil(ctx.metrics(smallest).height() / thinned.cell)));
    return thinned;
}

void paintTitle(QPainter& p, const Context& ctx, const FigureContent& c, const Fixed& f,
                const Layout& l) {
    double y = l.titleTop;
    const double width = titleWidth(ctx, f);
    for (const TitleLine& line : titleLines(c, f)) {
        const double height = titleLineHeight(ctx, f, line);
        p.setFont(line.font);
        p.setPen(line.color);
        const QRectF box(f.margin, y, width, height);
        if (line.wrap) {
            p.drawText(box, Qt::AlignHCenter | Qt::TextWordWrap | Qt::TextDontClip, line.text);
        } else {
            p.drawText(box, Qt::AlignHCenter | Qt::TextDontClip,
                       ctx.metrics(line.font).elidedText(line.text, Qt::ElideRight, width));
        }
        y += height + ctx.pt(1.5);
    }
    p.setPen(Qt::black);
}

void paintHeaders(QPainter& p, const FigureContent& c, const Fixed& f, const Layout& l) {
    p.setFont(f.header);
    for (int row = 0; row < std::min<int>(c.rows, c.rowHeaders.size()); ++row) {
        p.drawText(QRectF(l.blockLeft, l.rowTop[row], f.headerWidth, l.panelH),
                   Qt::AlignRight | Qt::AlignVCenter | Qt::TextDontClip, c.rowHeaders[row]);
    }
    for (int col = 0; col < std::min<int>(c.cols, c.colHeaders.size()); ++col) {
        p.drawText(QRectF(l.colLeft[col], l.blockTop, l.panelW, f.headerHeight),
                   Qt::AlignHCenter | Qt::AlignBottom | Qt::TextDontClip, c.colHeaders[col]);
    }
}

void paintTokenLabels(QPainter& p, const FigureContent& c, const Fixed& f, const Layout& l,
                      const FigurePanel& panel, const QRectF& rect) {
    const QFontMetricsF fm(l.labelFont, p.device());
    p.setFont(l.labelFont);
    const QStringList& keys = columnLabels(c);
    const bool rows = labelsOn(c, l, panel.col);
    const bool cols = labelsOn(c, l, panel.row);
    // Row i and column i in turn, as a square map always drew them.
    for (int i = 0; i < std::max(c.tokenLabels.size(), keys.size()); i += l.labelStep) {
        if (rows && i < c.tokenLabels.size()) {
            const QString text = fm.elidedText(c.tokenLabels[i], Qt::ElideRight, l.rowLabelExtent);
            const double cy = rect.top() + (i + 0.5) * l.cell;
            p.drawText(QRectF(rect.left() - f.labelGap - l.rowLabelExtent, cy - fm.height() / 2,
                              l.rowLabelExtent, fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter | Qt::TextDontClip, text);
        }
        if (cols && i < keys.size()) {
            const QString text = fm.elidedText(keys[i], Qt::ElideRight, l.colLabelExtent);
            p.save();
            p.translate(rect.left() + (i + 0.5) * l.cell, rect.top() - f.labelGap);
            p.rotate(-90);  // reads bottom to top, like rotated x tick labels in matplotlib
            p.drawText(QRectF(0, -fm.height() / 2, l.colLabelExtent, fm.height()),
                       Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, text);
            p.restore();
        }
    }
}

// Caption and axis titles above and left of one map, outside its token labels.
void paintPanelTitles(QPainter& p, const FigureContent& c, const Fixed& f, const Layout& l,
                      const FigurePanel& panel, const QRectF& rect) {
    const double labelsAbove = labelsOn(c, l, panel.row) ? l.colLabelExtent + f.labelGap : 0.0;
    const double labelsLeft = labelsOn(c, l, panel.col) ? l.rowLabelExtent + f.labelGap : 0.0;
    p.setFont(f.header);
    double top = rect.top() - labelsAbove - f.labelGap;
    if (c.axisTitles) {
        top -= f.axisHeight;
        p.drawText(QRectF(rect.left(), top, rect.width(), f.axisHeight),
                   Qt::AlignCenter | Qt::TextDontClip, c.colAxisTitle);
        p.save();
        p.translate(rect.left() - labelsLeft - f.labelGap - f.axisHeight, rect.center().y());
        p.rotate(-90);
        p.drawText(QRectF(-rect.height() / 2, 0, rect.height(), f.axisHeight),
                   Qt::AlignCenter | Qt::TextDontClip, c.rowAxisTitle);
        p.restore();
        top -= f.labelGap;
    }
    if (!panel.caption.isEmpty()) {
        const QFontMetricsF fm(f.header, p.device());
        const double width = rect.width() + labelsLeft;
        p.drawText(
            QRectF(rect.center().x() - width / 2, top - f.headerHeight, width, f.headerHeight),
            Qt::AlignHCenter | Qt::AlignBottom | Qt::TextDontClip,
            fm.elidedText(panel.caption, Qt::ElideRight, width));
    }
}

HatchStyle hatchStyle(const Context& ctx) {
    return {QColor(0x55, 0x55, 0x55), ctx.pt(kHatchSpacingPt), ctx.pt(0.5)};
}

void paintPanel(QPainter& p, const Context& ctx, const FigureContent& c, const Fixed& f,
                const Layout& l, const FigurePanel& panel, CellDrawing drawing) {
    const QRectF rect(l.colLeft[panel.col], l.rowTop[panel.row], l.panelW, l.panelH);
    const QImage cells = HeadColorRule(*c.forward, c.style).image(panel.head, c.range);
    paintHeatCells(p, rect, cells, drawing);
    const BoolMatrix* mask = figureMask(*c.forward, panel.head.layer);
    if (mask != nullptr && l.cell >= ctx.pt(kMinHatchCellPt)) {
        paintMaskHatch(p, rect, *mask, hatchStyle(ctx));
    }
    p.setPen(QPen(QColor(0x40, 0x40, 0x40), ctx.pt(0.5)));
    p.setBrush(Qt::NoBrush);
    p.drawRect(rect);
    p.setPen(Qt::black);
    if (l.labels) {
        paintTokenLabels(p, c, f, l, panel, rect);
    }
    paintPanelTitles(p, c, f, l, panel, rect);
}

void paintLegend(QPainter& p, const Context& ctx, const Fixed& f, const Layout& l) {
    if (!f.masked) {
        return;
    }
    const double side = ctx.metrics(f.bar.tickFont).height();
    const QRectF swatch(l.bar.left(), l.bar.bottom() + ctx.pt(6), side, side);
    paintMaskSwatch(p, swatch, hatchStyle(ctx));
    p.setFont(f.bar.tickFont);
    p.drawText(QRectF(swatch.right() + f.bar.gap, swatch.top(), ctx.pt(60), side),
               Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, QStringLiteral("masked"));
}

CellDrawing drawingFor(const QPainter& p, const FigureContent& c) {
    const QPaintEngine* engine = p.paintEngine();
    const bool vectorDevice = engine != nullptr && (engine->type() == QPaintEngine::SVG ||
                                                    engine->type() == QPaintEngine::Pdf ||
                                                    engine->type() == QPaintEngine::Picture);
    const long long n = c.forward->nTokens;
    const long long k = c.forward->keyCount();
    const auto cells = n * k * static_cast<long long>(c.panels.size());
    return vectorDevice && std::max(n, k) <= kMaxVectorTokens && cells <= kMaxVectorCells
               ? CellDrawing::Rectangles
               : CellDrawing::Image;
}

}  // namespace

const BoolMatrix* figureMask(const forward::ForwardResult& result, int layer) {
    const BoolMatrix& a = result.allowedFor(layer);
    const bool sized = a.rows() == result.nTokens && a.cols() == result.keyCount();
    return sized && a.size() > 0 && a.minCoeff() == 0 ? &a : nullptr;
}

void paintFigure(QPainter& painter, QSizeF size, double dpi, const FigureContent& content) {
    const auto inGrid = [&](const FigurePanel& p) {
        return p.row >= 0 && p.row < content.rows && p.col >= 0 && p.col < content.cols;
    };
    if (content.forward == nullptr || content.forward->nTokens == 0 ||
        content.forward->keyCount() == 0 || content.panels.empty() ||
        !std::all_of(content.panels.begin(), content.panels.end(), inGrid)) {
        return;  // nothing sensible to draw; figure.cpp never builds such content
    }
    const Context ctx{painter.device(), size, dpi};
    const Fixed fixed = fixedParts(ctx, content);
    const Layout layout = layoutFigure(ctx, content, fixed);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    painter.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    painter.setPen(Qt::black);
    paintTitle(painter, ctx, content, fixed, layout);
    paintHeaders(painter, content, fixed, layout);
    const CellDrawing drawing = drawingFor(painter, content);
    for (const FigurePanel& panel : content.panels) {
        paintPanel(painter, ctx, content, fixed, layout, panel, drawing);
    }
    painter.setPen(Qt::black);
    ColorBarStyle barStyle = fixed.bar;
    barStyle.maxCaptionLength = layout.bar.bottom() - fixed.margin;
    paintColorBar(painter, layout.bar, content.range, barStyle);
    paintLegend(painter, ctx, fixed, layout);
    painter.restore();
}

}  // namespace attnscope::render
