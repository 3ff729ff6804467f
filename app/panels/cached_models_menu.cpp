#include "panels/cached_models_menu.h"

#include <QMenu>

#include "panels/local_models.h"

namespace attnscope::app {

QMenu* addCachedModelsMenu(QMenu* file, std::function<void(const QString&)> open) {
    QMenu* cache = file->addMenu(QObject::tr("&Models on this computer"));
    cache->setObjectName(QStringLiteral("cacheMenu"));
    // The reason a model is greyed out is in its tool tip, which menus hide unless told.
    cache->setToolTipsVisible(true);
    QObject::connect(cache, &QMenu::aboutToShow, cache, [cache, open = std::move(open)] {
        cache->clear();
        for (const model::FoundModel& m : findLocalModels()) {
            // A name's "&" is text, not a shortcut.
            QAction* a = cache->addAction(localModelLabel(m).replace(u'&', QStringLiteral("&&")));
            const QString path = QString::fromStdString(m.path.string());
            a->setEnabled(m.supported);
            a->setToolTip(localModelToolTip(m));
            QObject::connect(a, &QAction::triggered, cache, [open, path] { open(path); });
        }
        if (cache->isEmpty()) {
            QAction* none = cache->addAction(noLocalModelsText());
            none->setEnabled(false);
            none->setToolTip(localModelPlacesText());
        }
    });
    return cache;
}

}  // namespace attnscope::app
