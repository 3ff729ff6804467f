// Issue 15, defect 10: text longer than the model's positions used to end in an error and
// nothing else. Now the message bar offers to truncate; taking the offer computes the longest
// prefix that fits (analysis::fittingPrefix), keeps the user's text in the sentence field, and
// says so in the status bar.
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include "attnscope/analysis/truncation.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "widgets/message_bar.h"

using namespace attnscope;
using namespace attnscope::app;

class LongInputTest : public QObject {
    Q_OBJECT

private slots:

    void initTestCase() {
        paneltest::usePanelTestSettings(QStringLiteral("AttnScopeLongInputTest"));
    }

    void offersToTruncateAndKeepsTheText();
};

void LongInputTest::offersToTruncateAndKeepsTheText() {
    MainWindow window;
    QVERIFY(paneltest::showWithModel(window, paneltest::checkpointDir("bert_f32")));
    AnalysisSession* session = window.session();
    const auto model = session->model();
    const int limit = model->spec.maxTokens();

    QString text;
    for (int i = 0; static_cast<int>(model->tokenizer->encode(text.toStdString()).size()) <= limit;
         ++i) {
        text += QStringLiteral("the cat sat on the mat %1 ").arg(i);
    }
    text = text.trimmed();
    QSignalSpy tooLong(session, &AnalysisSession::inputTooLong);
    auto* edit = window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    edit->setText(text);
    QVERIFY(tooLong.wait(20000));
    QCOMPARE(tooLong.last().at(1).toInt(), limit);
    QVERIFY(!session->result());
    auto* bar = window.findChild<MessageBar*>(QStringLiteral("messageBar"));
    QVERIFY(bar->text().contains(QString::number(limit)));
    auto* action = bar->findChild<QPushButton*>(QStringLiteral("messageAction"));
    QVERIFY(action && action->isVisible());

    QTest::mouseClick(action, Qt::LeftButton);
    const std::string prefix = analysis::fittingPrefix(*model->tokenizer, text.toStdString(),
                                                       static_cast<std::size_t>(limit));
    QVERIFY(!prefix.empty());
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->result()->text == prefix, 20000);
    QVERIFY(session->result()->forward.nTokens <= limit);
    QCOMPARE(edit->text(), text);  // the user's text is all still there
    QVERIFY(session->resultIsTruncated());
    auto* status = window.findChild<QLabel*>(QStringLiteral("statusCompute"));
    QVERIFY(status->text().contains(QStringLiteral("truncated")));
    QVERIFY(!bar->isVisible());
    // The Mask and scale panel shows the setting, and turning it off refuses the text again.
    auto* box = window.findChild<QCheckBox*>(QStringLiteral("truncateLongInput"));
    QVERIFY(box && box->isChecked());
    box->setChecked(false);
    QVERIFY(!session->truncateLongInput());
    QVERIFY(tooLong.wait(20000));
}

QTEST_MAIN(LongInputTest)
#include "long_input_test.moc"
