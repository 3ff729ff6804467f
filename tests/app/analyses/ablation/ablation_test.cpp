// Issue 17, the app: live head ablation. Ablating through the session or a context menu shows
// the ablated pass (crossed-out heads, JS marks downstream, a banner in the head view, clean and
// ablated predictions side by side) without rerunning the clean pass; clearing brings the clean
// maps back bit for bit; Mean ablation takes its means from the treebank when one is loaded; a
// new model clears the ablations; over-budget sentences recompute heads of the ablated pass.
#include <cstring>

#include <QAction>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "main_window.h"
#include "panel_test_support.h"
#include "panels/prediction_panel.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/head_grid_model.h"
#include "views/head_grid_view.h"
#include "views/head_view.h"
#include "widgets/message_bar.h"
#include "window_test.h"

using namespace attnscope;
using namespace attnscope::app;
using forward::AblationKind;

namespace {

const QString kBert = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/bert_f32");
const QString kGpt2 = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/gpt2_f32");
const QString kLlamaGqa = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/llama3_gqa4_f32");
const QString kMasked = QStringLiteral("the cat sat on the [MASK] today .");

bool sameFloats(const FloatBuffer& a, const FloatBuffer& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool sameFloats(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// True once the session shows a result whose head `h` got `kind` (nullopt: a clean result).
bool shows(AnalysisSession* s, HeadId h, std::optional<AblationKind> kind) {
    const auto r = s->result();
    return r && r->forward.ablationOf(h) == kind;
}

QAction* findAction(QMenu* menu, const char* name) {
    return menu->findChild<QAction*>(QLatin1String(name));
}

}  // namespace

class AblationTest : public paneltest::FreshWindowTest {
    Q_OBJECT

private slots:

    void init() {
        m_window = paneltest::shownWindow();
        m_window->session()->setMapBudgetBytes(std::size_t{1} << 30);  // maps recorded
    }

    void sessionAblationReusesTheCleanPassAndClearRestoresIt();
    void contextMenusAblateAndClear();
    void keyValueGroupsOnlyForGroupedQueryModels();
    void meanAblationUsesTheTreebankWhenLoaded();
    void newModelClearsAblations();
    void predictionsShowCleanAndAblated();
    void overBudgetHeadsComeFromTheAblatedPass();

private:
    HeadGridModel* gridModel() const {
        return qobject_cast<HeadGridModel*>(
            m_window->findChild<HeadGridView*>(QStringLiteral("headGrid"))->model());
    }
};

void AblationTest::sessionAblationReusesTheCleanPassAndClearRestoresIt() {
    AnalysisSession* s = open(kBert, kMasked);
    QVERIFY(s);
    const auto clean = s->result();
    QCOMPARE(s->cleanResult(), clean);
    QVERIFY(!s->ablationEffects());
    const int passes = m_window->service()->cleanPassCount();
    QSignalSpy changed(s, &AnalysisSession::ablationsChanged);

    s->ablateHead({0, 1}, AblationKind::Zero);
    QCOMPARE(changed.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 1}, AblationKind::Zero), 20000);
    const auto ablated = s->result();
    QCOMPARE(s->cleanResult(), clean);  // the cached clean pass, not a new one
    QCOMPARE(m_window->service()->cleanPassCount(), passes);
    QVERIFY(ablated != clean);
    QVERIFY(!ablated->forward.ablationOf({0, 0}));
    const auto effects = s->ablationEffects();
    QVERIFY(effects);
    // Layer 0's other heads read the same input: unchanged, exactly. Layer 1 reads the changed
    // residual stream.
    QCOMPARE(effects->jsOf({0, 0}), 0.0);
    QVERIFY(effects->jsOf({1, 0}) > 1e-6);

