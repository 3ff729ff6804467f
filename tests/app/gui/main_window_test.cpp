// Drives the real main window offscreen: open a generated checkpoint, type, look at the grid
// and the head view, switch masks, compare heads, export, and fail a load.
#include "main_window.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include "analyses/compare/compare_view.h"
#include "dialogs/export_dialog.h"
#include "panel_test_support.h"
#include "render/heatmap_image.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_grid_model.h"
#include "views/head_grid_view.h"
#include "views/head_view.h"
#include "views/heatmap_widget.h"
#include "widgets/message_bar.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

QString checkpoint(const char* name) {
    return paneltest::checkpointDir(name);
}

}  // namespace

class MainWindowTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void gridHasEveryHeadAndModelsPassTester();
    void brightestCellIsTheCoresMaximum();
    void causalMaskIsDrawnAsMasked();
    void comparesTwoHeads();
    void failedLoadKeepsPreviousModel();
    void typingRecomputesAndNewestWins();
    void exportsHdf5();
    void exportsFiguresAndCsv();

private:
    // Opens `name` and types `text`; waits for the result.
    void openAndType(const char* name, const QString& text);
};

void MainWindowTest::openAndType(const char* name, const QString& text) {
    QVERIFY(paneltest::openModelIn(*m_window, checkpoint(name), 20000));
    QVERIFY(paneltest::typeSentence(*m_window, text));
}

void MainWindowTest::gridHasEveryHeadAndModelsPassTester() {
    openAndType("bert_f32", QStringLiteral("the cat sat on the mat"));
    auto* grid = m_window->findChild<HeadGridView*>(QStringLiteral("headGrid"));
    QVERIFY(grid);
    auto* model = qobject_cast<HeadGridModel*>(grid->model());
    QVERIFY(model);
    QCOMPARE(model->rowCount(), 2);     // layers
    QCOMPARE(model->columnCount(), 3);  // heads
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model->setOrder(HeadGridModel::Order::ByEntropy);
    model->setOrder(HeadGridModel::Order::Model);
    for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < 3; ++c) {
            QVERIFY(!model->index(r, c).data(Qt::DecorationRole).value<QImage>().isNull());
        }
    }
    // Clicking a cell selects that head.
    QTest::mouseClick(grid->viewport(), Qt::LeftButton, {}, grid->headRect({1, 2}).center());
    QCOMPARE(m_window->session()->selectedHead(), (HeadId{1, 2}));
}

void MainWindowTest::brightestCellIsTheCoresMaximum() {
    openAndType("gpt2_f32", QStringLiteral("the quick brown fox jumps"));
    AnalysisSession* session = m_window->session();
    session->selectHead({1, 1});
    const auto& f = session->result()->forward;
    Eigen::Index row = 0, col = 0;
    f.attention({1, 1}).maxCoeff(&row, &col);
    auto* heatmap = m_window->findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    QVERIFY(heatmap);
    QTRY_COMPARE(heatmap->image().size(), QSize(f.nTokens, f.nTokens));
    // The rendered widget: the core's maximum cell has the colour map's top colour.
    const QImage shot = heatmap->grab().toImage();
    const QPoint centre =
        heatmap->cellRect(static_cast<int>(row), static_cast<int>(col)).center().toPoint() *
        shot.devicePixelRatio();
    QCOMPARE(QColor(shot.pixel(centre)).rgb(),
             QColor(render::colorAt(render::Colormap::Viridis, 1.0)).rgb());
}

void MainWindowTest::causalMaskIsDrawnAsMasked() {
    openAndType("bert_f32", QStringLiteral("a b c d e"));
    AnalysisSession* session = m_window->session();
    auto* heatmap = m_window->findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    // BERT is bidirectional by default: nothing masked.
    QVERIFY(session->result()->forward.allowed.minCoeff() == 1);
    auto* kind = m_window->findChild<QComboBox*>(QStringLiteral("maskKind"));
    QVERIFY(kind);
    QSignalSpy computed(m_window->service(), &ComputeService::computeFinished);
    kind->setCurrentIndex(kind->findText(QStringLiteral("Causal")));
    QVERIFY(computed.wait(20000));
    const auto& f = session->result()->forward;
    QCOMPARE(f.maskKind, std::string("causal"));
    QCOMPARE(f.attention({0, 0})(0, 1), 0.0f);
    // The upper-right cell is drawn in the masked grey (hatched lines are darker grey).
    const QImage shot = heatmap->grab().toImage();
    const QRectF cell = heatmap->cellRect(0, f.nTokens - 1);
    bool maskedColour = false;
    for (int dx = 0; dx < static_cast<int>(cell.width()); ++dx) {
        const QColor c =
            shot.pixelColor((cell.topLeft() + QPointF(dx, cell.height() / 2)).toPoint());
        maskedColour = maskedColour || c == render::maskedCellColor();
        QVERIFY2(c.red() == c.green() && c.green() == c.blue(), "masked cell must be grey");
    }
    QVERIFY(maskedColour);
}

