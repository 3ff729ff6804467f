// Issue 18, the app: the corpus survey's head labels on the model grid (a tag per cell, the
// evidence and rule in the tool tip, a label filter that dims the other heads, set from the
// session or the grid's context menu) and in the head view. The SurveyRun is made by hand: the
// grid only reads its labels, so no survey pass is needed (except for the screenshots, which
// survey EWT on the default model when ATTNSCOPE_SHOT_DIR is set).
#include <limits>

#include <QAction>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include "analyses/survey/survey_document.h"
#include "attnscope/analysis/head_labels.h"
#include "attnscope/analysis/head_survey.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "session/default_model.h"
#include "views/head_grid_model.h"
#include "views/head_grid_view.h"
#include "views/head_view.h"
#include "widgets/theme.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

const QString kBert = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/bert_f32");
const QString kGpt2 = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/gpt2_f32");
const QString kText = QStringLiteral("the cat sat on the [MASK] today .");

analysis::HeadLabel label(const char* tag, const char* evidence, double strength) {
    analysis::HeadLabel l;
    l.tag = tag;
    l.name = std::string("name of ") + tag;
    l.rule = std::string("rule for ") + tag + " (threshold 0.5)";
    l.evidence = evidence;
    l.strength = strength;
    return l;
}

// bert_f32 has 2 layers × 3 heads. Labels: L0H1 prev + pos-1, L1H0 pos+1, L1H2 sink.
std::shared_ptr<SurveyRun> handMadeSurvey(std::shared_ptr<const model::Model> model) {
    auto run = std::make_shared<SurveyRun>();
    run->model = std::move(model);
    run->survey.nLayers = 2;
    run->survey.nHeads = 3;
    // Every score undefined: the Survey dock reads them; the grid reads only the labels.
    for (const std::string& name : analysis::surveyScoreNames()) {
        run->survey.scores[name].assign(6, std::numeric_limits<double>::quiet_NaN());
    }
    run->survey.distance.assign(36, std::numeric_limits<double>::quiet_NaN());
    run->survey.mdsError = "a hand-made survey has no distances";
    run->labels.resize(6);
    run->labels[1] = {label("prev", "prev = 0.930 ≥ 0.5", 0.93),
                      label("pos-1", "frequency 0.95 at offset -1", 0.91)};
    run->labels[3] = {label("pos+1", "frequency 0.97 at offset +1", 0.97)};
    run->labels[5] = {label("sink", "sink_rate = 0.80, first_mass = 0.61", 0.61)};
    return run;
}

bool rolesOnly(const QSignalSpy& spy, const QList<int>& roles) {
    return spy.count() == 1 && spy.first().at(2).value<QList<int>>() == roles;
}

}  // namespace

class HeadGridLabelsTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:

    void rolesAndToolTipCarryTheLabels();
    void filterHighlightsExactlyTheLabelledHeads();
    void filterDimsTheOtherCells();
    void sortedGridKeepsLabelsOnTheirHeads();
    void clearedSurveyAndNewModelDropTheLabels();
    void contextMenuSetsTheSessionFilter();
    void headViewShowsTheLabels();
    void labelLineFollowsTheTheme();
    void columnHeadersFitNarrowCells();
    void screenshots();

private:
    HeadGridView* grid() const { return m_window->findChild<HeadGridView*>("headGrid"); }

    HeadGridModel* gridModel() const { return qobject_cast<HeadGridModel*>(grid()->model()); }

    QVariant cell(HeadId h, int role) const {
        return gridModel()->data(gridModel()->indexOf(h), role);
    }

    // `s` given the hand-made survey's labels.
    static void labelHeads(AnalysisSession* s) {
        s->document<SurveyDocument>().setRun(handMadeSurvey(s->model()));
    }
};

