// LineView against real forward passes of the generated GPT-2 (causal) and BERT checkpoints:
// it draws one line per allowed query→key pair of the selected head, none for masked pairs,
// overlays further heads with a legend, highlights a hovered token's lines, scrolls long
// sentences and survives having no result. Issue 3.
#include "views/line_view.h"

#include <QCheckBox>
#include <QImage>
#include <QLayout>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>

#include "session/analysis_session.h"
#include "view_test_support.h"
#include "views/line_canvas.h"
#include "widget_test.h"

using namespace attnscope;
using attnscope::app::AnalysisSession;
using attnscope::app::LineCanvas;
using attnscope::app::LineView;
using Side = attnscope::app::LineCanvas::Side;

namespace {

// The lines a head should get: allowed pairs with a non-zero weight, rows with a key only.
int expectedLines(const analysis::SentenceAnalysis& r, HeadId head, float minWeight = 0) {
    const auto& f = r.forward;
    const auto a = f.attention(head);
    int n = 0;
    for (int q = 0; q < f.nTokens; ++q) {
        for (int k = 0; k < f.nTokens; ++k) {
            n += f.allowed(q, k) != 0 && a(q, k) > 0 && a(q, k) >= minWeight ? 1 : 0;
        }
    }
    return n;
}

// Pixels in the band between the columns that differ from the background, below the first
// three rows (where the "no head chosen" hint goes).
int inkInBand(LineCanvas* canvas) {
    const QImage image = canvas->grab().toImage();
    const QRectF q = canvas->tokenRect({Side::Query, 3});
    const QRectF k = canvas->tokenRect({Side::Key, 0});
    const QColor base = canvas->palette().color(QPalette::Base);
    int ink = 0;
    const qreal dpr = image.devicePixelRatio();
    for (int y = static_cast<int>(q.top() * dpr); y < image.height(); y += 2) {
        for (int x = static_cast<int>((q.right() + 12) * dpr); x < (k.left() - 12) * dpr; x += 2) {
            ink += QColor(image.pixel(x, y)) != base ? 1 : 0;
        }
    }
    return ink;
}

struct Setup {
    std::shared_ptr<const model::Model> model;
    std::shared_ptr<const analysis::SentenceAnalysis> result;
    AnalysisSession session;
};

void loadInto(Setup& s, const std::string& name, const forward::MaskChoice& mask = {}) {
    const test::Loaded l = test::loadIds(QString::fromStdString(name), mask);
    s.model = l.model;
    s.result = l.result;
    s.session.setModel(s.model, QString::fromStdString(name));
    s.session.setResult(s.result);
}

}  // namespace

class LineViewTest : public test::WidgetTest {
    Q_OBJECT

private slots:
    void emptyStateDoesNotCrash();
    void drawsTheSelectedHead_data();
    void drawsTheSelectedHead();
    void maskedPairsDrawNoLine();
    void overlaysHeadsWithLegend();
    void hoverHighlightsATokensLines();
    void longSentencesScrollAndThinOut();
};

void LineViewTest::emptyStateDoesNotCrash() {
    AnalysisSession session;
    LineView view(&session);
    QVERIFY(test::showExposed(view, 1000, 700));
    QCOMPARE(view.lineCount(), 0);
    QVERIFY(view.drawnHeads().empty());
    QVERIFY(!view.findChild<QToolButton*>("addOverlayButton")->isEnabled());
    QTest::mouseMove(view.canvas(), QPoint(100, 100));
    QVERIFY(!view.canvas()->grab().isNull());

    Setup s;
    LineView view2(&s.session);
    loadInto(s, "gpt2_f32");
    QVERIFY(view2.lineCount() > 0);
    s.session.setResult(nullptr);
    QCOMPARE(view2.lineCount(), 0);
    QCOMPARE(view2.canvas()->tokenCount(), 0);
    QVERIFY(!view2.canvas()->grab().isNull());
}

void LineViewTest::drawsTheSelectedHead_data() {
    test::addCheckpointRows();
}

