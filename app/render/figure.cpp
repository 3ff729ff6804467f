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
    if (f.nTokens <= 0 ||
        f.probs.size() != static_cast<std::size_t>(f.nLayers) * f.nHeads * f.nTokens * f.nTokens) {
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

QStringList tokenLabels(const analysis::SentenceAnalysis& a) {
    QStringList labels;
    const bool fromTokens = a.tokens.size() == static_cast<std::size_t>(a.forward.nTokens);
    for (int i = 0; i < a.forward.nTokens; ++i) {
        labels << (fromTokens
                       ? QString::fromStdString(a.label(i))
                       : QString::number(a.forward.tokenIds.at(static_cast<std::size_t>(i))));
    }
    return labels;
}

QString sentenceLine(const analysis::SentenceAnalysis& a) {
    if (!a.text.empty()) {
        QString text = QString::fromStdString(a.text).simplified();  // one line
        return QStringLiteral("“%1”").arg(text);
    }
    QStringList ids;
    for (const std::int32_t id : a.forward.tokenIds) {
        ids << QString::number(id);
    }
    return QStringLiteral("token ids: ") + ids.join(QLatin1Char(' '));
}

QString basicNote(const analysis::SentenceAnalysis& a) {
    const QString mask = QString::fromStdString(a.forward.maskKind);
    return QStringLiteral("%1 tokens · mask: %2")
        .arg(a.forward.nTokens)
        .arg(mask.isEmpty() ? QStringLiteral("none") : mask);
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
    c.tokenLabels = tokenLabels(a);
    c.subtitle = sentenceLine(a);
    c.style = o.style;
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
    c.note = basicNote(a) + QStringLiteral(
                                " · L = layer, H = head (0-based) · in each map, rows "
                                "are queries and columns keys");
    c.range = sharedRange(a, heads, o.style);
    return c;
}

// The number of columns that gives `count` square maps the most room on the page.
int columnsFor(int count, QSize page) {
    int best = 1;
    double bestSide = 0;
    for (int cols = 1; cols <= count; ++cols) {
        const int rows = (count + cols - 1) / cols;
        // About a fifth of the width goes to the colour bar and labels, a tenth of the height
        // to the title.
        const double side = std::min(0.8 * page.width() / cols, 0.9 * page.height() / rows);
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
    c.cols = columnsFor(count, o.pixelSize);
    c.rows = (count + c.cols - 1) / c.cols;
    for (int i = 0; i < count; ++i) {
        c.panels.push_back({heads[static_cast<std::size_t>(i)], i / c.cols, i % c.cols,
                            headText(heads[static_cast<std::size_t>(i)])});
    }
    c.title = titleStart(o) + (count == 1 ? headText(heads.front())
                                          : QStringLiteral("%1 attention heads").arg(count));
    c.note = basicNote(a) +
             QStringLiteral(" · layers and heads 0-based · rows are queries, columns keys");
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
