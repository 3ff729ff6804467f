// MainWindow's File ▸ Export actions, kept apart from the window's layout and wiring.
#include <QDir>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenu>
#include <QStatusBar>

#include "analyses/entropy/entropy_charts.h"
#include "attnscope/export/csv_writer.h"
#include "attnscope/export/hdf5_writer.h"
#include "attnscope/export/seq2seq_export.h"
#include "dialogs/export_dialog.h"
#include "main_window.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "widgets/file_dialogs.h"

namespace attnscope::app {

void MainWindow::addExportMenu(QMenu* file) {
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    exportMenu->setObjectName(QStringLiteral("exportMenu"));
    exportMenu->addAction(tr("&Figure of heads (PNG, SVG, PDF)…"),
                          QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
                              exportDialog()->show();
                              exportDialog()->raise();
                          });
    exportMenu->addAction(tr("All heads to &HDF5…"), this, [this] {
        askForSaveFile(this, tr("Export all heads"), tr("HDF5 files (*.h5)"),
                       [this](const QString& p) { return exportHdf5(p); });
    });
    exportMenu->addAction(tr("&Attribution maps to HDF5…"), this, [this] {
        askForSaveFile(this, tr("Export the attribution maps computed"), tr("HDF5 files (*.h5)"),
                       [this](const QString& p) { return m_service->attributions().exportTo(p); });
    });
    exportMenu->addAction(tr("&Charts (PNG, SVG)…"), this, [this] {
        askForSaveFile(this, tr("Export the entropy charts"),
                       tr("PNG image (*.png);;SVG image (*.svg)"),
                       [this](const QString& p) { return exportCharts(p); });
    });
    exportMenu->addAction(tr("Head &statistics to CSV…"), this, [this] {
        askForSaveFile(this, tr("Export per-head statistics"), tr("CSV files (*.csv)"),
                       [this](const QString& p) { return exportStatsCsv(p); });
    });
}

bool MainWindow::exportHdf5(const QString& path) {
    const auto result = m_session->result();
    if (!result) {
        m_session->reportError(tr("Nothing to export yet: type a sentence first."));
        return false;
    }
    if (const auto seq2seq = m_session->seq2seq()) {
        // All three kinds with their rows' and columns' tokens, not only the kind on screen.
        const auto model = m_session->model();
        const exporting::Seq2SeqMetadata meta{m_session->modelPath().toStdString(),
                                              model->spec.modelType,
                                              model->decoder->spec.decoderStartTokenId.value_or(0)};
        m_service->exportFile(path, [seq2seq, meta](const std::string& file) {
            exporting::writeSeq2SeqInterchangeFile(file, *seq2seq, meta);
        });
        return true;
    }
    const exporting::ExportMetadata source{m_session->modelPath().toStdString(),
                                           m_session->model()->spec.modelType, result->text};
    m_service->exportFile(path, [result, source](const std::string& file) {
        exporting::ExportTokens tokens;
        for (const auto& t : result->tokens) {
            tokens.text.push_back(t.text);
            tokens.offsets.emplace_back(t.charBegin, t.charEnd);
        }
        exporting::writeInterchangeFile(file, result->forward, tokens, source);
    });
    return true;
}

bool MainWindow::exportStatsCsv(const QString& path) {
    const auto result = m_session->result();
    if (!result) {
        m_session->reportError(tr("Nothing to export yet: type a sentence first."));
        return false;
    }
    m_service->exportFile(
        path, [result](const std::string& file) { exporting::writeHeadStatsCsv(file, *result); });
    return true;
}

bool MainWindow::exportCharts(const QString& path) {
    const auto* view = findChild<EntropyChartsView*>();
    if (!view || !view->hasResult()) {
        m_session->reportError(tr("Nothing to export yet: type a sentence first."));
        return false;
    }
    // One file per chart: name.png -> name-head-entropy.png, name-query-entropy.png, ...
    const QFileInfo info(path);
    const QString suffix = info.suffix().isEmpty() ? QStringLiteral("png") : info.suffix();
    const std::pair<EntropyChartsView::Chart, const char*> charts[] = {
        {EntropyChartsView::Chart::HeadEntropy, "head-entropy"},
        {EntropyChartsView::Chart::QueryEntropy, "query-entropy"},
        {EntropyChartsView::Chart::MaxLogit, "max-logit"},
    };
    for (const auto& [chart, name] : charts) {
        const QString file = info.dir().filePath(
            QStringLiteral("%1-%2.%3").arg(info.completeBaseName(), QLatin1String(name), suffix));
        QString error;
        if (!view->saveChart(chart, file, &error)) {
            m_session->reportError(tr("Export failed: %1").arg(error));
            return false;
        }
    }
    statusBar()->showMessage(tr("Wrote three charts beside %1").arg(path), 5000);
    return true;
}

ExportDialog* MainWindow::exportDialog() {
    if (m_exportDialog == nullptr) {
        m_exportDialog = new ExportDialog(m_session, this);
    }
    return m_exportDialog;
}

}  // namespace attnscope::app
