// PatchingView's exports (patching_view.h): the shown sweep's runs through the core's writers
// (export/patching_export.h, as attnscope-cli patch --out) and its heatmap as a figure.
#include "analyses/patching/patching_figure.h"
#include "analyses/patching/patching_view.h"
#include "attnscope/export/patching_export.h"
#include "session/analysis_session.h"
#include "session/reporting_export.h"

namespace attnscope::app {

bool PatchingView::canExport() const {
    if (!m_shown) {
        m_session->reportError(tr("Nothing to export yet: run a patching sweep first."));
    }
    return m_shown != nullptr;
}

bool PatchingView::exportRun(const QString& path) {
    if (!canExport()) {
        return false;
    }
    const PatchingDocument::Endpoints& e = *m_shown->endpoints;
    exporting::PatchingRun run{m_session->modelPath().toStdString(),
                               e.targetPiece,
                               e.distractorPiece,
                               e.base.get(),
                               {m_shown->grid},
                               {}};
    for (const PatchingDocument::PathRow& p : m_document.paths()) {
        if (p.endpoints == m_shown->endpoints) {
            run.paths.emplace_back(p.spec, p.result);
        }
    }
    return reportingExport(m_session, [&] {
        if (path.endsWith(QStringLiteral(".h5"), Qt::CaseInsensitive)) {
            exporting::writePatchingHdf5(path.toStdString(), run);
        } else {
            exporting::writePatchingCsv(path.toStdString(), run);
        }
    });
}

bool PatchingView::exportFigure(const QString& path) {
    if (!canExport()) {
        return false;
    }
    const HeatGridFigure figure = patchingFigure(*m_shown, shownPosition());
    return reportingExport(m_session, [&] { writeHeatGridFigure(path, figure); });
}

}  // namespace attnscope::app