void HeadGridLabelsTest::rolesAndToolTipCarryTheLabels() {
    AnalysisSession* s = open(kBert, kText);
    QVERIFY(s);
    QVERIFY(cell({0, 1}, HeadGridModel::LabelTagRole).toString().isEmpty());
    QCOMPARE(cell({0, 1}, HeadGridModel::LabelHighlightRole).toInt(), -1);
    QVERIFY(!cell({0, 1}, Qt::ToolTipRole).toString().contains("Labels (corpus survey)"));

    QSignalSpy changed(gridModel(), &QAbstractItemModel::dataChanged);
    QSignalSpy reset(gridModel(), &QAbstractItemModel::modelReset);
    labelHeads(s);
    QVERIFY(rolesOnly(changed, {HeadGridModel::LabelTagRole, HeadGridModel::LabelsRole,
                                HeadGridModel::LabelHighlightRole, Qt::ToolTipRole}));
    QCOMPARE(reset.count(), 0);  // the thumbnails stay; only the label roles changed

    QCOMPARE(cell({0, 1}, HeadGridModel::LabelTagRole).toString(), QStringLiteral("prev"));
    QCOMPARE(cell({0, 1}, HeadGridModel::LabelsRole).toString(), QStringLiteral("prev, pos-1"));
    QCOMPARE(cell({1, 2}, HeadGridModel::LabelTagRole).toString(), QStringLiteral("sink"));
    QVERIFY(cell({0, 0}, HeadGridModel::LabelTagRole).toString().isEmpty());
    QVERIFY(cell({0, 0}, HeadGridModel::LabelsRole).toString().isEmpty());

    const QString tip = cell({0, 1}, Qt::ToolTipRole).toString();
    QVERIFY2(Qt::mightBeRichText(tip), qPrintable(tip));
    QVERIFY2(tip.contains("Labels (corpus survey)"), qPrintable(tip));
    QVERIFY2(tip.contains("prev = 0.930 ≥ 0.5"), qPrintable(tip));             // evidence
    QVERIFY2(tip.contains("rule for prev (threshold 0.5)"), qPrintable(tip));  // rule
    QVERIFY2(tip.contains("frequency 0.95 at offset -1"), qPrintable(tip));
    QVERIFY2(tip.contains("mean entropy"), qPrintable(tip));  // the statistics stay above
    QVERIFY(tip.indexOf("mean entropy") < tip.indexOf("Labels (corpus survey)"));
    const QString none = cell({0, 0}, Qt::ToolTipRole).toString();
    QVERIFY2(none.contains("no rule L1–L10 fits"), qPrintable(none));

    // Labels are the head's over a corpus: another sentence's result keeps them.
    const QString other = QStringLiteral("a dog ran .");
    s->setText(other);
    QTRY_VERIFY_WITH_TIMEOUT(s->result() && s->result()->text == other.toStdString(), 20000);
    QCOMPARE(cell({0, 1}, HeadGridModel::LabelsRole).toString(), QStringLiteral("prev, pos-1"));
}

void HeadGridLabelsTest::filterHighlightsExactlyTheLabelledHeads() {
    AnalysisSession* s = open(kBert, kText);
    QVERIFY(s);
    const auto run = handMadeSurvey(s->model());
    s->document<SurveyDocument>().setRun(run);
    for (const char* tag : {"pos", "prev", "sink", "pos+1", "induct"}) {
        QSignalSpy changed(gridModel(), &QAbstractItemModel::dataChanged);
        s->overlays().setLabelFilter(QString::fromLatin1(tag));
        QVERIFY2(rolesOnly(changed, {HeadGridModel::LabelHighlightRole}), tag);
        const auto heads = analysis::headsWithLabel(run->labels, tag, 3);
        for (int layer = 0; layer < 2; ++layer) {
            for (int head = 0; head < 3; ++head) {
                const HeadId h{layer, head};
                const bool in = std::find(heads.begin(), heads.end(), h) != heads.end();
                QVERIFY2(cell(h, HeadGridModel::LabelHighlightRole).toInt() == (in ? 1 : 0),
                         qPrintable(QStringLiteral("%1 L%2H%3").arg(tag).arg(layer).arg(head)));
            }
        }
    }
    // The family "pos" takes both offsets: the filter is headsWithLabel's, not a tag compare.
    s->overlays().setLabelFilter(QStringLiteral("pos"));
    QCOMPARE(cell({0, 1}, HeadGridModel::LabelHighlightRole).toInt(), 1);
    QCOMPARE(cell({1, 0}, HeadGridModel::LabelHighlightRole).toInt(), 1);
    s->overlays().setLabelFilter({});
    for (int k = 0; k < 6; ++k) {
        QCOMPARE(cell({k / 3, k % 3}, HeadGridModel::LabelHighlightRole).toInt(), -1);
    }
}