    HeadGridModel* grid = gridModel();
    QTRY_COMPARE_WITH_TIMEOUT(
        grid->data(grid->indexOf({0, 1}), HeadGridModel::AblationKindRole).toString(),
        QStringLiteral("zero"), 5000);
    QVERIFY(
        grid->data(grid->indexOf({0, 0}), HeadGridModel::AblationKindRole).toString().isEmpty());
    QCOMPARE(grid->data(grid->indexOf({0, 0}), HeadGridModel::JsMarkRole).toDouble(), 0.0);
    QCOMPARE(grid->data(grid->indexOf({1, 0}), HeadGridModel::JsChangeRole).toDouble(),
             effects->jsOf({1, 0}));
    const QString tip = grid->data(grid->indexOf({1, 2}), Qt::ToolTipRole).toString();
    if (effects->jsOf({1, 2}) >= HeadGridModel::kJsMarkThreshold) {
        QVERIFY(grid->data(grid->indexOf({1, 2}), HeadGridModel::JsMarkRole).toDouble() > 0);
        QVERIFY2(
            tip.contains(QStringLiteral("JS change %1 nats").arg(effects->jsOf({1, 2}), 0, 'f', 4)),
            qPrintable(tip));
    }
    QVERIFY(grid->data(grid->indexOf({0, 1}), Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("Ablated (zero)")));

    // A second ablation: still no clean pass.
    s->ablateHead({1, 2}, AblationKind::Sink);
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {1, 2}, AblationKind::Sink), 20000);
    QCOMPARE(s->ablations().size(), std::size_t{2});
    QCOMPARE(s->ablations().front().layer, 0);  // canonical order, not click order
    QCOMPARE(m_window->service()->cleanPassCount(), passes);

    s->clearAblations();
    QTRY_VERIFY_WITH_TIMEOUT(s->result() && s->result()->forward.interventions.empty(), 20000);
    QCOMPARE(m_window->service()->cleanPassCount(), passes);
    QVERIFY(!s->ablationEffects());
    QVERIFY(sameFloats(s->result()->forward.probs, clean->forward.probs));
    QVERIFY(sameFloats(s->result()->forward.logits, clean->forward.logits));
    QVERIFY(sameFloats(s->result()->forward.entropy, clean->forward.entropy));
    QTRY_VERIFY_WITH_TIMEOUT(
        grid->data(grid->indexOf({0, 1}), HeadGridModel::AblationKindRole).toString().isEmpty(),
        5000);
    QVERIFY(!grid->data(grid->indexOf({1, 0}), HeadGridModel::JsChangeRole).isValid());

    // A new text is a new clean pass.
    s->setText(QStringLiteral("the dog ran ."));
    QTRY_COMPARE_WITH_TIMEOUT(m_window->service()->cleanPassCount(), passes + 1, 20000);
}

void AblationTest::contextMenusAblateAndClear() {
    AnalysisSession* s = open(kBert, kMasked);
    QVERIFY(s);
    auto* gridView = m_window->findChild<HeadGridView*>(QStringLiteral("headGrid"));
    std::unique_ptr<QMenu> menu = gridView->contextMenuFor({0, 2});
    QVERIFY(findAction(menu.get(), "ablateZero"));
    QVERIFY(!findAction(menu.get(), "clearHeadAblation")->isEnabled());
    QVERIFY(!findAction(menu.get(), "clearAllAblations")->isEnabled());
    findAction(menu.get(), "ablateSink")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 2}, AblationKind::Sink), 20000);

    // The head view of the ablated head: its banner, and sink maps (rows on the first token).
    s->selectHead({0, 2});
    auto* view = m_window->findChild<HeadView*>(QStringLiteral("headView"));
    QTRY_VERIFY_WITH_TIMEOUT(view->ablationBanner().contains(QStringLiteral("Ablated (sink)")),
                             5000);
    QVERIFY(view->ablationBanner().contains(QStringLiteral("rows forced onto the first token")));
    const auto record = s->headRecords().get({0, 2});
    QVERIFY(record);
    QCOMPARE(record->probs.col(0).minCoeff(), 1.0f);
    // A downstream head: its JS change.
    s->selectHead({1, 0});
    QTRY_VERIFY_WITH_TIMEOUT(view->ablationBanner().contains(QStringLiteral("JS change")), 5000);

    // The head view's menu: the shown head's entries; clearing it restores the clean result.
    s->selectHead({0, 2});
    std::unique_ptr<QMenu> viewMenu = view->contextMenu();
    QAction* sink = findAction(viewMenu.get(), "ablateSink");
    QVERIFY(sink->isCheckable() && sink->isChecked());
    findAction(viewMenu.get(), "clearHeadAblation")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 2}, std::nullopt), 20000);
    QVERIFY(s->ablations().empty());
    QTRY_VERIFY_WITH_TIMEOUT(view->ablationBanner().isEmpty(), 5000);

    // Heads ▸ Clear all ablations, and its shortcut.
    s->ablateHead({0, 0}, AblationKind::Zero);
    auto* clearAll = m_window->findChild<QAction*>(QStringLiteral("clearAblationsAction"));
    QVERIFY(clearAll && clearAll->isEnabled());
    QCOMPARE(clearAll->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 0}, AblationKind::Zero), 20000);
    clearAll->trigger();
    QVERIFY(s->ablations().empty());
    QVERIFY(!clearAll->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 0}, std::nullopt), 20000);
}

