#include "analyses/dla/dla_figure.h"

#include <algorithm>
#include <cmath>

#include <QObject>

#include "attnscope/analysis/sentence_analysis.h"

namespace attnscope::app {

namespace {

QString piece(const std::string& p, bool rich) {
    const QString text = QString::fromStdString(analysis::tokenLabel(p));
    return rich ? QStringLiteral("<b>“%1”</b>").arg(text.toHtmlEscaped())
                : QStringLiteral("“%1”").arg(text);
}

}  // namespace

Matrix dlaHeadMatrix(const DlaDocument::Run& run) {
    const std::vector<double> map = run.attribution.headMap(run.nLayers, run.nHeads);
    Matrix heads(run.nLayers, run.nHeads);
    for (int layer = 0; layer < run.nLayers; ++layer) {
        for (int head = 0; head < run.nHeads; ++head) {
            heads(layer, head) =
                static_cast<float>(map[static_cast<std::size_t>(layer * run.nHeads + head)]);
        }
    }
    return heads;
}

render::ColorRange dlaRange(const Matrix& heads) {
    double most = 0;
    for (Eigen::Index i = 0; i < heads.size(); ++i) {
        const double v = heads.data()[i];
        if (std::isfinite(v)) {
            most = std::max(most, std::abs(v));
        }
    }
    most = std::max(most, 1e-6);  // every head writes nothing: still a valid range
    return {-most, most, render::Scaling::Linear, render::Colormap::Diverging,
            QObject::tr("direct contribution to the logit")};
}

QString dlaHeadline(const DlaDocument::Run& run, bool rich) {
    const analysis::LogitAttribution& a = run.attribution;
    QString text = QObject::tr("Next token after %1 (position %2): logit of %3")
                       .arg(piece(run.positionPiece, rich))
                       .arg(a.position)
                       .arg(piece(run.targetPiece, rich));
    if (!run.picked.target) {
        text += QObject::tr(" (top prediction)");
    }
    if (a.distractor) {
        text += QObject::tr(" minus %1").arg(piece(run.distractorPiece, rich));
    }
    return text + QObject::tr(" = %1").arg(a.logit, 0, 'f', 4);
}

QString dlaSumLine(const DlaDocument::Run& run) {
    const analysis::LogitAttribution& a = run.attribution;
    return QObject::tr(
               "%1 terms add up to %2; the logit is %3 (the final norm linearised at this "
               "position)")
        .arg(a.terms.size())
        .arg(a.logit - a.residual, 0, 'g', 6)
        .arg(a.logit, 0, 'g', 6);
}

HeatGridFigure dlaFigure(const DlaDocument::Run& run) {
    Matrix heads = dlaHeadMatrix(run);
    HeatGridFigure figure = heatGridFigure(
        heads, QObject::tr("Direct logit attribution of every head"),
        dlaHeadline(run, false) + QObject::tr(" · layers and heads 0-based"), QObject::tr("head"));
    figure.style.colormap = render::Colormap::Diverging;
    figure.range = dlaRange(heads);
    const auto most = static_cast<double>(std::max<Eigen::Index>({heads.rows(), heads.cols(), 1}));
    figure.cell = std::clamp(1200.0 / most, 24.0, 48.0);
    figure.titleHeight = 96;  // the subtitle names the position and tokens: it may wrap
    figure.subtitleHeight = 52;
    figure.barLabelWidth = 130;  // signed tick labels
    Eigen::Index row = 0;
    Eigen::Index col = 0;
    if (heads.size() > 0) {
        heads.cwiseAbs().maxCoeff(&row, &col);
        figure.outlined = HeadId{static_cast<int>(row), static_cast<int>(col)};
    }
    figure.outlineColor = Qt::black;  // white would vanish in the diverging map's pale middle
    return figure;
}

}  // namespace attnscope::app
