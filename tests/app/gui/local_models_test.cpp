// Issue 32: the start page and File ▸ Models on this computer list the GGUF models of
// llama.cpp's cache and Ollama's store beside the Hugging Face cache, each with its type,
// quantization, size and source; those AttnScope cannot open are greyed out with the reason as
// tool tip, and choosing one opens its file (an Ollama blob, named by its digest, included).
// The stores are fake ones in a scratch folder, named by $LLAMA_CACHE, $OLLAMA_MODELS and
// $HF_HUB_CACHE; the GGUF model that opens is the fixture's (gguf_checkpoints).
#include <QAction>
#include <QDir>
#include <QFile>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QTest>

#include "../../core/support/gguf_builder.h"
#include "main_window.h"
#include "panel_test_support.h"
#include "panels/welcome_page.h"
#include "service/compute_service.h"
#include "window_test.h"

namespace attnscope::app {

namespace {

const QString kFixtureGguf = QStringLiteral(ATTNSCOPE_FIXTURE_DIR "/gguf/llama_q8_0.gguf");
const QString kTinyHex = QString(64, QLatin1Char('a'));

// A GGUF header of an architecture AttnScope does not read.
QByteArray gemmaHeader() {
    testing::GgufBuilder b;
    b.text("general.architecture", "gemma3").u32("general.file_type", 15);
    b.tensor("token_embd.weight", {32, 8}, 0, std::string(32 * 8 * 4, '\0'));
    const std::string bytes = b.bytes();
    return QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()));
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QListWidgetItem* itemStartingWith(QListWidget* list, const QString& start) {
    for (int i = 0; i < list->count(); ++i) {
        if (list->item(i)->text().startsWith(start)) {
            return list->item(i);
        }
    }
    return nullptr;
}

}  // namespace

class LocalModelsTest : public paneltest::WindowTest {
    Q_OBJECT

private slots:

    void initTestCase() {
        useOwnSettings();
        QVERIFY(m_root.isValid());
        if (!QFile::exists(kFixtureGguf)) {
            QSKIP("no GGUF fixture (run the gguf_checkpoints fixture)");
        }
        const QString llama = m_root.filePath(QStringLiteral("llama.cpp"));
        const QString ollama = m_root.filePath(QStringLiteral("ollama"));
        QVERIFY(QDir().mkpath(m_root.filePath(QStringLiteral("hub"))));
        QVERIFY(QDir().mkpath(llama));
        QVERIFY(QFile::copy(kFixtureGguf, llama + QStringLiteral("/tiny-Q8_0.gguf")));
        QVERIFY(writeFile(llama + QStringLiteral("/gemma.gguf"), gemmaHeader()));
        m_blob = ollama + QStringLiteral("/blobs/sha256-") + kTinyHex;
        QVERIFY(QDir().mkpath(QFileInfo(m_blob).path()));
        QVERIFY(QFile::copy(kFixtureGguf, m_blob));
        const QString manifest =
            QStringLiteral(R"({"schemaVersion":2,"layers":[{"mediaType":)"
                           R"("application/vnd.ollama.image.model","digest":"sha256:%1",)"
                           R"("size":%2}]})")
                .arg(kTinyHex)
                .arg(QFileInfo(m_blob).size());
        QVERIFY(writeFile(ollama + QStringLiteral("/manifests/registry.ollama.ai/library/tiny/1b"),
                          manifest.toUtf8()));
        qputenv("HF_HUB_CACHE", m_root.filePath(QStringLiteral("hub")).toUtf8());
        qputenv("LLAMA_CACHE", llama.toUtf8());
        qputenv("OLLAMA_MODELS", ollama.toUtf8());
    }

