#include "analyses/lens/lens_figure.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QPainter>

#include "analyses/lens/lens_colors.h"
#include "analyses/lens/lens_table.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/prediction.h"
#include "render/figure_file.h"
#include "render/text_extent.h"

namespace attnscope::app {

namespace {

constexpr double kMargin = 40;
constexpr double kTitleHeight = 96;  // title, and a subtitle that may wrap to two lines
constexpr double kCellHeight = 32;
constexpr double kLegendGap = 24;
constexpr double kLegendHeight = 28;
constexpr double kMaxWidth = 16000;  // under render::kMaxFigurePixels, whatever the sentence

QFont pixelFont(const QFont& base, int pixels, bool bold = false) {
    QFont f = base;
    f.setPixelSize(pixels);
    f.setBold(bold);
    return f;
}

QStringList columnLabels(const LensDocument::Run& run) {
    QStringList labels;
    for (std::size_t p = 0; p < run.tokenLabels.size(); ++p) {
        labels << QStringLiteral("%1 · %2").arg(p).arg(QString::fromStdString(run.tokenLabels[p]));
    }
    return labels;
}

QString topText(const LensDocument::Run& run, int stage, int position) {
    const analysis::LensCell& c = run.lens.at(stage, position);
    return c.top.empty() ? QString()
                         : QString::fromStdString(analysis::tokenLabel(
                               forward::tokenPiece(*run.model, c.top.front().id)));
}

// Where everything goes, from the fonts' widths.
struct Layout {
    double rowLabels = 0;
    double columnLabels = 0;
    double cell = 0;
    QRectF grid;
};

Layout layoutOf(const LensFigure& figure, const QFont& base) {
    const LensDocument::Run& run = *figure.run;
    const QFontMetricsF cellFm(pixelFont(base, 15));
    const QFontMetricsF labelFm(pixelFont(base, 16));
    QStringList tops;
    for (int s = 0; s < run.lens.nStages; ++s) {
        for (int p = 0; p < run.lens.nTokens; ++p) {
            tops << topText(run, s, p);
        }
    }
    QStringList stages;
    for (int s = 0; s < run.lens.nStages; ++s) {
        stages << QString::fromStdString(lensStageLabel(s, run.lens.nStages));
    }
    Layout l;
    l.rowLabels = render::widestAdvance(labelFm, stages) + 16;
    l.columnLabels = std::min(260.0, render::widestAdvance(labelFm, columnLabels(run)) + 16);
    l.cell = std::clamp(render::widestAdvance(cellFm, tops) + 12, 56.0, 140.0);
    const int cols = std::max(1, run.lens.nTokens);
    l.cell = std::min(l.cell, (kMaxWidth - 2 * kMargin - l.rowLabels) / cols);
    l.grid = QRectF(kMargin + l.rowLabels, kMargin + kTitleHeight + l.columnLabels,
                    l.cell * run.lens.nTokens, kCellHeight * run.lens.nStages);
    return l;
}

void paintCells(QPainter& p, const LensFigure& figure, const Layout& l) {
    const LensDocument::Run& run = *figure.run;
    p.setFont(pixelFont(p.font(), 15));
    const QFontMetricsF fm(p.font());
    for (int s = 0; s < run.lens.nStages; ++s) {
        for (int c = 0; c < run.lens.nTokens; ++c) {
            const QRectF cell(l.grid.left() + l.cell * c, l.grid.top() + kCellHeight * s, l.cell,
                              kCellHeight);
            const int rank = run.lens.at(s, c).targetRank;
            p.fillRect(cell, rankBackground(rank).value_or(Qt::white));
            p.setPen(QColor(210, 210, 210));
            p.drawRect(cell);
            p.setPen(rankText(rank).value_or(Qt::black));
            p.drawText(cell, Qt::AlignCenter,
                       fm.elidedText(topText(run, s, c), Qt::ElideRight, l.cell - 6));
        }
    }
}

void paintLabels(QPainter& p, const LensFigure& figure, const Layout& l) {
    const LensDocument::Run& run = *figure.run;
    p.setPen(Qt::black);
    p.setFont(pixelFont(p.font(), 16));
    for (int s = 0; s < run.lens.nStages; ++s) {
        p.drawText(QRectF(kMargin, l.grid.top() + kCellHeight * s, l.rowLabels - 10, kCellHeight),
                   Qt::AlignRight | Qt::AlignVCenter,
                   QString::fromStdString(lensStageLabel(s, run.lens.nStages)));
    }
    const QStringList labels = columnLabels(run);
    const QFontMetricsF fm(p.font());
    for (int c = 0; c < run.lens.nTokens; ++c) {
        p.save();
        p.translate(l.grid.left() + l.cell * (c + 0.5), l.grid.top() - 8);
        p.rotate(-90);
        p.setFont(pixelFont(p.font(), 16, c == figure.highlight));
        p.drawText(QRectF(0, -12, l.columnLabels - 8, 24), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(labels[c], Qt::ElideRight, l.columnLabels - 8));
        p.restore();
    }
    if (figure.highlight >= 0 && figure.highlight < run.lens.nTokens) {
        p.setPen(QPen(Qt::black, 3));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(l.grid.left() + l.cell * figure.highlight, l.grid.top(), l.cell,
                          l.grid.height()));
    }
}

}  // namespace

QSize lensFigureSize(const LensFigure& figure) {
    const Layout l = layoutOf(figure, QFont());
    const double w = std::max(l.grid.right() + kMargin, 900.0);
    const double h = l.grid.bottom() + kLegendGap + kLegendHeight + kMargin;
    return {static_cast<int>(std::ceil(std::min<double>(w, render::kMaxFigurePixels))),
            static_cast<int>(std::ceil(std::min<double>(h, render::kMaxFigurePixels)))};
}

void paintLensFigure(QPainter& p, const QSize& size, const LensFigure& figure) {
    const QFont base = p.font();
    p.fillRect(QRectF(QPointF(0, 0), QSizeF(size)), Qt::white);
    p.setPen(Qt::black);
    p.setFont(pixelFont(base, 26, true));
    p.drawText(QRectF(kMargin, kMargin, size.width() - 2 * kMargin, 36), Qt::AlignLeft,
               figure.title);
    p.setFont(pixelFont(base, 17));
    p.drawText(QRectF(kMargin, kMargin + 40, size.width() - 2 * kMargin, kTitleHeight - 44),
               Qt::AlignLeft | Qt::TextWordWrap, figure.subtitle);
    const Layout l = layoutOf(figure, base);
    paintCells(p, figure, l);
    paintLabels(p, figure, l);
    p.setFont(pixelFont(base, 16));
    paintRankLegend(p, {l.grid.left(), l.grid.bottom() + kLegendGap}, kLegendHeight, Qt::black);
}

}  // namespace attnscope::app
