// File ▸ Export ▸ Figure on an encoder-decoder model (issue 20): the kind of attention shown is
// the kind exported. Cross-attention comes out [target rows, source columns] with square cells,
// its rows named as the head view names them ("→ piece"), its preview drawn, not refused.
#include <cmath>

#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "attnscope/analysis/seq2seq_analysis.h"
#include "dialogs/export_dialog.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;
using forward::AttentionKind;

namespace {

// The largest <rect> of an SVG figure but its white background: the frame around a map.
QSizeF largestRect(const QString& svg) {
    static const QRegularExpression rect(QStringLiteral(
        R"re(<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)")re"));
    QSizeF best;
    for (auto it = rect.globalMatch(svg); it.hasNext();) {
        const auto m = it.next();
        const bool page = m.captured(1).toDouble() == 0 && m.captured(2).toDouble() == 0;
        const QSizeF size(m.captured(3).toDouble(), m.captured(4).toDouble());
        if (!page && size.width() * size.height() > best.width() * best.height()) {
            best = size;
        }
    }
    return best;
}

}  // namespace

class Seq2SeqExportTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void exportsCrossAttentionFigures();
};

void Seq2SeqExportTest::exportsCrossAttentionFigures() {
    QVERIFY(paneltest::openModelIn(
        *m_window, QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/seq2seq/bart_tok_f32"), 20000));
    QVERIFY(paneltest::typeSourceAndTarget(*m_window,
                                           QStringLiteral("The keys to the cabinet are here"),
                                           QStringLiteral("Heads look")));
    AnalysisSession* s = m_window->session();
    QCOMPARE(s->attentionKind(), AttentionKind::Cross);
    const auto a = s->seq2seq();
    const int rows = a->cross.forward.nTokens;
    const int cols = a->cross.forward.nKeys;
    QVERIFY(rows != cols);

    ExportDialog* dialog = m_window->exportDialog();
    dialog->setPixelSize(1200, 800, 150);
    dialog->setChoice(ExportDialog::Choice::SelectedHead);
    auto* preview = dialog->findChild<QLabel*>(QStringLiteral("exportPreview"));
    QVERIFY(preview);
    QVERIFY2(!preview->pixmap().isNull(), qPrintable(preview->text()));  // drawn, not refused
    QTemporaryDir dir;
    const QString svgPath = dir.filePath(QStringLiteral("cross.svg"));
    QVERIFY(dialog->exportTo(svgPath));
    QFile file(svgPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(file.readAll());
    const QSizeF frame = largestRect(svg);
    QVERIFY2(std::abs(frame.width() / frame.height() - double(cols) / rows) < 0.03 * cols / rows,
             qPrintable(QStringLiteral("%1 x %2 for %3 x %4")
                            .arg(frame.width())
                            .arg(frame.height())
                            .arg(rows)
                            .arg(cols)));
    const QString produced = QString::fromStdString(a->targetLabel(1));
    QVERIFY2(svg.contains(QLatin1Char('>') + produced + QStringLiteral("</text>")),
             qPrintable(produced));
    const QString sourceToken = QString::fromStdString(a->cross.keyLabel(1));
    QVERIFY2(svg.contains(QLatin1Char('>') + sourceToken + QStringLiteral("</text>")),
             qPrintable(sourceToken));
    QVERIFY(svg.contains(QStringLiteral("(decoder) → the token each produces")));

    dialog->setChoice(ExportDialog::Choice::WholeGrid);
    const QString pngPath = dir.filePath(QStringLiteral("grid.png"));
    QVERIFY(dialog->exportTo(pngPath));
    QCOMPARE(QImage(pngPath).size(), QSize(1200, 800));
}

QTEST_MAIN(Seq2SeqExportTest)
#include "seq2seq_export_test.moc"