// The delegate washes the cells outside the filter and leaves the ones in it as they were.
void HeadGridLabelsTest::filterDimsTheOtherCells() {
    AnalysisSession* s = open(kBert, kText);
    QVERIFY(s);
    labelHeads(s);
    HeadGridView* view = grid();
    const auto centre = [view](const QImage& shot, HeadId h) {
        return shot.pixelColor(view->headRect(h).center());
    };
    const QImage before = view->viewport()->grab().toImage();
    s->overlays().setLabelFilter(QStringLiteral("sink"));
    const QImage after = view->viewport()->grab().toImage();
    QCOMPARE(centre(after, {1, 2}), centre(before, {1, 2}));  // in the filter
    const QColor base = view->palette().color(QPalette::Base);
    for (const HeadId h : {HeadId{0, 0}, HeadId{0, 1}, HeadId{1, 0}}) {
        const QColor was = centre(before, h);
        const QColor now = centre(after, h);
        QVERIFY2(now != was, qPrintable(QStringLiteral("L%1H%2").arg(h.layer).arg(h.head)));
        // Closer to the background than before.
        const auto distance = [&base](const QColor& c) {
            return std::abs(c.red() - base.red()) + std::abs(c.green() - base.green()) +
                   std::abs(c.blue() - base.blue());
        };
        QVERIFY(distance(now) < distance(was));
    }
}

void HeadGridLabelsTest::sortedGridKeepsLabelsOnTheirHeads() {
    AnalysisSession* s = open(kBert, kText);
    QVERIFY(s);
    const auto run = handMadeSurvey(s->model());
    s->document<SurveyDocument>().setRun(run);
    s->overlays().setLabelFilter(QStringLiteral("sink"));
    HeadGridModel* model = gridModel();
    bool moved = false;
    for (const auto order : {HeadGridModel::Order::ByEntropy, HeadGridModel::Order::ByMaxLogit}) {
        model->setOrder(order);
        for (int row = 0; row < model->rowCount(); ++row) {
            for (int col = 0; col < model->columnCount(); ++col) {
                const QModelIndex i = model->index(row, col);
                const HeadId h = model->headAt(i);
                moved = moved || h.head != col;
                QCOMPARE(model->data(i, HeadGridModel::LabelsRole).toString(),
                         labelTags(run->labelsOf(h)));
                QCOMPARE(model->data(i, HeadGridModel::LabelHighlightRole).toInt(),
                         (h == HeadId{1, 2} ? 1 : 0));
            }
        }
    }
    QVERIFY2(moved, "no sort moved a head: the test would not tell cells from heads");
}

void HeadGridLabelsTest::clearedSurveyAndNewModelDropTheLabels() {
    AnalysisSession* s = open(kBert, kText);
    QVERIFY(s);
    labelHeads(s);
    s->overlays().setLabelFilter(QStringLiteral("prev"));
    QCOMPARE(cell({0, 1}, HeadGridModel::LabelTagRole).toString(), QStringLiteral("prev"));
    s->document<SurveyDocument>().setRun(nullptr);
    QVERIFY(cell({0, 1}, HeadGridModel::LabelTagRole).toString().isEmpty());
    QCOMPARE(cell({0, 1}, HeadGridModel::LabelHighlightRole).toInt(), -1);  // nothing to filter
    QVERIFY(!cell({0, 1}, Qt::ToolTipRole).toString().contains("Labels (corpus survey)"));

    labelHeads(s);
    QCOMPARE(cell({0, 1}, HeadGridModel::LabelHighlightRole).toInt(), 1);  // filter kept
    QVERIFY(open(kGpt2, QStringLiteral("the cat sat on the mat")));
    QVERIFY(!s->document<SurveyDocument>().run());
    for (int row = 0; row < gridModel()->rowCount(); ++row) {
        for (int col = 0; col < gridModel()->columnCount(); ++col) {
            const QModelIndex i = gridModel()->index(row, col);
            QVERIFY(gridModel()->data(i, HeadGridModel::LabelsRole).toString().isEmpty());
            QCOMPARE(gridModel()->data(i, HeadGridModel::LabelHighlightRole).toInt(), -1);
        }
    }
}