    void theStartPageListsThemWithTheirLabels() {
        MainWindow window;
        paneltest::showWindow(window);
        window.findChild<QAction*>(QStringLiteral("openModelAction"))->trigger();
        auto* list = window.findChild<QListWidget*>(QStringLiteral("welcomeModels"));
        QVERIFY(list);
        QListWidgetItem* tiny =
            itemStartingWith(list, QStringLiteral("tiny-Q8_0\n    llama · Q8_0 · "));
        QVERIFY(tiny);
        QVERIFY2(tiny->text().endsWith(QStringLiteral(" MiB · llama.cpp")),
                 qPrintable(tiny->text()));
        QVERIFY(tiny->flags() & Qt::ItemIsEnabled);
        QVERIFY2(tiny->toolTip().contains(QStringLiteral("parameters")),
                 qPrintable(tiny->toolTip()));
        QListWidgetItem* gemma =
            itemStartingWith(list, QStringLiteral("gemma\n    gemma3 · Q4_K_M · "));
        QVERIFY(gemma);
        QVERIFY(!(gemma->flags() & Qt::ItemIsEnabled));
        QVERIFY2(
            gemma->toolTip().contains(QStringLiteral("\narchitecture 'gemma3' is not supported")),
            qPrintable(gemma->toolTip()));
        QListWidgetItem* ollama =
            itemStartingWith(list, QStringLiteral("tiny:1b\n    llama · Q8_0 · "));
        QVERIFY(ollama);
        QVERIFY(ollama->text().endsWith(QStringLiteral(" · Ollama")));
        QVERIFY(list->row(tiny) < list->row(ollama));  // llama.cpp before Ollama

        // The Ollama blob has no .gguf name; it opens all the same.
        QSignalSpy loaded(window.service(), &ComputeService::loadFinished);
        emit list->itemActivated(ollama);
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.first().at(1).toString(), QFileInfo(m_blob).absoluteFilePath());
        QVERIFY(loaded.first().at(0).toBool());
        QCOMPARE(window.findChild<QStackedWidget*>(QStringLiteral("pages"))->currentWidget(),
                 window.findChild<QWidget*>(QStringLiteral("viewTabs")));
        // It is called by its tag, not by its blob's sha256-<hex> name: in the title and as a
        // recent model on the start page (the path in its tool tip).
        QTRY_COMPARE(window.windowTitle(), QStringLiteral("AttnScope — tiny:1b"));
        window.findChild<QAction*>(QStringLiteral("openModelAction"))->trigger();
        QListWidgetItem* recent =
            itemStartingWith(list, QStringLiteral("tiny:1b · Ollama  (recent)"));
        QVERIFY(recent);
        QCOMPARE(recent->toolTip(), QFileInfo(m_blob).absoluteFilePath());
    }

    void theFileMenuListsThemToo() {
        MainWindow window;
        paneltest::showWindow(window);
        auto* menu = window.findChild<QMenu*>(QStringLiteral("cacheMenu"));
        QVERIFY(menu);
        QVERIFY(menu->toolTipsVisible());
        emit menu->aboutToShow();
        QAction* tiny = nullptr;
        QAction* gemma = nullptr;
        for (QAction* a : menu->actions()) {
            tiny = a->text().startsWith(QStringLiteral("tiny-Q8_0 · llama")) ? a : tiny;
            gemma = a->text().startsWith(QStringLiteral("gemma · gemma3")) ? a : gemma;
        }
        QVERIFY(tiny && gemma);
        QVERIFY(tiny->isEnabled());
        QVERIFY(!gemma->isEnabled());
        QVERIFY(gemma->toolTip().contains(QStringLiteral("gemma3")));
        QSignalSpy started(window.service(), &ComputeService::loadStarted);
        tiny->trigger();
        QCOMPARE(started.count(), 1);
        QVERIFY(started.first().at(0).toString().endsWith(QStringLiteral("/tiny-Q8_0.gguf")));
    }

    // A GGUF file can be picked by hand too: a second button and File entry beside the folder's.
    void aGgufFileCanBeChosenByHand() {
        MainWindow window;
        paneltest::showWindow(window);
        QVERIFY(window.findChild<QPushButton*>(QStringLiteral("welcomeOpenFile")));
        QVERIFY(paneltest::findMenuAction(&window, QStringLiteral("openGgufAction")));
    }

private:
    QTemporaryDir m_root;
    QString m_blob;
};

}  // namespace attnscope::app

QTEST_MAIN(attnscope::app::LocalModelsTest)
#include "local_models_test.moc"
