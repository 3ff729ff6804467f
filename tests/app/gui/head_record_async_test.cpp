// Head records recomputed off the GUI thread (maps over the memory budget): the views say
// "Computing head L·H…" at once and draw the exact record when it arrives; quick head changes
// end on the last head asked for; a record of a sentence or model that has been replaced is
// never shown, and its running job is cancelled without an error; shutdown cancels the running
// job; the status bar names the head being computed; the core's errors reach the user; recorded
// maps stay synchronous.
#include <algorithm>
#include <memory>
#include <vector>

#include <QLabel>
#include <QLineEdit>
#include <QSemaphore>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QThreadPool>

#include "../../core/support/same_bits.h"
#include "analyses/compare/compare_view.h"
#include "analyses/offsets/offsets_view.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/head_record.h"
#include "main_window.h"
#include "pool_gate.h"
#include "render/heatmap_image.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"
#include "widgets/message_bar.h"

using namespace attnscope;
using namespace attnscope::app;
using attnscope::testing::sameRecord;

namespace {

constexpr int kTimeoutMs = 20000;
const QString kFirst = QStringLiteral("the quick brown fox jumps");
const QString kSecond = QStringLiteral("a lazy dog");

using attnscope::app::paneltest::PoolGate;

}  // namespace

class HeadRecordAsyncTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void showsComputingThenTheExactRecord();
    void quickHeadChangesEndOnTheLastHead();
    void newSentenceDuringRecomputeNeverShowsTheOldOne();
    void newModelDuringRecomputeKeepsTheOldAliveUntilDone();
    void statusBarNamesTheHeadBeingComputed();
    void shutdownCancelsTheRunningRecompute();
    void destroyingTheWindowDuringRecomputeReleasesEverything();
    void coreErrorsReachTheUser();
    void recordedMapsStaySynchronous();

private:
    // Opens the GPT-2 fixture with `budget` and types `text`; false on a timeout.
    bool openWith(MainWindow& window, std::size_t budget, const QString& text);
    // openWith(window, 0, kFirst), then waits until the heads first shown are recomputed.
    bool openIdle(MainWindow& window);
    // Types `text` and waits for its result.
    bool typeSentence(MainWindow& window, const QString& text);
    // The record of `head` in a full recording of the session's current tokens.
    forward::HeadRecord fullRecord(const AnalysisSession& session, HeadId head);
    QImage fullImage(const AnalysisSession& session, HeadId head);
};

namespace {

// Literal, not the app's own function, so the test pins the wording.
QString statusFor(HeadId head) {
    return QStringLiteral("Computing head %1·%2 (this sentence's maps are over the memory budget)…")
        .arg(head.layer)
        .arg(head.head);
}

}  // namespace

void HeadRecordAsyncTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("AttnScopeHeadRecordTest"));
}

