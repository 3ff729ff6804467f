// The real main window offscreen on the GPT-2 fixture: the "Generation" tab continues the
// session's sentence with the tab's settings and shows exactly what the core's generate() gives
// for the same prompt and settings — every step's token, its probability and every head's row —
// in its chips, headline, bar strip and heads' map; stepping (the Right key, the buttons, the
// slider, a chip) changes the row shown; a seeded sampled run gives the same tokens again and
// the core's; the CSV is the CLI's; "Use as sentence" appends the continuation. A BERT encoder
// gets the reason instead of the controls. Issue 34, item 5.
#include <cmath>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include "analyses/generation/generation_figure.h"
#include "analyses/generation/generation_view.h"
#include "analyses/generation/generation_widgets.h"
#include "attnscope/forward/generation.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

constexpr int kTimeoutMs = 30000;
constexpr int kSteps = 6;

// The shown run is the core's: tokens, probabilities and every row (to float rounding of one
// run against another on the same code path).
bool sameGeneration(const forward::Generation& shown, const forward::Generation& core) {
    if (shown.prompt != core.prompt || shown.steps.size() != core.steps.size()) {
        return false;
    }
    for (std::size_t s = 0; s < core.steps.size(); ++s) {
        const forward::GenerationStep& a = shown.steps[s];
        const forward::GenerationStep& b = core.steps[s];
        if (a.token != b.token || a.keys != b.keys || a.rows.size() != b.rows.size() ||
            std::abs(a.probability - b.probability) > 1e-6f) {
            return false;
        }
        for (std::size_t i = 0; i < a.rows.size(); ++i) {
            if (std::abs(a.rows[i] - b.rows[i]) > 1e-6f) {
                return false;
            }
        }
    }
    return true;
}

}  // namespace

class GenerationTabTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:
    void greedyRunIsTheCoresAndSteps();
    void seededSampledRunIsReproducible();
    void encoderGetsTheReason();

private:
    GenerationView* showTab();
    // Presses Generate and waits for a run other than `before`.
    std::shared_ptr<const GenerationDocument::Run> generate(
        GenerationView* view, const std::shared_ptr<const GenerationDocument::Run>& before);
};

GenerationView* GenerationTabTest::showTab() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    auto* view = m_window->findChild<GenerationView*>(QStringLiteral("generationView"));
    if (!tabs || !view) {
        return nullptr;
    }
    tabs->setCurrentWidget(view);
    return view;
}

std::shared_ptr<const GenerationDocument::Run> GenerationTabTest::generate(
    GenerationView* view, const std::shared_ptr<const GenerationDocument::Run>& before) {
    auto* button = view->findChild<QPushButton*>(QStringLiteral("generationGenerate"));
    if (!button || !button->isEnabled()) {
        return nullptr;
    }
    QTest::mouseClick(button, Qt::LeftButton);
    for (int waited = 0; waited < kTimeoutMs; waited += 50) {
        if (view->shownRun() && view->shownRun() != before && button->isEnabled()) {
            return view->shownRun();
        }
        QTest::qWait(50);
    }
    return nullptr;
}

