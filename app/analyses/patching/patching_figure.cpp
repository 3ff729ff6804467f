#include "analyses/patching/patching_figure.h"

#include <algorithm>
#include <cmath>

#include <QObject>

#include "analyses/corpus/accuracy_range.h"

namespace attnscope::app {

namespace {

using analysis::PatchSweep;

QString piece(const std::string& p, bool rich) {
    const QString text = QString::fromStdString(analysis::tokenLabel(p));
    return rich ? QStringLiteral("<b>“%1”</b>").arg(text.toHtmlEscaped())
                : QStringLiteral("“%1”").arg(text);
}

}  // namespace

bool sweepsHeads(PatchSweep sweep) {
    return sweep == PatchSweep::Head || sweep == PatchSweep::HeadPosition;
}

QString sweepTitle(PatchSweep sweep) {
    switch (sweep) {
        case PatchSweep::Head:
            return QObject::tr("Each head's output (every position)");
        case PatchSweep::HeadPosition:
            return QObject::tr("Each head's output at one position");
        case PatchSweep::Residual:
            return QObject::tr("Residual stream (entering each layer)");
        case PatchSweep::AttnOut:
            return QObject::tr("Attention output");
        case PatchSweep::MlpOut:
            return QObject::tr("MLP output");
    }
    return {};
}

Matrix patchingMatrix(const analysis::PatchingGrid& grid, int position) {
    Matrix values(grid.nLayers, grid.nUnits);
    const int at = std::clamp(position, 0, std::max(grid.nPositions - 1, 0));
    for (int layer = 0; layer < grid.nLayers; ++layer) {
        for (int unit = 0; unit < grid.nUnits; ++unit) {
            values(layer, unit) = static_cast<float>(grid.metric[grid.index(layer, unit, at)]);
        }
    }
    return values;
}

render::ColorRange patchingRange(const Matrix& values) {
    double most = 1.0;
    for (Eigen::Index i = 0; i < values.size(); ++i) {
        const double v = values.data()[i];
        if (std::isfinite(v)) {
            most = std::max(most, std::abs(v));
        }
    }
    return {-most, most, render::Scaling::Linear, render::Colormap::Diverging,
            QObject::tr("normalised metric (1: the clean run's)")};
}

QString positionLabel(const PatchingDocument::Endpoints& e, int position) {
    const auto p = static_cast<std::size_t>(position);
    const QString token =
        p < e.cleanLabels.size() ? QString::fromStdString(e.cleanLabels[p]) : QString();
    return QStringLiteral("%1 %2").arg(position).arg(token);
}

QStringList patchingColumnLabels(const PatchingDocument::Sweep& sweep) {
    if (sweepsHeads(sweep.grid.sweep)) {
        return headLabels(sweep.grid.nUnits);
    }
    QStringList labels;
    for (int p = 0; p < sweep.grid.nUnits; ++p) {
        labels << positionLabel(*sweep.endpoints, p);
    }
    return labels;
}

QString patchingHeadline(const PatchingDocument::Endpoints& e, bool rich) {
    const analysis::PatchingBase& b = *e.base;
    const QString target =
        piece(e.targetPiece, rich) + (e.askedTarget ? QString() : QObject::tr(" (clean top)"));
    const QString distractor = piece(e.distractorPiece, rich) +
                               (e.askedDistractor ? QString() : QObject::tr(" (default)"));
    const auto at = static_cast<std::size_t>(b.setup.position);
    const QString token =
        piece(at < e.cleanLabels.size() ? e.cleanLabels[at] : std::string(), rich);
    QString text = QObject::tr(
                       "Metric: logit %1 − logit %2 at position %3 (%4): clean %5, "
                       "corrupted %6")
                       .arg(target, distractor, QString::number(b.setup.position), token)
                       .arg(b.ldClean, 0, 'f', 4)
                       .arg(b.ldCorrupted, 0, 'f', 4);
    if (b.ldClean == b.ldCorrupted) {
        text += QObject::tr(" — equal, so the normalised metric is undefined");
    }
    return text;
}

HeatGridFigure patchingFigure(const PatchingDocument::Sweep& sweep, int position) {
    const analysis::PatchingGrid& g = sweep.grid;
    Matrix values = patchingMatrix(g, position);
    const QString direction = QString::fromStdString(analysis::directionName(g.direction));
    const QString title = g.sweep == PatchSweep::HeadPosition
                              ? QObject::tr("Patching heads at %1, %2")
                                    .arg(positionLabel(*sweep.endpoints, position), direction)
                              : QObject::tr("Patching: %1, %2").arg(sweepTitle(g.sweep), direction);
    HeatGridFigure figure =
        heatGridFigure(values, title,
                       patchingHeadline(*sweep.endpoints, false) +
                           QObject::tr(" · layers, heads and positions 0-based"),
                       sweepsHeads(g.sweep) ? QObject::tr("head") : QObject::tr("position"));
    figure.style.colormap = render::Colormap::Diverging;
    figure.range = patchingRange(values);
    figure.range.caption = QObject::tr("normalised metric");  // along a bar a few cells high
    const auto most =
        static_cast<double>(std::max<Eigen::Index>({values.rows(), values.cols(), 1}));
    // A model of two layers still gets a colour bar tall enough for its caption.
    const double tallest =
        std::max(48.0, 240.0 / static_cast<double>(std::max<Eigen::Index>(values.rows(), 1)));
    figure.cell = std::clamp(1200.0 / most, 24.0, tallest);
    figure.titleHeight = 96;
    figure.subtitleHeight = 52;
    figure.barLabelWidth = 130;
    figure.outlineColor = Qt::black;
    return figure;
}

}  // namespace attnscope::app