bool HeadRecordAsyncTest::openWith(MainWindow& window, std::size_t budget, const QString& text) {
    window.resize(1400, 900);
    window.show();
    window.session()->setMapBudgetBytes(budget);
    QSignalSpy loaded(window.service(), &ComputeService::loadFinished);
    window.openModel(QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/gpt2_f32"));
    return loaded.wait(kTimeoutMs) && typeSentence(window, text);
}

bool HeadRecordAsyncTest::openIdle(MainWindow& window) {
    return openWith(window, 0, kFirst) &&
           QTest::qWaitFor([&] { return !window.service()->isComputingHeadRecords(); }, kTimeoutMs);
}

bool HeadRecordAsyncTest::typeSentence(MainWindow& window, const QString& text) {
    window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"))->setText(text);
    AnalysisSession* session = window.session();
    return QTest::qWaitFor(
        [&] { return session->result() && session->result()->text == text.toStdString(); },
        kTimeoutMs);
}

forward::HeadRecord HeadRecordAsyncTest::fullRecord(const AnalysisSession& session, HeadId head) {
    const forward::ForwardResult full =
        forward::runForward(*session.model(), {session.result()->forward.tokenIds, {}});
    return forward::headRecord(*session.model(), full, head);
}

QImage HeadRecordAsyncTest::fullImage(const AnalysisSession& session, HeadId head) {
    return render::heatmapImage(fullRecord(session, head).probs, &session.result()->forward.allowed,
                                session.heatmapStyle());
}

void HeadRecordAsyncTest::showsComputingThenTheExactRecord() {
    MainWindow window;
    QVERIFY(openWith(window, 0, kFirst));
    AnalysisSession* session = window.session();
    QVERIFY(!session->result()->forward.mapsRecorded);
    auto* heatmap = window.findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    auto* compare = window.findChild<CompareView*>(QStringLiteral("compareView"));
    auto* offsets = window.findChild<OffsetsView*>(QStringLiteral("offsetsView"));
    QSignalSpy arrived(&session->headRecords(), &HeadRecords::changed);

    const HeadId head{1, 2};
    session->selectHead(head);
    // At once, before any event is processed: a clear computing state, not an old or blank map.
    QVERIFY(heatmap->image().isNull());
    QVERIFY2(heatmap->placeholder().startsWith(QStringLiteral("Computing head 1·2…")),
             qPrintable(heatmap->placeholder()));
    QVERIFY(compare->heatmapA()->placeholder().startsWith(QStringLiteral("Computing head 1·2…")));
    QVERIFY(!offsets->hasResult());
    QVERIFY(offsets->findChild<QLabel*>(QStringLiteral("offsetsPlaceholder"))
                ->text()
                .startsWith(QStringLiteral("Computing head 1·2…")));
    QVERIFY(session->headRecords().waitsFor(head));

    QVERIFY(arrived.wait(kTimeoutMs));
    QTRY_VERIFY_WITH_TIMEOUT(!window.service()->isComputingHeadRecords(), kTimeoutMs);
    const auto record = session->headRecords().get(head);
    QVERIFY(record);
    QVERIFY(sameRecord(*record, fullRecord(*session, head)));
    QCOMPARE(heatmap->image(), fullImage(*session, head));
    QVERIFY(heatmap->placeholder().isEmpty());
    QVERIFY(offsets->hasResult());
    QVERIFY(!compare->heatmapA()->image().isNull());
}

void HeadRecordAsyncTest::quickHeadChangesEndOnTheLastHead() {
    MainWindow window;
    QVERIFY(openIdle(window));
    AnalysisSession* session = window.session();
    QSignalSpy started(window.service(), &ComputeService::headRecordStarted);
    auto* heatmap = window.findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));

    // Faster than any event is processed: only the last head should be computed.
    const std::vector<HeadId> steps = {{0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
    for (const HeadId h : steps) {
        session->selectHead(h);
    }
    const QImage expected = fullImage(*session, steps.back());
    QTRY_COMPARE_WITH_TIMEOUT(heatmap->image(), expected, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!window.service()->isComputingHeadRecords(), kTimeoutMs);
    QCOMPARE(heatmap->image(), expected);
    QCOMPARE(session->selectedHead(), steps.back());
    for (const QList<QVariant>& args : started) {
        const auto h = args.at(0).value<HeadId>();
        QVERIFY2(h == steps.back() || h == session->compareHead(), h.toString().c_str());
    }

    // And by keyboard, with events processed between the steps: still the last head.
    auto* view = window.findChild<QWidget*>(QStringLiteral("headView"));
    for (int i = 0; i < 3; ++i) {
        QTest::keyClick(view, Qt::Key_Left);
        QTest::qWait(1);
    }
    const HeadId last{0, 2};
    QCOMPARE(session->selectedHead(), last);
    QTRY_COMPARE_WITH_TIMEOUT(heatmap->image(), fullImage(*session, last), kTimeoutMs);
}

void HeadRecordAsyncTest::newSentenceDuringRecomputeNeverShowsTheOldOne() {
    MainWindow window;
    QVERIFY(openIdle(window));
    AnalysisSession* session = window.session();
    auto* heatmap = window.findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    QSignalSpy started(window.service(), &ComputeService::headRecordStarted);
    QSignalSpy finished(window.service(), &ComputeService::headRecordFinished);
    const HeadId head{1, 1};
    const QImage oldImage = fullImage(*session, head);

    PoolGate gate(window.service()->headRecordPool());
    session->selectHead(head);
    QVERIFY(started.wait(kTimeoutMs));  // the old sentence's job now waits in the pool
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.at(0).at(0).value<HeadId>(), head);
    QVERIFY(typeSentence(window, kSecond));  // cancels that job before it reaches the core
    QVERIFY(heatmap->placeholder().startsWith(QStringLiteral("Computing head 1·1…")));

    // From here on, whatever the head view draws must be the new sentence's head.
    std::vector<QImage> shown;
    const auto record = [&] { shown.push_back(heatmap->image()); };
    connect(&session->headRecords(), &HeadRecords::changed, this, record);
    connect(session, &AnalysisSession::resultChanged, this, record);
    gate.open();
    const QImage expected = fullImage(*session, head);
    QVERIFY(expected != oldImage);
    QTRY_COMPARE_WITH_TIMEOUT(heatmap->image(), expected, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!window.service()->isComputingHeadRecords(), kTimeoutMs);
    disconnect(session, nullptr, this, nullptr);
    // The old job was cancelled (the core threw at its first check), then the new sentence's
    // ran; the compare view's head B comes on top.
    const auto startsOfHead = std::count_if(started.begin(), started.end(), [&](const auto& args) {
        return args.at(0).template value<HeadId>() == head;
    });
    QCOMPARE(startsOfHead, 2);
    QCOMPARE(finished.count(), started.count());
    QCOMPARE(finished.at(0).at(0).value<HeadId>(), head);
    QVERIFY(finished.at(0).at(1).toBool());
    for (qsizetype i = 1; i < finished.count(); ++i) {
        QVERIFY(!finished.at(i).at(1).toBool());  // the new sentence's heads: computed
    }
    for (const QImage& image : shown) {
        QVERIFY(image.isNull() || image == expected);
    }
    QVERIFY(sameRecord(*session->headRecords().get(head), fullRecord(*session, head)));
    // A cancel is no error, and nothing is left saying "Computing".
    QVERIFY(session->headRecords().error(head).isEmpty());
    auto* bar = window.findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY2(bar->text().isEmpty(), qPrintable(bar->text()));
    QVERIFY2(heatmap->placeholder().isEmpty(), qPrintable(heatmap->placeholder()));
    QVERIFY2(window.statusBar()->currentMessage().isEmpty(),
             qPrintable(window.statusBar()->currentMessage()));
}