void AblationTest::keyValueGroupsOnlyForGroupedQueryModels() {
    AnalysisSession* s = open(kBert, kMasked);
    QVERIFY(s);
    auto* gridView = m_window->findChild<HeadGridView*>(QStringLiteral("headGrid"));
    {
        std::unique_ptr<QMenu> menu = gridView->contextMenuFor({0, 0});
        auto* group = menu->findChild<QMenu*>(QStringLiteral("ablateGroupMenu"));
        QVERIFY(group && !group->isEnabled());
    }
    QVERIFY(open(kLlamaGqa, QStringLiteral("the keys to the cabinet")));
    QVERIFY(s->hasKvGroups());  // 8 query heads on 2 key/value heads: groups of 4
    std::unique_ptr<QMenu> menu = gridView->contextMenuFor({0, 5});
    auto* group = menu->findChild<QMenu*>(QStringLiteral("ablateGroupMenu"));
    QVERIFY(group && group->isEnabled());
    findAction(group, "ablateGroupZero")->trigger();
    QCOMPARE(s->ablations().size(), std::size_t{1});
    QVERIFY(s->ablations().front().kvGroup);
    QCOMPARE(s->ablations().front().target, 1);
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 4}, AblationKind::Zero), 20000);
    for (int h = 0; h < 8; ++h) {
        QCOMPARE(s->result()->forward.ablationOf({0, h}).has_value(), h >= 4);
    }
    // One head of the group on its own replaces the group's ablation.
    s->ablateHead({0, 6}, AblationKind::Sink);
    QCOMPARE(s->ablations().size(), std::size_t{1});
    QVERIFY(!s->ablations().front().kvGroup);
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 6}, AblationKind::Sink), 20000);
    QVERIFY(!s->result()->forward.ablationOf({0, 4}));
}

void AblationTest::meanAblationUsesTheTreebankWhenLoaded() {
    AnalysisSession* s = open(kBert, kMasked);
    QVERIFY(s);
    s->ablateHead({0, 1}, AblationKind::Mean);
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 1}, AblationKind::Mean), 20000);
    QCOMPARE(s->meanSource(), QStringLiteral("the current sentence"));
    const auto overSentence = s->result();
    auto* status = m_window->findChild<QLabel*>(QStringLiteral("statusCompute"));
    QVERIFY2(status->text().contains(QStringLiteral("the current sentence")),
             qPrintable(status->text()));

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("three.conllu"));
    QVERIFY(paneltest::writeText(
        path,
        QString::fromUtf8(
            "# text = the dog ran home .\n"
            "1\tthe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
            "3\tran\trun\tVERB\t_\t_\t0\troot\t_\t_\n4\thome\thome\tADV\t_\t_\t3\tadvmod\t_\t_\n"
            "5\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_\n\n"
            "# text = a cat sat .\n"
            "1\ta\ta\tDET\t_\t_\t2\tdet\t_\t_\n2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
            "3\tsat\tsit\tVERB\t_\t_\t0\troot\t_\t_\n4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_\n\n")));
    s->setTreebank(std::make_shared<const Treebank>(Treebank::read(path, {})));
    QTRY_VERIFY_WITH_TIMEOUT(s->meanSource() == QStringLiteral("2 sentences of three.conllu"),
                             20000);
    QVERIFY(shows(s, {0, 1}, AblationKind::Mean));
    // Other means, so the heads downstream see another output.
    QVERIFY(!sameFloats(s->result()->forward.entropy, overSentence->forward.entropy));
    QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("three.conllu")), 5000);
}

