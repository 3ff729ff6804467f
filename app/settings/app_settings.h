// Every setting AttnScope keeps between runs: its QSettings key, its default and its type, in
// one place. A stored value that is missing, of the wrong type or out of range (an older build,
// a hand-edited file) reads as the default, so no caller repeats a key, a default or a check.
//
// Thread safety: like QSettings, one object per thread; objects on the same file may coexist.
#pragma once

#include <cstddef>

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>

#include "render/heatmap_image.h"

namespace attnscope::app {

namespace settings_key {
inline constexpr char kDarkPalette[] = "view/dark";
inline constexpr char kColormap[] = "view/colormap";
inline constexpr char kScaling[] = "view/scaling";
inline constexpr char kLastModel[] = "model/last";
inline constexpr char kRecentModels[] = "model/recent";
inline constexpr char kLastText[] = "text/last";
inline constexpr char kMapBudgetMiB[] = "compute/mapBudgetMiB";
inline constexpr char kWindowGeometry[] = "window/geometry";
inline constexpr char kWindowState[] = "window/state";
}  // namespace settings_key

class AppSettings {
public:
    // The version written into the saved dock layout (QMainWindow::saveState). Raise it when
    // the docks or their minimum sizes change, so that a layout saved by an older build (for
    // example one with docks squeezed below today's minimum, issue 15) is not restored.
    // 0: up to issue 14; 1: issue 15.
    static constexpr int kWindowStateVersion = 1;
    static constexpr int kMaxRecentModels = 8;
    // Keep every head's full map while a sentence's maps fit in this much memory.
    static constexpr unsigned kDefaultMapBudgetMiB = 1024;
    // Beyond any machine's memory; a larger stored number is a corrupt file, not a wish.
    static constexpr unsigned kMaxMapBudgetMiB = 1u << 20;

    AppSettings() = default;

    bool darkPalette() const;
    void setDarkPalette(bool on);

    // The stored colour map and scaling; either falls back to HeatmapStyle's own default.
    render::HeatmapStyle heatmapStyle() const;
    void setHeatmapStyle(const render::HeatmapStyle& style);

    // Empty when none was opened yet.
    QString lastModel() const;
    void setLastModel(const QString& path);

    // Newest first, at most kMaxRecentModels.
    QStringList recentModels() const;
    void setRecentModels(const QStringList& paths);
    // `recent` with `path` moved (or added) to the front, cut to kMaxRecentModels.
    static QStringList withRecentModel(QStringList recent, const QString& path);

    // The sentence of the last run, or `fallback` when there was none.
    QString lastText(const QString& fallback) const;
    void setLastText(const QString& text);

    std::size_t mapBudgetBytes() const;
    void setMapBudgetBytes(std::size_t bytes);

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray& geometry);
    // The saved dock layout; restore it with kWindowStateVersion.
    QByteArray windowState() const;
    void setWindowState(const QByteArray& state);
    void forgetWindowState();

private:
    QSettings m_settings;
};

}  // namespace attnscope::app