void HeadRecordAsyncTest::newModelDuringRecomputeKeepsTheOldAliveUntilDone() {
    MainWindow window;
    QVERIFY(openIdle(window));
    AnalysisSession* session = window.session();
    QSignalSpy started(window.service(), &ComputeService::headRecordStarted);
    const auto bert = model::loadModel(ATTNSCOPE_FIXTURE_DIR "/checkpoints/bert_f32");
    std::weak_ptr<const model::Model> old = session->model();

    {
        PoolGate gate(window.service()->headRecordPool());
        session->selectHead({1, 0});
        QVERIFY(started.wait(kTimeoutMs));
        session->setModel(bert, QStringLiteral("bert_f32"));
        QVERIFY(!old.expired());  // the waiting job still reads it
    }
    QTRY_VERIFY_WITH_TIMEOUT(old.expired(), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->result()->text == kFirst.toStdString(),
                             kTimeoutMs);
    auto* heatmap = window.findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    QTRY_COMPARE_WITH_TIMEOUT(heatmap->image(), fullImage(*session, session->selectedHead()),
                              kTimeoutMs);
    auto* bar = window.findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY2(bar->text().isEmpty(), qPrintable(bar->text()));
}

void HeadRecordAsyncTest::statusBarNamesTheHeadBeingComputed() {
    MainWindow window;
    QVERIFY(openIdle(window));
    AnalysisSession* session = window.session();
    QSignalSpy started(window.service(), &ComputeService::headRecordStarted);
    QSignalSpy finished(window.service(), &ComputeService::headRecordFinished);
    QStatusBar* status = window.statusBar();
    QVERIFY(status->currentMessage().isEmpty());

    PoolGate gate(window.service()->headRecordPool());
    const HeadId head{1, 2};
    session->selectHead(head);
    QVERIFY(started.wait(kTimeoutMs));
    QCOMPARE(started.at(0).at(0).value<HeadId>(), head);
    QCOMPARE(status->currentMessage(), statusFor(head));  // held in flight by the gate
    gate.open();
    QTRY_VERIFY_WITH_TIMEOUT(!window.service()->isComputingHeadRecords(), kTimeoutMs);
    QVERIFY2(status->currentMessage().isEmpty(), qPrintable(status->currentMessage()));
    QVERIFY(!finished.isEmpty());
    QVERIFY(!finished.at(0).at(1).toBool());

    // Another message shown meanwhile (an export's "Wrote …") is not cleared by the head's end.
    PoolGate again(window.service()->headRecordPool());
    const HeadId other{1, 0};  // not {0, 1}: the Compare tab's B, already recomputed
    session->selectHead(other);
    QVERIFY(started.wait(kTimeoutMs));
    QCOMPARE(status->currentMessage(), statusFor(started.last().at(0).value<HeadId>()));
    status->showMessage(QStringLiteral("Wrote somewhere"));
    again.open();
    QTRY_VERIFY_WITH_TIMEOUT(!window.service()->isComputingHeadRecords(), kTimeoutMs);
    QCOMPARE(status->currentMessage(), QStringLiteral("Wrote somewhere"));
}