void AblationTest::newModelClearsAblations() {
    AnalysisSession* s = open(kBert, kMasked);
    QVERIFY(s);
    s->ablateHead({1, 1}, AblationKind::Zero);
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {1, 1}, AblationKind::Zero), 20000);
    QSignalSpy changed(s, &AnalysisSession::ablationsChanged);
    QVERIFY(open(kGpt2, QStringLiteral("the keys to the cabinet")));
    QVERIFY(s->ablations().empty());
    QCOMPARE(changed.count(), 1);
    auto* bar = m_window->findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY2(bar->text().contains(QStringLiteral("Ablations cleared")), qPrintable(bar->text()));
    QVERIFY(s->result()->forward.interventions.empty());
    QCOMPARE(s->cleanResult(), s->result());
}

void AblationTest::predictionsShowCleanAndAblated() {
    for (const QString& model : {kBert, kGpt2}) {
        AnalysisSession* s = open(model, model == kBert ? kMasked : QStringLiteral("the keys to"));
        QVERIFY(s);
        auto* panel = m_window->findChild<PredictionPanel*>(QStringLiteral("predictionPanel"));
        QTRY_COMPARE_WITH_TIMEOUT(panel->bars()->predictions().size(), std::size_t{5}, 20000);
        QVERIFY(!panel->comparing());
        QVERIFY(panel->bars()->notes().empty());
        const auto cleanTop = panel->bars()->predictions();

        for (int h = 0; h < 3; ++h) {  // every head of the last layer: a visible change
            s->ablateHead({1, h}, AblationKind::Zero);
        }
        QTRY_VERIFY_WITH_TIMEOUT(panel->comparing(), 20000);
        QCOMPARE(panel->cleanBars()->predictions().size(), std::size_t{5});
        QCOMPARE(panel->cleanBars()->predictions().front().id, cleanTop.front().id);
        QCOMPARE(panel->bars()->predictions().size(), std::size_t{5});
        QCOMPARE(panel->bars()->notes().size(), std::size_t{5});
        QCOMPARE(panel->cleanBars()->notes().size(), std::size_t{5});
        // Each clean token's note: its Δp and its rank in the ablated pass.
        const auto& p = s->predictions();
        const double delta = p.cleanTopInAblated.front().otherProbability -
                             static_cast<double>(p.cleanTop.front().probability);
        QVERIFY2(panel->cleanBars()->notes().front().text.endsWith(
                     QStringLiteral("#%1").arg(p.cleanTopInAblated.front().otherRank)),
                 qPrintable(panel->cleanBars()->notes().front().text));
        QCOMPARE(panel->cleanBars()->notes().front().change, delta);
        QVERIFY(p.position == s->predictionPosition());

        s->clearAblations();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->comparing() && panel->bars()->predictions().size() == 5,
                                 20000);
        QCOMPARE(panel->bars()->predictions().front().id, cleanTop.front().id);
    }
}

void AblationTest::overBudgetHeadsComeFromTheAblatedPass() {
    AnalysisSession* s = m_window->session();
    s->setMapBudgetBytes(1);  // nothing fits: summaries only, heads recomputed on demand
    QVERIFY(open(kBert, kMasked));
    QVERIFY(!s->result()->forward.mapsRecorded);
    s->ablateHead({0, 0}, AblationKind::Sink);
    QTRY_VERIFY_WITH_TIMEOUT(shows(s, {0, 0}, AblationKind::Sink), 20000);
    QVERIFY(!s->result()->forward.mapsRecorded);
    QVERIFY(s->ablationEffects());
    // The views ask for the heads they show; any other head is asked of the service too.
    QTRY_VERIFY_WITH_TIMEOUT(s->headRecords().get({0, 0}) != nullptr, 20000);
    QCOMPARE(s->headRecords().get({0, 0})->probs.col(0).minCoeff(), 1.0f);
    s->headRecords().get({1, 1});
    QTRY_VERIFY_WITH_TIMEOUT(s->headRecords().get({1, 1}) != nullptr, 20000);
    const auto model = s->model();
    const forward::HeadRecord expected =
        forward::recomputeHead(*model, s->result()->forward, {1, 1});
    const forward::HeadRecord clean =
        forward::recomputeHead(*model, s->cleanResult()->forward, {1, 1});
    QVERIFY(s->headRecords().get({1, 1})->probs == expected.probs);
    QVERIFY(!(expected.probs == clean.probs));
}

QTEST_MAIN(AblationTest)
#include "ablation_test.moc"
