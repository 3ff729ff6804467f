#include "panels/cached_models_menu.h"

#include <QMenu>

#include "attnscope/model/model_discovery.h"
#include "panels/welcome_page.h"

namespace attnscope::app {

QMenu* addCachedModelsMenu(QMenu* file, std::function<void(const QString&)> open) {
    QMenu* cache = file->addMenu(QObject::tr("From the &Hugging Face cache"));
    cache->setObjectName(QStringLiteral("cacheMenu"));
    QObject::connect(cache, &QMenu::aboutToShow, cache, [cache, open = std::move(open)] {
        cache->clear();
        for (const model::FoundModel& m : model::findCachedModels(huggingFaceHubDir())) {
            QAction* a = cache->addAction(QStringLiteral("%1 (%2)").arg(
                QString::fromStdString(m.name), QString::fromStdString(m.modelType)));
            const QString dir = QString::fromStdString(m.dir.string());
            a->setEnabled(m.supported);
            a->setToolTip(QString::fromStdString(m.note));
            QObject::connect(a, &QAction::triggered, cache, [open, dir] { open(dir); });
        }
        if (cache->isEmpty()) {
            cache
                ->addAction(QObject::tr("No models in %1")
                                .arg(QString::fromStdString(huggingFaceHubDir().string())))
                ->setEnabled(false);
        }
    });
    return cache;
}

}  // namespace attnscope::app
