// AppSettings (issue 15): every key round-trips through its typed accessor, and a stored value
// that is missing, of the wrong type or out of range reads as the default.
#include "settings/app_settings.h"

#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include "panel_test_support.h"

namespace attnscope::app {

class AppSettingsTest : public QObject {
    Q_OBJECT

private slots:

    void initTestCase() {
        paneltest::usePanelTestSettings(QStringLiteral("AttnScopeAppSettingsTest"));
    }

    void init() { QSettings().clear(); }

    void emptySettingsGiveTheDefaults() {
        const AppSettings s;
        QCOMPARE(s.darkPalette(), false);
        QCOMPARE(s.mapBudgetBytes(), std::size_t{AppSettings::kDefaultMapBudgetMiB} << 20);
        QCOMPARE(s.lastModel(), QString());
        QCOMPARE(s.recentModels(), QStringList());
        QCOMPARE(s.lastText(QStringLiteral("sample")), QStringLiteral("sample"));
        QCOMPARE(s.heatmapStyle().colormap, render::HeatmapStyle().colormap);
        QCOMPARE(s.heatmapStyle().scaling, render::HeatmapStyle().scaling);
        QVERIFY(s.windowState().isEmpty());
    }

    void valuesRoundTrip() {
        {
            AppSettings s;
            s.setDarkPalette(true);
            s.setMapBudgetBytes(std::size_t{256} << 20);
            s.setLastModel(QStringLiteral("/models/bert"));
            s.setRecentModels({QStringLiteral("/models/bert"), QStringLiteral("/models/gpt2")});
            s.setLastText(QString());  // an empty sentence is a sentence, not "none"
            s.setHeatmapStyle({render::Colormap::Magma, render::Scaling::Log});
            s.setWindowState(QByteArray("state"));
        }
        const AppSettings s;
        QCOMPARE(s.darkPalette(), true);
        QCOMPARE(s.mapBudgetBytes(), std::size_t{256} << 20);
        QCOMPARE(s.lastModel(), QStringLiteral("/models/bert"));
        QCOMPARE(s.recentModels(),
                 QStringList({QStringLiteral("/models/bert"), QStringLiteral("/models/gpt2")}));
        QCOMPARE(s.lastText(QStringLiteral("sample")), QString());
        QCOMPARE(s.heatmapStyle().colormap, render::Colormap::Magma);
        QCOMPARE(s.heatmapStyle().scaling, render::Scaling::Log);
        QCOMPARE(s.windowState(), QByteArray("state"));
        AppSettings().forgetWindowState();
        QVERIFY(AppSettings().windowState().isEmpty());
    }

    // Before issue 15 a budget that was not a number read as 0 MiB: every sentence was "over
    // budget" and every head was recomputed on sight.
    void corruptValuesReadAsTheDefaults() {
        QSettings raw;
        raw.setValue(QString::fromLatin1(settings_key::kMapBudgetMiB), QStringLiteral("lots"));
        raw.setValue(QString::fromLatin1(settings_key::kColormap), QStringLiteral("rainbow"));
        raw.sync();
        const AppSettings s;
        QCOMPARE(s.mapBudgetBytes(), std::size_t{AppSettings::kDefaultMapBudgetMiB} << 20);
        QCOMPARE(s.heatmapStyle().colormap, render::HeatmapStyle().colormap);
        raw.setValue(QString::fromLatin1(settings_key::kMapBudgetMiB),
                     qulonglong{AppSettings::kMaxMapBudgetMiB} + 1);
        raw.sync();
        QCOMPARE(AppSettings().mapBudgetBytes(),
                 std::size_t{AppSettings::kDefaultMapBudgetMiB} << 20);
    }

    void recentModelsAreNewestFirstWithoutRepeats() {
        QStringList recent;
        for (int i = 0; i < AppSettings::kMaxRecentModels + 3; ++i) {
            recent = AppSettings::withRecentModel(recent, QStringLiteral("/m/%1").arg(i));
        }
        recent = AppSettings::withRecentModel(recent, QStringLiteral("/m/5"));
        QCOMPARE(recent.size(), AppSettings::kMaxRecentModels);
        QCOMPARE(recent.front(), QStringLiteral("/m/5"));
        QCOMPARE(recent.count(QStringLiteral("/m/5")), 1);
    }
};

}  // namespace attnscope::app

QTEST_MAIN(attnscope::app::AppSettingsTest)
#include "app_settings_test.moc"