void GenerationTabTest::greedyRunIsTheCoresAndSteps() {
    auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    GenerationView* view = showTab();
    QVERIFY(view);
    QCOMPARE(tabs->tabText(tabs->indexOf(view)), QString("Generation"));
    // The fixture reads 21 positions: room for the continuation to be read back.
    const QString prompt = QStringLiteral("the fox");
    AnalysisSession* session = open(paneltest::checkpointDir("gpt2_f32"), prompt);
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->canGenerate(), kTimeoutMs);
    QVERIFY(view->placeholderText().contains(QStringLiteral("Generate")));
    // Greedy: the sampler's settings are off until Sampled is chosen.
    QVERIFY(
        !view->findChild<QDoubleSpinBox*>(QStringLiteral("generationTemperature"))->isEnabled());
    view->findChild<QSpinBox*>(QStringLiteral("generationSteps"))->setValue(kSteps);
    const auto run = generate(view, nullptr);
    QVERIFY(run);

    // The core's generation of the session's tokens, greedy.
    const std::vector<std::int32_t> ids = session->cleanResult()->forward.tokenIds;
    const forward::Generation core = forward::generate(*session->model(), ids, kSteps);
    QVERIFY(sameGeneration(run->generation, core));
    QCOMPARE(run->steps(), kSteps);
    QCOMPARE(run->labels.size(), ids.size() + kSteps);

    // Step 0: the headline names the chosen token and its probability; the strip shows the
    // selected head's row, the map every head's weight on where it looks most.
    QCOMPARE(view->step(), 0);
    const QString p0 = QString::number(static_cast<double>(core.steps[0].probability), 'f', 3);
    QVERIFY2(view->headline()->text().contains(p0), qPrintable(view->headline()->text()));
    QVERIFY(!view->chips()->chipRect(static_cast<int>(ids.size() + kSteps - 1)).isEmpty());
    session->selectHead({1, 1});
    QCOMPARE(view->shownHead(), HeadId(1, 1));
    const int nHeads = core.nHeads;
    const auto rowOf = [&](int step, HeadId h) {
        const forward::GenerationStep& s = core.steps[static_cast<std::size_t>(step)];
        const auto at = s.rows.begin() + (h.layer * nHeads + h.head) * s.keys;
        return std::vector<float>(at, at + s.keys);
    };
    const std::vector<float> row0 = rowOf(0, {1, 1});
    const int focus0 = static_cast<int>(std::max_element(row0.begin(), row0.end()) - row0.begin());
    QCOMPARE(view->focusKey(), focus0);
    QCOMPARE(view->heatmap()->image().size(), QSize(nHeads, core.nLayers));
    const QString tip = view->heatmap()->cellToolTip(1, 1);
    QVERIFY2(tip.contains(QString::number(
                 static_cast<double>(row0[static_cast<std::size_t>(focus0)]), 'f', 3)),
             qPrintable(tip));
    const QImage map0 = view->heatmap()->image();

    // Right: step 1, whose row is one key longer and the core's.
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Right);
    QCOMPARE(view->step(), 1);
    QCOMPARE(view->findChild<QSlider*>(QStringLiteral("generationSlider"))->value(), 1);
    const std::vector<float> row1 = rowOf(1, {1, 1});
    QCOMPARE(static_cast<int>(row1.size()), static_cast<int>(row0.size()) + 1);
    const float* shown1 = stepRow(*run, view->step(), view->shownHead());
    QVERIFY(std::equal(row1.begin(), row1.end(), shown1,
                       [](float a, float b) { return std::abs(a - b) <= 1e-6f; }));
    const QString p1 = QString::number(static_cast<double>(core.steps[1].probability), 'f', 3);
    QVERIFY(view->headline()->text().contains(p1));
    const int focus1 = static_cast<int>(std::max_element(row1.begin(), row1.end()) - row1.begin());
    QCOMPARE(view->focusKey(), focus1);
    QVERIFY(focus1 != focus0 || view->heatmap()->image() != map0);

    // The buttons, a chip, the ends.
    QTest::mouseClick(view->findChild<QToolButton*>(QStringLiteral("generationNext")),
                      Qt::LeftButton);
    QCOMPARE(view->step(), 2);
    QTest::mouseClick(view->findChild<QToolButton*>(QStringLiteral("generationPrevious")),
                      Qt::LeftButton);
    QCOMPARE(view->step(), 1);
    const QRectF last = view->chips()->chipRect(static_cast<int>(ids.size()) + kSteps - 1);
    QTest::mouseClick(view->chips(), Qt::LeftButton, {}, last.center().toPoint());
    QCOMPARE(view->step(), kSteps - 1);
    QTest::keyClick(view, Qt::Key_Right);
    QCOMPARE(view->step(), kSteps - 1);

    // A click on a bar focuses its key: the map shows every head's weight on key 0.
    QTest::mouseClick(view->rowStrip(), Qt::LeftButton, {},
                      QPoint(static_cast<int>(view->rowStrip()->width() * 0.0) + 48,
                             view->rowStrip()->height() / 2));
    QCOMPARE(view->rowStrip()->keyAt(48), 0);
    QCOMPARE(view->focusKey(), 0);

    // The CSV is the CLI's: a row per step × layer × head × key.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("generation.csv"));
    QVERIFY(view->exportCsv(csv));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QVERIFY2(lines.front().startsWith("step,token_id,token,probability,layer,head,key,weight"),
             lines.front().constData());
    qsizetype rows = 0;
    for (const forward::GenerationStep& s : core.steps) {
        rows += static_cast<qsizetype>(core.nLayers) * nHeads * s.keys;
    }
    QCOMPARE(lines.size(), rows + 1);
    const QString png = dir.filePath(QStringLiteral("generation.png"));
    QVERIFY(view->exportFigure(png));
    QVERIFY(QFileInfo(png).size() > 1000);

    // Use as sentence: the continuation follows the sentence (the random fixture's continuation
    // is no text that it reads back, so the pass is not waited for).
    view->useAsSentence();
    QCOMPARE(session->text(), prompt + QString::fromStdString(run->continuation));
    QVERIFY(session->text().size() > prompt.size());
}

void GenerationTabTest::seededSampledRunIsReproducible() {
    GenerationView* view = showTab();
    QVERIFY(view);
    AnalysisSession* session =
        open(paneltest::checkpointDir("gpt2_f32"), QStringLiteral("once upon a time"));
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(view->canGenerate(), kTimeoutMs);
    view->findChild<QSpinBox*>(QStringLiteral("generationSteps"))->setValue(kSteps);
    view->findChild<QComboBox*>(QStringLiteral("generationMode"))->setCurrentIndex(1);
    auto* temperature = view->findChild<QDoubleSpinBox*>(QStringLiteral("generationTemperature"));
    QVERIFY(temperature->isEnabled());
    temperature->setValue(1.5);
    view->findChild<QSpinBox*>(QStringLiteral("generationTopK"))->setValue(0);
    view->findChild<QDoubleSpinBox*>(QStringLiteral("generationTopP"))->setValue(1.0);
    view->findChild<QSpinBox*>(QStringLiteral("generationSeed"))->setValue(7);
    const auto first = generate(view, nullptr);
    QVERIFY(first);
    const auto second = generate(view, first);
    QVERIFY(second);
    QVERIFY(sameGeneration(first->generation, second->generation));

    forward::SamplerSettings sampler;
    sampler.temperature = 1.5f;
    sampler.topK = 0;
    sampler.topP = 1.0f;
    sampler.seed = 7;
    const forward::Generation core = forward::generate(
        *session->model(), session->cleanResult()->forward.tokenIds, kSteps, sampler);
    QVERIFY(sameGeneration(first->generation, core));
    QCOMPARE(QString::fromStdString(first->samplerText()),
             QString("temperature 1.5, top_k 0, top_p 1, seed 7"));
}

void GenerationTabTest::encoderGetsTheReason() {
    GenerationView* view = showTab();
    QVERIFY(view);
    QVERIFY(open(paneltest::checkpointDir("bert_f32"), QStringLiteral("the cat sat")));
    QTRY_VERIFY_WITH_TIMEOUT(view->placeholderText().contains(QStringLiteral("decoder-only")),
                             kTimeoutMs);
    QVERIFY(!view->canGenerate());
    QVERIFY(!view->shownRun());
}

QTEST_MAIN(GenerationTabTest)
#include "generation_tab_test.moc"