void MainWindowTest::comparesTwoHeads() {
    openAndType("bert_f32", QStringLiteral("the dog barked"));
    AnalysisSession* session = m_window->session();
    auto* compare = m_window->findChild<CompareView*>(QStringLiteral("compareView"));
    QVERIFY(compare);
    session->selectHead({0, 0});
    session->setCompareHead({1, 2});
    QVERIFY(compare->totalDivergence() > 0.0);
    session->setCompareHead({0, 0});
    QCOMPARE(compare->totalDivergence(), 0.0);
    QVERIFY(!compare->difference()->image().isNull());
}

void MainWindowTest::failedLoadKeepsPreviousModel() {
    openAndType("bert_f32", QStringLiteral("hello world"));
    AnalysisSession* session = m_window->session();
    const auto before = session->model();
    const auto result = session->result();
    QTemporaryDir broken;
    QFile config(broken.filePath(QStringLiteral("config.json")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(R"({"model_type": "xlnet"})");  // t5 is supported since issue 20
    config.close();
    QSignalSpy loaded(m_window->service(), &ComputeService::loadFinished);
    m_window->openModel(broken.path());
    QVERIFY(loaded.wait(20000));
    QCOMPARE(loaded.takeFirst().at(0).toBool(), false);
    QCOMPARE(session->model(), before);
    QCOMPARE(session->result(), result);
    auto* bar = m_window->findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY(bar->text().contains(QStringLiteral("'xlnet' is not supported")));
}

void MainWindowTest::typingRecomputesAndNewestWins() {
    openAndType("gpt2_f32", QStringLiteral("one"));
    AnalysisSession* session = m_window->session();
    auto* edit = m_window->findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    // Many edits in a burst: only the newest text's result may end up in the session.
    QSignalSpy idle(m_window->service(), &ComputeService::idle);
    QTest::keyClicks(edit, QStringLiteral(" two three four five six"));
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->service()->isComputing() && session->result() &&
                                 session->result()->text == edit->text().toStdString(),
                             20000);
    QCOMPARE(QString::fromStdString(session->result()->text),
             QStringLiteral("one two three four five six"));
}

void MainWindowTest::exportsHdf5() {
    openAndType("bert_f32", QStringLiteral("export me"));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("all.h5"));
    paneltest::expectHdf5Export(*m_window, path, true);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.read(8), QByteArray("\x89HDF\r\n\x1a\n", 8));
    // An unwritable target fails visibly and changes nothing.
    paneltest::expectHdf5Export(*m_window, dir.filePath(QStringLiteral("missing/dir/x.h5")), false);
    auto* bar = m_window->findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY(bar->text().contains(QStringLiteral("Export failed")));
}

void MainWindowTest::exportsFiguresAndCsv() {
    openAndType("gpt2_f32", QStringLiteral("figures for the paper"));
    QTemporaryDir dir;
    ExportDialog* dialog = m_window->exportDialog();
    dialog->setPixelSize(900, 700, 150);
    dialog->setChoice(ExportDialog::Choice::SelectedHead);
    QVERIFY(dialog->exportTo(dir.filePath(QStringLiteral("head.png"))));
    const QImage png(dir.filePath(QStringLiteral("head.png")));
    QCOMPARE(png.size(), QSize(900, 700));
    dialog->setChoice(ExportDialog::Choice::HeadList, QStringLiteral("0-1, 1-2"));
    QVERIFY(dialog->exportTo(dir.filePath(QStringLiteral("heads.svg"))));
    QFile svg(dir.filePath(QStringLiteral("heads.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svg);
    while (!xml.atEnd()) {
        xml.readNext();
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    dialog->setChoice(ExportDialog::Choice::WholeGrid);
    QVERIFY(dialog->exportTo(dir.filePath(QStringLiteral("grid.pdf"))));
    QFile pdf(dir.filePath(QStringLiteral("grid.pdf")));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QCOMPARE(pdf.read(5), QByteArray("%PDF-"));
    // A head list naming a head the model lacks is refused and nothing is written.
    dialog->setChoice(ExportDialog::Choice::HeadList, QStringLiteral("9-9"));
    QVERIFY(!dialog->exportTo(dir.filePath(QStringLiteral("bad.png"))));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("bad.png"))));
    QVERIFY(m_window->exportCharts(dir.filePath(QStringLiteral("charts.svg"))));
    for (const char* name :
         {"charts-head-entropy.svg", "charts-query-entropy.svg", "charts-max-logit.svg"}) {
        QVERIFY2(QFileInfo(dir.filePath(QLatin1String(name))).size() > 1000, name);
    }
    QSignalSpy written(m_window->service(), &ComputeService::exportFinished);
    QVERIFY(m_window->exportStatsCsv(dir.filePath(QStringLiteral("stats.csv"))));
    QVERIFY(written.wait(30000));
    QCOMPARE(written.first().at(1).toBool(), true);
    QFile csv(dir.filePath(QStringLiteral("stats.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readLine().startsWith("layer,head,mean_entropy_nats"));
}

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