void LineViewTest::drawsTheSelectedHead() {
    QFETCH(QString, checkpoint);
    Setup s;
    LineView view(&s.session);
    QVERIFY(test::showExposed(view, 1000, 700));
    loadInto(s, checkpoint.toStdString());
    const int n = s.result->forward.nTokens;
    for (const HeadId head : {HeadId{0, 0}, HeadId{1, 2}}) {
        s.session.selectHead(head);
        QCOMPARE(view.drawnHeads(), std::vector<HeadId>{head});
        QCOMPARE(view.lineCount(), expectedLines(*s.result, head));
    }
    // Causal maps have a line per lower-triangle cell, bidirectional ones per cell (weights of
    // random-weight models are never exactly 0 on allowed keys).
    QCOMPARE(view.lineCount(), checkpoint.startsWith("gpt2") ? n * (n + 1) / 2 : n * n);
    QCOMPARE(view.canvas()->tokenCount(), n);
    QVERIFY(inkInBand(view.canvas()) > 0);
    // Unticking "Selected head" with nothing else overlaid draws nothing.
    view.findChild<QCheckBox*>("followSelectedCheck")->setChecked(false);
    QCOMPARE(view.lineCount(), 0);
    QCOMPARE(inkInBand(view.canvas()), 0);
}

void LineViewTest::maskedPairsDrawNoLine() {
    // Causal with offset -1: query 0 sees nothing (fully masked), query q sees keys < q.
    Setup s;
    forward::MaskChoice mask;
    mask.kind = forward::MaskKind::Causal;
    mask.causalOffset = -1;
    LineView view(&s.session);
    loadInto(s, "gpt2_f32", mask);
    QCOMPARE(s.result->forward.fullyMaskedRows, std::vector<int>{0});
    const int n = s.result->forward.nTokens;
    QCOMPARE(view.lineCount(), n * (n - 1) / 2);
    QCOMPARE(view.lineCount(), expectedLines(*s.result, s.session.selectedHead()));
}

void LineViewTest::overlaysHeadsWithLegend() {
    Setup s;
    LineView view(&s.session);
    QVERIFY(test::showExposed(view, 1000, 700));
    loadInto(s, "bert_f32");
    s.session.selectHead({0, 1});
    QSignalSpy changed(&view, &LineView::overlayHeadsChanged);

    view.setOverlayHeads({{1, 0}, {1, 2}, {1, 0}, {0, 1}});  // duplicates collapse
    QCOMPARE(changed.count(), 1);
    const std::vector<HeadId> drawn = view.drawnHeads();
    QCOMPARE(drawn, (std::vector<HeadId>{{0, 1}, {1, 0}, {1, 2}}));
    int expected = 0;
    for (const HeadId h : drawn) {
        expected += expectedLines(*s.result, h);
    }
    QCOMPARE(view.lineCount(), expected);
    QVERIFY(view.findChild<QToolButton*>("legendChip_L0H1"));
    QVERIFY(view.findChild<QToolButton*>("legendChip_L1H0"));
    QVERIFY(view.findChild<QToolButton*>("legendChip_L1H2"));

    // The legend chip of an added head removes it.
    QTest::mouseClick(view.findChild<QToolButton*>("legendChip_L1H0"), Qt::LeftButton);
    QCOMPARE(view.drawnHeads(), (std::vector<HeadId>{{0, 1}, {1, 2}}));
    QTRY_VERIFY(!view.findChild<QToolButton*>("legendChip_L1H0"));

    // The spin boxes and "+ Add" overlay a head.
    view.findChild<QSpinBox*>("overlayLayerSpin")->setValue(0);
    view.findChild<QSpinBox*>("overlayHeadSpin")->setValue(2);
    QTest::mouseClick(view.findChild<QToolButton*>("addOverlayButton"), Qt::LeftButton);
    // (0, 1) stays in the list: it is overlaid once the selection moves elsewhere.
    QCOMPARE(view.overlayHeads(), (std::vector<HeadId>{{1, 2}, {0, 1}, {0, 2}}));
    QCOMPARE(view.drawnHeads().size(), std::size_t{3});
    QTest::mouseClick(view.findChild<QToolButton*>("clearOverlayButton"), Qt::LeftButton);
    QCOMPARE(view.drawnHeads(), (std::vector<HeadId>{{0, 1}}));
}

