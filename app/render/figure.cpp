#include "render/figure.h"

#include <algorithm>
#include <cmath>

#include <QPainter>

#include "attnscope/base/error.h"
#include "render/figure_file.h"
#include "render/figure_painter.h"
#include "render/head_colors.h"
#include "render/heat_cells.h"

namespace attnscope::render {

namespace {

QString headText(HeadId h) {
    return QStringLiteral("layer %1, head %2").arg(h.layer).arg(h.head);
}

// Throws InvalidArgument, prefixed by `where` (the file) when given.
void checkHeads(const analysis::SentenceAnalysis& a, const std::vector<HeadId>& heads,
                const QString& where) {
    const QString prefix = where.isEmpty() ? QString() : where + QStringLiteral(": ");
    const forward::ForwardResult& f = a.forward;
    if (f.nTokens > 0 && !f.mapsRecorded) {
        throw InvalidArgument((prefix + QStringLiteral("the attention maps of this sentence were "
                                                       "not kept (they exceed the memory budget); "
                                                       "raise the budget to export figures"))
                                  .toStdString());
    }
    if (f.nTokens <= 0 || f.keyCount() <= 0 ||
        f.probs.size() !=
            static_cast<std::size_t>(f.nLayers) * f.nHeads * f.nTokens * f.keyCount()) {
        throw InvalidArgument((prefix + QStringLiteral("no attention maps to draw")).toStdString());
    }
    for (const HeadId h : heads) {
        if (h.layer < 0 || h.layer >= f.nLayers || h.head < 0 || h.head >= f.nHeads) {
            throw InvalidArgument(
                (prefix + QStringLiteral("%1 does not exist: the model has %2 layers of %3 heads, "
                                         "numbered from 0")
                              .arg(headText(h))
                              .arg(f.nLayers)
                              .arg(f.nHeads))
                    .toStdString());
        }
    }
}

QStringList idLabels(const std::vector<std::int32_t>& ids) {
    QStringList labels;
    for (const std::int32_t id : ids) {
        labels << QString::number(id);
    }
    return labels;
}

QStringList rowLabels(const analysis::SentenceAnalysis& a, const FigureOptions& o) {
    const int n = a.forward.nTokens;
    if (o.rowLabels.size() == n) {
        return o.rowLabels;
    }
    if (a.tokens.size() != static_cast<std::size_t>(n)) {
        return idLabels(a.forward.tokenIds);
    }
    QStringList labels;
    for (int i = 0; i < n; ++i) {
        labels << QString::fromStdString(a.label(i));
    }
    return labels;
}

// Empty for self-attention: the columns are the rows' tokens (figure_painter.h).
QStringList columnLabels(const analysis::SentenceAnalysis& a) {
    const forward::ForwardResult& f = a.forward;
    if (!f.isCross()) {
        return {};
    }
    if (a.keyTokens.size() != static_cast<std::size_t>(f.nKeys)) {
        return idLabels(f.keyTokenIds);
    }
    QStringList labels;
    for (int j = 0; j < f.nKeys; ++j) {
        labels << QString::fromStdString(a.keyLabel(j));
    }
    return labels;
}

QString quotedLine(const std::string& text) {
    return QStringLiteral("“%1”").arg(QString::fromStdString(text).simplified());  // one line
}

// Cross-attention: “source” → “target”, each side's ids when it has no text.
QString crossLine(const analysis::SentenceAnalysis& a) {
    const QString source = a.keyText.empty()
                               ? QStringLiteral("source ids: ") +
                                     idLabels(a.forward.keyTokenIds).join(QLatin1Char(' '))
                               : quotedLine(a.keyText);
    const QString target = a.text.empty() ? QStringLiteral("decoder ids: ") +
                                                idLabels(a.forward.tokenIds).join(QLatin1Char(' '))
                                          : quotedLine(a.text);
    return source + QStringLiteral(" → ") + target;
}

QString sentenceLine(const analysis::SentenceAnalysis& a) {
    if (a.forward.isCross()) {
        return crossLine(a);
    }
    if (!a.text.empty()) {
        return quotedLine(a.text);
    }
    return QStringLiteral("token ids: ") + idLabels(a.forward.tokenIds).join(QLatin1Char(' '));
}

QString basicNote(const analysis::SentenceAnalysis& a) {
    const QString mask = QString::fromStdString(a.forward.maskKind);
    const QString maskText = mask.isEmpty() ? QStringLiteral("none") : mask;
    if (a.forward.isCross()) {
        return QStringLiteral("%1 target × %2 source tokens · mask: %3")
            .arg(a.forward.nTokens)
            .arg(a.forward.nKeys)
            .arg(maskText);
    }
    return QStringLiteral("%1 tokens · mask: %2").arg(a.forward.nTokens).arg(maskText);
}

// How to read a cross-attention map's axes, naming what the row labels are.
QString crossAxesNote(const analysis::SentenceAnalysis& a, const FigureOptions& o) {
    const bool produced = o.rowLabels.size() == a.forward.nTokens;
    // Short: on a small page the note wraps over the room the map needs.
    return produced ? QStringLiteral(
                          "rows: target tokens (decoder) → the token each produces; "
                          "columns: source tokens")
                    : QStringLiteral("rows: target tokens (decoder input); columns: source tokens");
}

QString titleStart(const FigureOptions& o) {
    return o.modelName.isEmpty() ? QString() : o.modelName + QStringLiteral(" — ");
}

// One colour range for every map, so the colour bar is true for each of them (the rule the
// model grid follows too, head_colors.h).
ColorRange sharedRange(const analysis::SentenceAnalysis& a, const std::vector<HeadId>& heads,
                       const HeatmapStyle& style) {
    return HeadColorRule(a.forward, style).rangeOf(heads);
}

FigureContent baseContent(const analysis::SentenceAnalysis& a, const FigureOptions& o) {
    FigureContent c;
    c.forward = &a.forward;
    c.tokenLabels = rowLabels(a, o);
    c.keyLabels = columnLabels(a);
    c.subtitle = sentenceLine(a);
    c.style = o.style;
    if (a.forward.isCross()) {
        c.rowAxisTitle = QStringLiteral("target");
        c.colAxisTitle = QStringLiteral("source");
    }
    return c;
}

FigureContent headContent(const analysis::SentenceAnalysis& a, HeadId head,
                          const FigureOptions& o) {
    FigureContent c = baseContent(a, o);
    c.panels = {{head, 0, 0, {}}};
    c.thinLabels = true;
    c.axisTitles = true;
    QString what = headText(head) + QStringLiteral(" (0-based)");
    if (o.modelName.isEmpty()) {
        what[0] = what[0].toUpper();
    }
    c.title = titleStart(o) + what;
    c.note = basicNote(a);
    if (a.forward.isCross()) {
        c.note += QStringLiteral(" · ") + crossAxesNote(a, o);
    }
    c.range = sharedRange(a, {head}, o.style);
    return c;
}

FigureContent gridContent(const analysis::SentenceAnalysis& a, const FigureOptions& o) {
    FigureContent c = baseContent(a, o);
    const forward::ForwardResult& f = a.forward;
    c.rows = f.nLayers;
    c.cols = f.nHeads;
    std::vector<HeadId> heads;
    for (int layer = 0; layer < f.nLayers; ++layer) {
        c.rowHeaders << QStringLiteral("L%1").arg(layer);
        for (int head = 0; head < f.nHeads; ++head) {
            c.panels.push_back({{layer, head}, layer, head, {}});
            heads.push_back({layer, head});
        }
    }
    for (int head = 0; head < f.nHeads; ++head) {
        c.colHeaders << QStringLiteral("H%1").arg(head);
    }
    c.labelPlacement = TokenLabelPlacement::OuterPanels;
    c.title = titleStart(o) + QStringLiteral("all %1 heads: %2 layers × %3 heads")
                                  .arg(f.nLayers * f.nHeads)
                                  .arg(f.nLayers)
                                  .arg(f.nHeads);
    c.note = basicNote(a) + QStringLiteral(" · L = layer, H = head (0-based) · in each map, ") +
             (a.forward.isCross() ? crossAxesNote(a, o)
                                  : QStringLiteral("rows are queries and columns keys"));
    c.range = sharedRange(a, heads, o.style);
    return c;
}

// The number of columns that gives `count` maps the most room on the page; `aspect` is a map's
// width over its height (1 for self-attention).
int columnsFor(int count, QSize page, double aspect) {
    int best = 1;
    double bestSide = 0;
    for (int cols = 1; cols <= count; ++cols) {
        const int rows = (count + cols - 1) / cols;
        // About a fifth of the width goes to the colour bar and labels, a tenth of the height
        // to the title.
        const double side =
            std::min(0.8 * page.width() / cols / aspect, 0.9 * page.height() / rows);
        if (side > bestSide * 1.001) {
            best = cols;
            bestSide = side;
        }
    }
    return best;
}

FigureContent setContent(const analysis::SentenceAnalysis& a, const std::vector<HeadId>& heads,
                         const FigureOptions& o) {
    FigureContent c = baseContent(a, o);
    const int count = static_cast<int>(heads.size());
    const forward::ForwardResult& f = a.forward;
    c.cols = columnsFor(count, o.pixelSize, static_cast<double>(f.keyCount()) / f.nTokens);
    c.rows = (count + c.cols - 1) / c.cols;
    for (int i = 0; i < count; ++i) {
        c.panels.push_back({heads[static_cast<std::size_t>(i)], i / c.cols, i % c.cols,
                            headText(heads[static_cast<std::size_t>(i)])});
    }
    c.title = titleStart(o) + (count == 1 ? headText(heads.front())
                                          : QStringLiteral("%1 attention heads").arg(count));
    c.note = basicNote(a) + QStringLiteral(" · layers and heads 0-based · ") +
             (a.forward.isCross() ? crossAxesNote(a, o)
                                  : QStringLiteral("rows are queries, columns keys"));
    c.range = sharedRange(a, heads, o.style);
    return c;
}

FigureContent headsContent(const analysis::SentenceAnalysis& a, const std::vector<HeadId>& heads,
                           const FigureOptions& o) {
    return heads.empty() ? gridContent(a, o) : setContent(a, heads, o);
}

void save(const QString& path, const FigureContent& content, const FigureOptions& o) {
    FigurePage page{o.pixelSize, o.dpi, content.title};
    writeFigureFile(path, page,
                    [&](QPainter& p) { paintFigure(p, QSizeF(o.pixelSize), o.dpi, content); });
}

}  // namespace

void paintHeadFigure(QPainter& painter, const analysis::SentenceAnalysis& analysis, HeadId head,
                     const FigureOptions& options) {
    checkHeads(analysis, {head}, {});
    paintFigure(painter, QSizeF(options.pixelSize), options.dpi,
                headContent(analysis, head, options));
}

void paintHeadsFigure(QPainter& painter, const analysis::SentenceAnalysis& analysis,
                      const std::vector<HeadId>& heads, const FigureOptions& options) {
    checkHeads(analysis, heads, {});
    paintFigure(painter, QSizeF(options.pixelSize), options.dpi,
                headsContent(analysis, heads, options));
}

void checkFigureHeads(const analysis::SentenceAnalysis& analysis,
                      const std::vector<HeadId>& heads) {
    checkHeads(analysis, heads, {});
}

void saveHeadFigure(const QString& path, const analysis::SentenceAnalysis& analysis, HeadId head,
                    const FigureOptions& options) {
    checkHeads(analysis, {head}, path);
    save(path, headContent(analysis, head, options), options);
}

void saveHeadsFigure(const QString& path, const analysis::SentenceAnalysis& analysis,
                     const std::vector<HeadId>& heads, const FigureOptions& options) {
    checkHeads(analysis, heads, path);
    save(path, headsContent(analysis, heads, options), options);
}

}  // namespace attnscope::render