void HeadRecordAsyncTest::shutdownCancelsTheRunningRecompute() {
    MainWindow window;
    QVERIFY(openIdle(window));
    AnalysisSession* session = window.session();
    ComputeService* service = window.service();
    QSignalSpy started(service, &ComputeService::headRecordStarted);
    QSignalSpy finished(service, &ComputeService::headRecordFinished);

    PoolGate gate(service->headRecordPool());
    const HeadId head{1, 0};
    session->selectHead(head);
    QVERIFY(started.wait(kTimeoutMs));
    QCOMPARE(started.count(), 1);
    // The destructor's first step. Set before the job reaches the core, so the core must
    // throw Cancelled at its first check instead of computing the head.
    service->shutdown();
    gate.open();
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(0).value<HeadId>(), started.at(0).at(0).value<HeadId>());
    QVERIFY(finished.at(0).at(1).toBool());
    QVERIFY(!service->isComputingHeadRecords());  // the compare head's job was dropped
    QVERIFY(session->headRecords().error(head).isEmpty());
    auto* bar = window.findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY2(bar->text().isEmpty(), qPrintable(bar->text()));
    QVERIFY2(window.statusBar()->currentMessage().isEmpty(),
             qPrintable(window.statusBar()->currentMessage()));
    // Nothing new starts after shutdown: neither a head nor a forward pass.
    session->selectHead({0, 2});
    session->setText(kSecond);
    QVERIFY(!service->isComputingHeadRecords());
    QVERIFY(!service->isComputing());
}

void HeadRecordAsyncTest::destroyingTheWindowDuringRecomputeReleasesEverything() {
    auto window = std::make_unique<MainWindow>();
    QVERIFY(openIdle(*window));
    QSignalSpy started(window->service(), &ComputeService::headRecordStarted);
    std::weak_ptr<const model::Model> model = window->session()->model();
    std::weak_ptr<const analysis::SentenceAnalysis> result = window->session()->result();
    {
        PoolGate gate(window->service()->headRecordPool());
        window->session()->selectHead({1, 1});
        QVERIFY(started.wait(kTimeoutMs));
    }
    // The job is queued or running (or, on a slow machine, done): whichever, the destructor
    // cancels it, waits for it, and nothing of the sentence or model outlives the window.
    window.reset();
    // The predictions panel's job for this sentence runs on the global pool, which the window
    // does not own.
    QThreadPool::globalInstance()->waitForDone();
    QVERIFY(model.expired());
    QVERIFY(result.expired());
}

void HeadRecordAsyncTest::coreErrorsReachTheUser() {
    MainWindow window;
    QVERIFY(openIdle(window));
    AnalysisSession* session = window.session();
    QSignalSpy started(window.service(), &ComputeService::headRecordStarted);
    // A result without the layer inputs a recompute starts from: the core throws.
    auto broken = std::make_shared<analysis::SentenceAnalysis>(*session->result());
    broken->forward.layerInputs.clear();
    session->setResult(broken);
    auto* heatmap = window.findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    QVERIFY(heatmap->placeholder().startsWith(QStringLiteral("Computing head")));
    QTRY_VERIFY_WITH_TIMEOUT(heatmap->placeholder().startsWith(QStringLiteral("Could not compute")),
                             kTimeoutMs);
    auto* bar = window.findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY2(bar->text().contains(QStringLiteral("Could not recompute layer")),
             qPrintable(bar->text()));
    QVERIFY(!session->headRecords().error(session->selectedHead()).isEmpty());
    // A failed head is not asked for again and again.
    QTRY_VERIFY_WITH_TIMEOUT(!window.service()->isComputingHeadRecords(), kTimeoutMs);
    const auto count = started.count();
    session->selectHead({0, 2});
    session->selectHead({0, 0});
    QTest::qWait(50);
    QVERIFY(heatmap->placeholder().startsWith(QStringLiteral("Could not compute")));
    QVERIFY(started.count() <= count + 1);  // only head 0·2, which had not been tried
}

void HeadRecordAsyncTest::recordedMapsStaySynchronous() {
    MainWindow window;
    QVERIFY(openWith(window, std::size_t{1} << 30, kFirst));
    AnalysisSession* session = window.session();
    QVERIFY(session->result()->forward.mapsRecorded);
    QSignalSpy started(window.service(), &ComputeService::headRecordStarted);
    auto* heatmap = window.findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    session->selectHead({1, 2});
    // Drawn within selectHead itself: no computing state, no flicker.
    QCOMPARE(heatmap->image(), fullImage(*session, {1, 2}));
    QVERIFY(!window.service()->isComputingHeadRecords());
    QTest::qWait(20);
    QCOMPARE(started.count(), 0);
}

QTEST_MAIN(HeadRecordAsyncTest)
#include "head_record_async_test.moc"