void HeadGridLabelsTest::contextMenuSetsTheSessionFilter() {
    AnalysisSession* s = open(kBert, kText);
    QVERIFY(s);
    QVERIFY(!grid()->contextMenuFor({0, 1})->findChild<QAction*>("clearLabelFilter"));
    labelHeads(s);

    auto menu = grid()->contextMenuFor({0, 1});
    for (const char* name : {"showLabel:prev", "showLabel:pos-1", "showLabel:pos"}) {
        QVERIFY2(menu->findChild<QAction*>(name), name);
    }
    QVERIFY(!menu->findChild<QAction*>("showLabel:sink"));  // another head's label
    QAction* clear = menu->findChild<QAction*>("clearLabelFilter");
    QVERIFY(clear);
    QVERIFY(!clear->isEnabled());

    QSignalSpy filter(&s->overlays(), &HeadOverlays::labelFilterChanged);
    menu->findChild<QAction*>("showLabel:pos")->trigger();
    QCOMPARE(s->overlays().labelFilter(), QStringLiteral("pos"));
    QCOMPARE(filter.count(), 1);
    QCOMPARE(cell({1, 0}, HeadGridModel::LabelHighlightRole).toInt(), 1);
    QCOMPARE(cell({1, 2}, HeadGridModel::LabelHighlightRole).toInt(), 0);

    menu = grid()->contextMenuFor({0, 1});
    QVERIFY(menu->findChild<QAction*>("showLabel:pos")->isChecked());
    QVERIFY(!menu->findChild<QAction*>("showLabel:prev")->isChecked());

    // An unlabelled head's menu can still clear the filter.
    menu = grid()->contextMenuFor({0, 0});
    QVERIFY(!menu->findChild<QAction*>("showLabel:pos"));
    clear = menu->findChild<QAction*>("clearLabelFilter");
    QVERIFY(clear && clear->isEnabled());
    clear->trigger();
    QVERIFY(s->overlays().labelFilter().isEmpty());
    QCOMPARE(cell({1, 0}, HeadGridModel::LabelHighlightRole).toInt(), -1);
}

void HeadGridLabelsTest::headViewShowsTheLabels() {
    AnalysisSession* s = open(kBert, kText);
    QVERIFY(s);
    auto* view = m_window->findChild<HeadView*>("headView");
    QVERIFY(view);
    s->selectHead({0, 1});
    QVERIFY(view->labelBanner().isEmpty());
    labelHeads(s);
    QVERIFY2(view->labelBanner().contains("Survey labels"), qPrintable(view->labelBanner()));
    QVERIFY(view->labelBanner().contains("prev (prev = 0.930 ≥ 0.5)"));
    QVERIFY(view->labelBanner().contains("pos-1 (frequency 0.95 at offset -1)"));
    const auto* line = view->findChild<QLabel*>("headViewLabels");
    QVERIFY(line);
    QVERIFY2(line->toolTip().contains("rule for prev (threshold 0.5)"),
             qPrintable(line->toolTip()));
    s->selectHead({0, 0});
    QVERIFY(view->labelBanner().isEmpty());
    s->selectHead({1, 2});
    QVERIFY(view->labelBanner().contains("sink"));
    s->document<SurveyDocument>().setRun(nullptr);
    QVERIFY(view->labelBanner().isEmpty());
}

// The label line is styled (a tinted background); a theme switched while it shows, or before it
// shows, must not leave it with the other theme's text colour (light text on the light theme).
void HeadGridLabelsTest::labelLineFollowsTheTheme() {
    AnalysisSession* s = open(kBert, kText);
    QVERIFY(s);
    auto* line = m_window->findChild<QLabel*>("headViewLabels");
    QVERIFY(line);
    s->selectHead({0, 1});
    labelHeads(s);
    const auto textLightness = [line] {
        QCoreApplication::processEvents();  // palette changes arrive as posted events
        return line->palette().color(QPalette::WindowText).lightnessF();
    };
    applyTheme(true);
    QVERIFY2(textLightness() > 0.5, qPrintable(QString::number(textLightness())));
    applyTheme(false);
    QVERIFY2(textLightness() < 0.5, qPrintable(QString::number(textLightness())));
    s->selectHead({0, 0});  // hidden, then shown again after another round trip
    applyTheme(true);
    applyTheme(false);
    s->selectHead({0, 1});
    QVERIFY2(textLightness() < 0.5, qPrintable(QString::number(textLightness())));
}

