#include "analyses/generation/generation_figure.h"

#include <algorithm>
#include <cmath>

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>

#include "attnscope/analysis/sentence_analysis.h"

namespace attnscope::app {

namespace {

constexpr double kAxisWidth = 40;     // the weight ticks left of the bars
constexpr double kMaxLabelRun = 110;  // a turned label's longest run, in pixels

QString label(const GenerationRun& run, int token) {
    return QString::fromStdString(run.labels[static_cast<std::size_t>(token)]);
}

QString quoted(const QString& text, bool rich) {
    return rich ? QStringLiteral("<b>“%1”</b>").arg(text.toHtmlEscaped())
                : QStringLiteral("“%1”").arg(text);
}

// The height the token labels need under bars `keyWidth` wide; `turned` says how they go.
double labelHeight(const QFontMetricsF& fm, const GenerationRun& run, int keys, double keyWidth,
                   bool* turned) {
    double widest = 0;
    for (int k = 0; k < keys; ++k) {
        widest = std::max(widest, fm.horizontalAdvance(label(run, k)));
    }
    *turned = widest + 4 > keyWidth;
    return *turned ? std::min(widest, kMaxLabelRun) + 8 : fm.height() + 6;
}

void paintLabels(QPainter& p, const QRectF& bars, double top, const GenerationRun& run, int keys,
                 bool turned, const RowStripStyle& style) {
    const QFontMetricsF fm(p.font());
    const double keyWidth = bars.width() / keys;
    p.setPen(style.text);
    for (int k = 0; k < keys; ++k) {
        const double x = bars.left() + k * keyWidth;
        if (!turned) {
            p.drawText(QRectF(x, top + 3, keyWidth, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                       label(run, k));
            continue;
        }
        const QString text = fm.elidedText(label(run, k), Qt::ElideRight, kMaxLabelRun);
        p.save();
        p.translate(x + keyWidth / 2 + fm.ascent() / 2 - fm.descent(), top + 4);
        p.rotate(90);
        p.drawText(QPointF(0, 0), text);
        p.restore();
    }
}

}  // namespace

const float* stepRow(const GenerationRun& run, int step, HeadId head) {
    const forward::GenerationStep& s = run.generation.steps[static_cast<std::size_t>(step)];
    const auto index = static_cast<std::size_t>(head.layer * run.generation.nHeads + head.head);
    return s.rows.data() + index * static_cast<std::size_t>(s.keys);
}

int argmaxKey(const GenerationRun& run, int step, HeadId head) {
    const float* row = stepRow(run, step, head);
    const int keys = run.generation.steps[static_cast<std::size_t>(step)].keys;
    return static_cast<int>(std::max_element(row, row + keys) - row);
}

Matrix keyWeights(const GenerationRun& run, int step, int key) {
    const forward::Generation& g = run.generation;
    Matrix weights(g.nLayers, g.nHeads);
    for (int layer = 0; layer < g.nLayers; ++layer) {
        for (int head = 0; head < g.nHeads; ++head) {
            weights(layer, head) = stepRow(run, step, {layer, head})[key];
        }
    }
    return weights;
}

render::ColorRange weightRange() {
    return {0.0, 1.0, render::Scaling::Linear, render::Colormap::Viridis,
            QObject::tr("attention weight")};
}

QString stepHeadline(const GenerationRun& run, int step, bool rich) {
    const forward::GenerationStep& s = run.generation.steps[static_cast<std::size_t>(step)];
    const int query = s.keys - 1;  // the row is the last token's
    return QObject::tr("Step %1 of %2: after %3 the model chose %4 (p = %5)")
        .arg(step + 1)
        .arg(run.steps())
        .arg(quoted(label(run, query), rich))
        .arg(quoted(label(run, s.keys), rich))
        .arg(static_cast<double>(s.probability), 0, 'f', 3);
}

QRectF rowStripBars(const QRectF& area, const GenerationRun&, int) {
    return {area.left() + kAxisWidth, area.top(), std::max(1.0, area.width() - kAxisWidth - 4),
            area.height()};
}

double paintRowStrip(QPainter& p, const QRectF& area, const GenerationRun& run, int step,
                     HeadId head, int focusKey, const RowStripStyle& style) {
    const int keys = run.generation.steps[static_cast<std::size_t>(step)].keys;
    const float* row = stepRow(run, step, head);
    const QFontMetricsF fm(p.font());
    QRectF bars = rowStripBars(area, run, step);
    const double keyWidth = bars.width() / keys;
    bool turned = false;
    const double labels = labelHeight(fm, run, keys, keyWidth, &turned);
    bars.setTop(area.top() + fm.height() + 2);  // room for the weights written on top
    bars.setBottom(std::max(bars.top() + 10, area.bottom() - labels));
    const int top = argmaxKey(run, step, head);
    const double most = std::max(1e-6, static_cast<double>(row[top]));
    p.setPen(style.grid);
    p.drawLine(QPointF(bars.left(), bars.top()), QPointF(bars.right(), bars.top()));
    p.drawLine(QPointF(bars.left(), bars.bottom()), QPointF(bars.right(), bars.bottom()));
    p.setPen(style.text);
    const QRectF ticks(area.left(), bars.top() - fm.height() / 2, kAxisWidth - 6, fm.height());
    p.drawText(ticks, Qt::AlignRight | Qt::AlignVCenter, QString::number(most, 'f', 2));
    p.drawText(ticks.translated(0, bars.height()), Qt::AlignRight | Qt::AlignVCenter,
               QStringLiteral("0"));
    const double gap = std::min(2.0, keyWidth * 0.15);
    for (int k = 0; k < keys; ++k) {
        const double h = bars.height() * static_cast<double>(row[k]) / most;
        const QRectF bar(bars.left() + k * keyWidth + gap, bars.bottom() - h, keyWidth - 2 * gap,
                         h);
        p.fillRect(bar, k < run.promptLength() ? style.prompt : style.generated);
        if (k == focusKey) {
            p.setPen(QPen(style.focus, 2));
            p.drawRect(QRectF(bar.left(), bars.top(), bar.width(), bars.height()));
        }
        if (k == top || k == focusKey) {
            p.setPen(style.text);
            p.drawText(QRectF(bar.center().x() - 30, bar.top() - fm.height() - 1, 60, fm.height()),
                       Qt::AlignHCenter | Qt::AlignBottom,
                       QString::number(static_cast<double>(row[k]), 'f', 2));
        }
    }
    paintLabels(p, bars, bars.bottom(), run, keys, turned, style);
    return keyWidth;
}

QSize generationFigureSize(const GenerationRun& run, int step) {
    const int keys = run.generation.steps[static_cast<std::size_t>(step)].keys;
    const QSizeF grid = heatGridFigureExtent(heatGridFigure(keyWeights(run, step, 0), {}, {}, {}));
    return {std::max({900, 80 + keys * 24, static_cast<int>(grid.width())}),
            150 + 320 + static_cast<int>(grid.height())};
}

void paintGenerationFigure(QPainter& p, const QSize& size, const GenerationRun& run, int step,
                           HeadId head, int focusKey) {
    p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    QFont font = p.font();
    font.setPixelSize(22);
    font.setBold(true);
    p.setFont(font);
    p.setPen(Qt::black);
    p.drawText(
        QRectF(30, 16, size.width() - 60, 34), Qt::AlignLeft | Qt::AlignVCenter,
        QObject::tr("Attention while generating: head %1-%2's row").arg(head.layer).arg(head.head));
    font.setBold(false);
    font.setPixelSize(15);
    p.setFont(font);
    p.drawText(
        QRectF(30, 54, size.width() - 60, 60), Qt::AlignLeft | Qt::TextWordWrap,
        stepHeadline(run, step, false) + QObject::tr(" · %1 · blue: the prompt, orange: generated")
                                             .arg(QString::fromStdString(run.samplerText())));
    font.setPixelSize(13);
    p.setFont(font);
    paintRowStrip(p, QRectF(20, 120, size.width() - 50, 330), run, step, head, focusKey, {});
    HeatGridFigure grid = heatGridFigure(
        keyWeights(run, step, focusKey),
        QObject::tr("Every head's weight on %1 (key %2) at this step")
            .arg(quoted(label(run, focusKey), false))
            .arg(focusKey),
        QObject::tr("layers and heads 0-based; head %1-%2 outlined").arg(head.layer).arg(head.head),
        QObject::tr("head"));
    grid.range = weightRange();
    grid.outlined = head;
    p.save();
    p.translate(0, 470);
    paintHeatGridFigure(p, QSize(size.width(), size.height() - 470), grid);
    p.restore();
}

}  // namespace attnscope::app
