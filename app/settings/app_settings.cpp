#include "settings/app_settings.h"

#include "render/colormap.h"

namespace attnscope::app {

namespace {

QString key(const char* name) {
    return QString::fromLatin1(name);
}

}  // namespace

bool AppSettings::darkPalette() const {
    const QVariant v = m_settings.value(key(settings_key::kDarkPalette));
    return v.canConvert<bool>() && v.toBool();
}

void AppSettings::setDarkPalette(bool on) {
    m_settings.setValue(key(settings_key::kDarkPalette), on);
}

render::HeatmapStyle AppSettings::heatmapStyle() const {
    render::HeatmapStyle style;
    // Each leaves its argument alone for an unknown name, which keeps the default.
    render::colormapFromName(m_settings.value(key(settings_key::kColormap)).toString(),
                             &style.colormap);
    render::scalingFromName(m_settings.value(key(settings_key::kScaling)).toString(),
                            &style.scaling);
    return style;
}

void AppSettings::setHeatmapStyle(const render::HeatmapStyle& style) {
    m_settings.setValue(key(settings_key::kColormap), render::colormapName(style.colormap));
    m_settings.setValue(key(settings_key::kScaling), render::scalingName(style.scaling));
}

QString AppSettings::lastModel() const {
    return m_settings.value(key(settings_key::kLastModel)).toString();
}

void AppSettings::setLastModel(const QString& path) {
    m_settings.setValue(key(settings_key::kLastModel), path);
}

QStringList AppSettings::recentModels() const {
    QStringList recent = m_settings.value(key(settings_key::kRecentModels)).toStringList();
    recent.removeAll(QString());
    recent.removeDuplicates();
    while (recent.size() > kMaxRecentModels) {
        recent.removeLast();
    }
    return recent;
}

void AppSettings::setRecentModels(const QStringList& paths) {
    m_settings.setValue(key(settings_key::kRecentModels), paths);
}

QStringList AppSettings::withRecentModel(QStringList recent, const QString& path) {
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecentModels) {
        recent.removeLast();
    }
    return recent;
}

QString AppSettings::lastText(const QString& fallback) const {
    const QVariant v = m_settings.value(key(settings_key::kLastText));
    return v.isValid() ? v.toString() : fallback;
}

void AppSettings::setLastText(const QString& text) {
    m_settings.setValue(key(settings_key::kLastText), text);
}

std::size_t AppSettings::mapBudgetBytes() const {
    bool ok = false;
    const qulonglong mib = m_settings.value(key(settings_key::kMapBudgetMiB)).toULongLong(&ok);
    return std::size_t{ok && mib <= kMaxMapBudgetMiB ? static_cast<unsigned>(mib)
                                                     : kDefaultMapBudgetMiB}
           << 20;
}

void AppSettings::setMapBudgetBytes(std::size_t bytes) {
    m_settings.setValue(key(settings_key::kMapBudgetMiB), static_cast<qulonglong>(bytes >> 20));
}

QByteArray AppSettings::windowGeometry() const {
    return m_settings.value(key(settings_key::kWindowGeometry)).toByteArray();
}

void AppSettings::setWindowGeometry(const QByteArray& geometry) {
    m_settings.setValue(key(settings_key::kWindowGeometry), geometry);
}

QByteArray AppSettings::windowState() const {
    return m_settings.value(key(settings_key::kWindowState)).toByteArray();
}

void AppSettings::setWindowState(const QByteArray& state) {
    m_settings.setValue(key(settings_key::kWindowState), state);
}

void AppSettings::forgetWindowState() {
    m_settings.remove(key(settings_key::kWindowState));
}

}  // namespace attnscope::app