// Not a check: pictures of the labelled grid for people to judge, from a real survey of the
// first EWT dev sentences on the default model, at the two window sizes issue 15 supports.
// Twelve heads in a narrow dock ran "H10" into "H11": the column headers fit their cells, with
// the "H" where there is room for it and bare numbers in a smaller font where there is not.
void HeadGridLabelsTest::columnHeadersFitNarrowCells() {
    QVERIFY(open(kBert, kText));
    QHeaderView* header = grid()->horizontalHeader();
    const auto labelsFit = [this, header](bool prefixed) {
        const QFontMetrics fm(header->font());
        for (int c = 0; c < gridModel()->columnCount(); ++c) {
            const QString text =
                gridModel()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
            if (text != gridModel()->columnLabel(c, prefixed) ||
                fm.horizontalAdvance(text) > header->sectionSize(c) - 2) {
                qWarning() << "column" << c << text << "in" << header->sectionSize(c) << "px";
                return false;
            }
        }
        return true;
    };
    grid()->setFixedWidth(400);
    QTRY_VERIFY(header->sectionSize(0) > 60);
    QVERIFY(labelsFit(true));
    QCOMPARE(gridModel()->headerData(2, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("H2"));
    grid()->setFixedWidth(grid()->verticalHeader()->width() + 3 * 12 + 4);
    QTRY_COMPARE(header->sectionSize(0), 12);
    QVERIFY(labelsFit(false));
    QCOMPARE(gridModel()->headerData(2, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("2"));
    QCOMPARE(header->textElideMode(), Qt::ElideNone);
}

void HeadGridLabelsTest::screenshots() {
    const QString dir = qEnvironmentVariable("ATTNSCOPE_SHOT_DIR");
    if (dir.isEmpty() || !QFile::exists(paneltest::kEwtDev) || defaultModelDir().isEmpty()) {
        QSKIP("set ATTNSCOPE_SHOT_DIR (and have the default model and EWT) for screenshots");
    }
    AnalysisSession* s =
        open(defaultModelDir(), QStringLiteral("The keys to the cabinet are on the [MASK]."));
    QVERIFY(s);
    SurveyRequest request;
    request.maxSentences = 150;
    const auto run = std::make_shared<SurveyRun>(computeSurveyRun(
        s->model(), paneltest::kEwtDev, nullptr, request, {}, {}, 1, paneltest::sequential));
    s->document<SurveyDocument>().setRun(run);
    // Filter by the first tag the survey gave, so the picture shows heads in and out of it.
    QString tag;
    for (const auto& labels : run->labels) {
        if (tag.isEmpty() && !labels.empty()) {
            tag = QString::fromStdString(labels.front().tag);
        }
    }
    QDir().mkpath(dir);
    for (const QSize size : {QSize(1024, 700), QSize(1920, 1080)}) {
        m_window->resize(size);
        for (const QString& filter : {QString(), tag}) {
            s->overlays().setLabelFilter(filter);
            QTest::qWait(200);
            const QString name = QStringLiteral("%1/grid_labels_%2x%3%4")
                                     .arg(dir)
                                     .arg(size.width())
                                     .arg(size.height())
                                     .arg(filter.isEmpty() ? QString() : "_filtered");
            QVERIFY(m_window->grab().save(name + ".png"));
            QVERIFY(grid()->grab().save(name + "_grid.png"));
        }
    }
    // Small cells (a big model in a narrow dock): tags elide, then become dots.
    HeadGridModel model;
    model.setResult(s->result(), s->heatmapStyle());
    HeadGridView small(s, &model);
    for (const int side : {150, 110, 80}) {
        small.resize(side, side);
        small.show();
        QTest::qWait(100);
        QVERIFY(
            small.grab().save(QStringLiteral("%1/grid_labels_small_%2.png").arg(dir).arg(side)));
    }
}

QTEST_MAIN(HeadGridLabelsTest)
#include "head_grid_labels_test.moc"
