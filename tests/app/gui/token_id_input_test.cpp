// Issue 30, item 12: a model folder without tokenizer files. The sentence field takes token ids
// ("2, 5 7"), as attnscope-cli --token-ids does; each is checked against the vocabulary with an
// error beside the field, nothing is recomputed while one is wrong, and the views label the
// tokens by their ids. Before, the message bar asked for token ids and no field took them.
#include "session/token_id_input.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "attnscope/analysis/sentence_analysis.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"
#include "widgets/message_bar.h"
#include "widgets/sentence_field.h"

using namespace attnscope;
using namespace attnscope::app;

namespace {

const QString kCheckpoint = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/checkpoints/bert_f32");

}  // namespace

class TokenIdInputTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void parses_data();
    void parses();
    void sentenceFieldTakesIds();

private:
    QTemporaryDir m_dir;
    QString m_model;  // bert_f32 without its tokenizer files
};

void TokenIdInputTest::initTestCase() {
    paneltest::usePanelTestSettings(QStringLiteral("AttnScopeTokenIdInputTest"));
    QVERIFY(m_dir.isValid());
    m_model = m_dir.filePath(QStringLiteral("bert-no-tokenizer"));
    QVERIFY(QDir().mkpath(m_model));
    for (const char* name : {"config.json", "model.safetensors"}) {
        const QString file = QString::fromLatin1(name);
        QVERIFY2(
            QFile::copy(kCheckpoint + QLatin1Char('/') + file, m_model + QLatin1Char('/') + file),
            qPrintable(kCheckpoint + QLatin1Char('/') + file));
    }
}

void TokenIdInputTest::parses_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<int>>("ids");
    QTest::addColumn<QString>("error");  // a part of the message; empty: none
    QTest::addColumn<int>("errorStart");
    QTest::newRow("commas and spaces") << "101, 7592 102" << QList<int>{101, 7592, 102} << "" << -1;
    QTest::newRow("empty parts skipped") << " 1,,2 ,\t3, " << QList<int>{1, 2, 3} << "" << -1;
    QTest::newRow("nothing") << "" << QList<int>{} << "" << -1;
    QTest::newRow("last id") << "29999" << QList<int>{29999} << "" << -1;
    QTest::newRow("not a number") << "5, 12a, 7" << QList<int>{5}
                                  << "“12a” is not a token id (whole numbers 0 … 29999" << 3;
    QTest::newRow("negative") << "-3" << QList<int>{} << "“-3” is not a token id" << 0;
    QTest::newRow("text") << "The keys" << QList<int>{} << "“The” is not a token id" << 0;
    QTest::newRow("vocabulary size")
        << "1 30000" << QList<int>{1} << "id 30000 (token 1) is outside the vocabulary (0 … 29999)"
        << 2;
    QTest::newRow("beyond int64") << "99999999999999999999999" << QList<int>{}
                                  << "is outside the vocabulary" << 0;
}

void TokenIdInputTest::parses() {
    QFETCH(QString, text);
    QFETCH(QList<int>, ids);
    QFETCH(QString, error);
    QFETCH(int, errorStart);
    const TokenIdList parsed = parseTokenIds(text, 30000);
    QCOMPARE(QList<int>(parsed.ids.begin(), parsed.ids.end()), ids);
    QCOMPARE(parsed.ok(), error.isEmpty());
    QVERIFY2(parsed.error.contains(error), qPrintable(parsed.error));
    QCOMPARE(parsed.errorStart, errorStart);
}

void TokenIdInputTest::sentenceFieldTakesIds() {
    auto window = paneltest::windowWithModel(m_model);
    QVERIFY(window);
    AnalysisSession* session = window->session();
    const auto model = session->model();
    QVERIFY(model && !model->tokenizer);
    QVERIFY(session->takesTokenIds());
    auto* field = window->findChild<SentenceField*>(QStringLiteral("sentenceField"));
    auto* edit = window->findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    QVERIFY(field && edit);
    QVERIFY(edit->placeholderText().contains(QStringLiteral("token ids")));
    QVERIFY(field->findChild<QLabel*>()->text().contains(QStringLiteral("Token ids")));

    // Typed ids run the model, labelled by their numbers (no vocabulary in the folder), and give
    // what the core gives for those ids.
    const int vocab = model->spec.vocabSize;
    edit->setText(QStringLiteral("2, 5 %1").arg(vocab - 1));
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->result()->forward.nTokens == 3, 20000);
    const auto result = session->result();
    QCOMPARE(result->forward.tokenIds, (std::vector<std::int32_t>{2, 5, vocab - 1}));
    QCOMPARE(QString::fromStdString(result->label(2)), QString::number(vocab - 1));
    const analysis::SentenceAnalysis core =
        analysis::analyzeIds(*model, {2, 5, vocab - 1}, forward::ForwardOptions{});
    QVERIFY((result->forward.attention({1, 1}).array() == core.forward.attention({1, 1}).array())
                .all());
    QVERIFY(!session->resultIsTruncated());
    QVERIFY(field->errorText().isEmpty());
    auto* map = window->findChild<HeatmapWidget*>(QStringLiteral("headHeatmap"));
    QTRY_VERIFY(!map->image().isNull());
    QVERIFY2(map->cellToolTip(1, 2).contains(QString::number(vocab - 1)),
             qPrintable(map->cellToolTip(1, 2)));

    // An id outside the vocabulary: said beside the field, nothing recomputed.
    QSignalSpy started(window->service(), &ComputeService::computeStarted);
    edit->setText(QStringLiteral("2, 5, %1").arg(vocab));
    QTRY_VERIFY(!field->errorText().isEmpty());
    QVERIFY2(field->errorText().contains(
                 QStringLiteral("id %1 (token 2) is outside the vocabulary").arg(vocab)),
             qPrintable(field->errorText()));
    QVERIFY(window->findChild<QLabel*>(QStringLiteral("sentenceError"))->isVisible());
    QTest::qWait(100);
    QCOMPARE(started.count(), 0);
    QCOMPARE(session->result(), result);
    const QString shots = qEnvironmentVariable("ATTNSCOPE_SHOT_DIR");
    if (!shots.isEmpty()) {
        window->grab().save(shots + QStringLiteral("/token-ids-error.png"));
    }
    edit->setText(QStringLiteral("2, five"));
    QVERIFY(field->errorText().contains(QStringLiteral("“five” is not a token id")));

    // Fixed, the error goes and the ids run.
    edit->setText(QStringLiteral("7 8"));
    QVERIFY(field->errorText().isEmpty());
    QVERIFY(!window->findChild<QLabel*>(QStringLiteral("sentenceError"))->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->result()->forward.nTokens == 2, 20000);
    QCOMPARE(session->result()->forward.tokenIds, (std::vector<std::int32_t>{7, 8}));
    // The message bar says what was refused, never "no tokenizer" as a failure to run.
    auto* bar = window->findChild<MessageBar*>();
    QVERIFY(!bar->text().contains(QStringLiteral("cannot be turned into tokens")));
}

QTEST_MAIN(TokenIdInputTest)
#include "token_id_input_test.moc"
