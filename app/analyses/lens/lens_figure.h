// The logit lens as a figure for export (PNG, SVG, PDF): a title and subtitle, then the table
// the tab shows — a row per stage, a column per token (labels turned upright), each cell the
// stage's top token on the colour of the target's rank — with the prediction position's column
// framed and the rank legend underneath. QtGui only; pure painting.
#pragma once

#include <memory>

#include <QSize>
#include <QString>

#include "analyses/lens/lens_document.h"

class QPainter;

namespace attnscope::app {

struct LensFigure {
    std::shared_ptr<const LensDocument::Run> run;  // not null
    QString title;
    QString subtitle;
    int highlight = -1;  // the column framed; -1 for none
};

// The page the figure needs (within the figure files' limits).
QSize lensFigureSize(const LensFigure& figure);

void paintLensFigure(QPainter& p, const QSize& size, const LensFigure& figure);

}  // namespace attnscope::app