void LineViewTest::hoverHighlightsATokensLines() {
    Setup s;
    LineView view(&s.session);
    QVERIFY(test::showExposed(view, 1000, 700));
    loadInto(s, "gpt2_f32");
    view.layout()->activate();  // the legend row just appeared: place the canvas before aiming
    LineCanvas* canvas = view.canvas();
    const QColor base = canvas->palette().color(QPalette::Base);
    const QColor highlight = canvas->palette().color(QPalette::Highlight);
    const QRectF query4 = canvas->tokenRect({Side::Query, 4});
    const QPoint probe =
        QPoint(static_cast<int>(query4.left()) + 3, static_cast<int>(query4.top()) + 2);
    QCOMPARE(canvas->grab().toImage().pixelColor(probe), base);

    // Query 4 of a causal map has 5 outgoing lines.
    QTest::mouseMove(canvas, query4.center().toPoint());
    QTRY_VERIFY(canvas->hoveredToken().has_value());
    QCOMPARE(*canvas->hoveredToken(), (LineCanvas::Token{Side::Query, 4}));
    QCOMPARE(canvas->highlightedLineCount(), 5);
    QCOMPARE(canvas->grab().toImage().pixelColor(probe), highlight);

    // Key 2 receives lines from queries 2..n-1.
    const QRectF key2 = canvas->tokenRect({Side::Key, 2});
    QTest::mouseMove(canvas, key2.center().toPoint());
    QTRY_COMPARE(*canvas->hoveredToken(), (LineCanvas::Token{Side::Key, 2}));
    QCOMPARE(canvas->highlightedLineCount(), s.result->forward.nTokens - 2);

    // Between the columns nothing is hovered, and the dimming is gone.
    const QImage hovered = canvas->grab().toImage();
    canvas->setHoveredToken(std::nullopt);
    QCOMPARE(canvas->highlightedLineCount(), 0);
    QVERIFY(canvas->grab().toImage() != hovered);
}

void LineViewTest::longSentencesScrollAndThinOut() {
    AnalysisSession session;
    session.setModel(test::shapeOnlyModel(12, 12), "synthetic");
    LineView view(&session);
    QVERIFY(test::showExposed(view, 1000, 700));
    const auto result = test::syntheticAnalysis(12, 12, 512);
    session.setResult(result);
    session.selectHead({3, 4});
    // Weights below the threshold are skipped: far fewer than the 131k causal pairs.
    QCOMPARE(view.lineCount(), expectedLines(*result, {3, 4}, LineView::kManyTokensMinWeight));
    QVERIFY(view.lineCount() < 512 * 513 / 2);
    session.selectHead({0, 0});  // a previous-token head: one strong line per query
    QVERIFY(view.lineCount() >= 511);
    QVERIFY(view.lineCount() < 20 * 512);
    session.selectHead({3, 4});
    QTRY_VERIFY(view.scrollArea()->verticalScrollBar()->maximum() > 0);
    QVERIFY(view.canvas()->height() > 512 * 15);
    // Scrolling to the end and hovering the last token still works. Head (3, 4) is broad: at
    // 512 tokens none of its weights reach the threshold, but a hovered token shows all of its
    // lines (faint, opacity ~ sqrt(weight)).
    view.scrollArea()->verticalScrollBar()->setValue(
        view.scrollArea()->verticalScrollBar()->maximum());
    view.canvas()->setHoveredToken(LineCanvas::Token{Side::Query, 511});
    const auto row = result->forward.attention({3, 4}).row(511);
    const int strongEnough = static_cast<int>((row.array() >= LineCanvas::kHoverMinWeight).count());
    QVERIFY(strongEnough > 400);
    QCOMPARE(view.canvas()->highlightedLineCount(), strongEnough);
    view.setOverlayHeads({{0, 0}, {11, 11}});
    QCOMPARE(view.drawnHeads().size(), std::size_t{3});
    QVERIFY(!view.grab().isNull());
}

QTEST_MAIN(LineViewTest)
#include "line_view_test.moc"
