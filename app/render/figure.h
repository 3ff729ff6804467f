// Publication figures of attention heads: one head, a chosen set of heads, or the whole model
// as a layers x heads grid of small multiples, with token labels, a colour bar with numbers
// and caption, and a title naming the model, the head(s) (0-based, and saying so) and the
// sentence. Cross-attention maps (an encoder-decoder's decoder rows reading the source tokens)
// are drawn [target rows, source columns] with square cells, so their panels are rectangular.
// Saved as PNG, SVG or PDF by the file's extension (figure_file.h).
//
// The paint* functions draw into (0, 0)-(options.pixelSize) of the painter's coordinates, so
// the GUI can show a preview by scaling its painter. The save* functions write atomically and
// throw attnscope::Error "<file>: <reason>" (InvalidArgument for a head the model does not
// have, an unknown extension or an unusable size); on failure an existing file is unchanged.
// All need a QGuiApplication (fonts). The analysis is only read; any thread may call.
#pragma once

#include <vector>

#include <QSize>
#include <QString>
#include <QStringList>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/base/head_id.h"
#include "render/heatmap_image.h"

class QPainter;

namespace attnscope::render {

struct FigureOptions {
    QSize pixelSize{1600, 1400};  // PNG pixels; SVG and PDF get the same physical size
    int dpi = 200;                // physical size = pixelSize / dpi inches; type is in points
    HeatmapStyle style;
    QString modelName;  // starts the title; may be empty
    // Labels of the map rows, replacing the analysis's tokens when there is one per row. For
    // cross-attention the app and the CLI pass Seq2SeqAnalysis::targetLabel ("→ piece", the
    // token each decoder row produces), as the head view names its rows; the note says which.
    QStringList rowLabels;
};

void paintHeadFigure(QPainter& painter, const analysis::SentenceAnalysis& analysis, HeadId head,
                     const FigureOptions& options);

// `heads` empty: every head of the model as a layers x heads grid (token labels only where
// the cells are large enough). Otherwise those heads, in that order, as a grid of captioned
// maps. Either way every map shares one colour range and one colour bar.
void paintHeadsFigure(QPainter& painter, const analysis::SentenceAnalysis& analysis,
                      const std::vector<HeadId>& heads, const FigureOptions& options);

// Throws InvalidArgument unless every head exists in `analysis` and it has maps to draw; the
// save functions check this before they touch the file.
void checkFigureHeads(const analysis::SentenceAnalysis& analysis, const std::vector<HeadId>& heads);

void saveHeadFigure(const QString& path, const analysis::SentenceAnalysis& analysis, HeadId head,
                    const FigureOptions& options);

void saveHeadsFigure(const QString& path, const analysis::SentenceAnalysis& analysis,
                     const std::vector<HeadId>& heads, const FigureOptions& options);

}  // namespace attnscope::render
