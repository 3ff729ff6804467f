// The main window's Alignment tab (issue 20): on an encoder-decoder model it shows
// crossAlignment of the session's source-and-target analysis and follows the head picked for
// cross-attention; on a one-stack model it says the view is for encoder-decoder models.
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

#include "analyses/alignment/alignment_grid.h"
#include "analyses/alignment/alignment_view.h"
#include "attnscope/analysis/seq2seq_analysis.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"

using namespace attnscope;
using namespace attnscope::app;

class AlignmentTabTest : public QObject {
    Q_OBJECT

private slots:

    void initTestCase() { paneltest::usePanelTestSettings(QStringLiteral("AttnScopeTest")); }

    void init() { m_window = paneltest::shownWindow(); }

    void cleanup() { m_window.reset(); }

    void showsTheSessionsAlignmentAndFollowsTheCrossHead() {
        open(QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/seq2seq/bart_tok_f32"));
        QVERIFY(paneltest::typeSourceAndTarget(*m_window, QStringLiteral("The keys to the cabinet"),
                                               QStringLiteral("attention heads look")));
        AnalysisSession* s = m_window->session();
        AlignmentView* view = alignmentView();
        QCOMPARE(view->analysis(), s->seq2seq());
        const auto& cross = s->seq2seq()->cross.forward;
        QCOMPARE(view->layer(), cross.nLayers - 1);
        QCOMPARE(view->head(), -1);
        QVERIFY(view->grid()->cells().weights ==
                analysis::crossAlignment(*s->seq2seq(), cross.nLayers - 1, -1).weights);
        QCOMPARE(view->grid()->cells().targets, (QStringList{"attention", "heads", "look"}));
        if (const QString dir = qEnvironmentVariable("ATTNSCOPE_SHOT_DIR"); !dir.isEmpty()) {
            shot(dir, view);
        }
        s->selectHead({0, 1});
        QCOMPARE(view->layer(), 0);
        QCOMPARE(view->head(), 1);
        QVERIFY(view->grid()->cells().weights ==
                analysis::crossAlignment(*s->seq2seq(), 0, 1).weights);
    }

    void oneStackModelsGetTheEmptyState() {
        open(QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/bert_f32"));
        QTest::keyClicks(m_window->findChild<QLineEdit*>(QStringLiteral("sentenceEdit")),
                         QStringLiteral("The keys"));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->session()->result() != nullptr, 20000);
        QCOMPARE(alignmentView()->placeholder(), AlignmentView::oneStackText());
    }

private:
    void open(const QString& dir) { QVERIFY(paneltest::openModelIn(*m_window, dir, 20000)); }

    // For people to look at: the tab in a 1024 × 700 window.
    void shot(const QString& dir, AlignmentView* view) {
        auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
        tabs->setCurrentWidget(view);
        m_window->resize(1024, 700);
        QTest::qWait(300);
        m_window->grab().save(dir + QStringLiteral("/alignment-window-1024x700.png"));
    }

    AlignmentView* alignmentView() const {
        auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
        auto* view = m_window->findChild<AlignmentView*>(QStringLiteral("alignmentView"));
        if (!tabs || !view || tabs->tabText(tabs->indexOf(view)) != QStringLiteral("Alignment")) {
            qFatal("no Alignment tab");
        }
        return view;
    }

    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(AlignmentTabTest)
#include "alignment_tab_test.moc"
