#include "views/ablation_menu.h"

#include <QAction>
#include <QKeySequence>
#include <QMenu>

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

struct KindEntry {
    forward::AblationKind kind;
    const char* headName;
    const char* groupName;
};

constexpr KindEntry kKinds[] = {
    {forward::AblationKind::Zero, "ablateZero", "ablateGroupZero"},
    {forward::AblationKind::Mean, "ablateMean", "ablateGroupMean"},
    {forward::AblationKind::Sink, "ablateSink", "ablateGroupSink"},
};

QString kindName(forward::AblationKind kind) {
    return QString::fromStdString(forward::ablationKindName(kind));
}

QString kindTip(forward::AblationKind kind) {
    switch (kind) {
        case forward::AblationKind::Zero:
            return QObject::tr(
                "The head's output is 0 before the output projection (HF head_mask)");
        case forward::AblationKind::Mean:
            return QObject::tr(
                "The head's output is its mean output over the loaded treebank (at most 200 "
                "sentences), or over this sentence without one");
        case forward::AblationKind::Sink:
            return QObject::tr("Every query row attends only to the first token");
    }
    return {};
}

}  // namespace

QString ablationEffectText(forward::AblationKind kind) {
    switch (kind) {
        case forward::AblationKind::Zero:
            return QObject::tr("output set to zero");
        case forward::AblationKind::Mean:
            return QObject::tr("output replaced by its mean");
        case forward::AblationKind::Sink:
            return QObject::tr("rows forced onto the first token");
    }
    return {};
}

void addAblationActions(QMenu* menu, AnalysisSession* session, HeadId head) {
    if (const QString why = session->unsupportedReason(); !why.isEmpty()) {
        QAction* a = menu->addAction(QObject::tr("Ablation: not for encoder-decoder models yet"));
        a->setObjectName(QStringLiteral("ablationUnsupported"));
        a->setEnabled(false);
        a->setToolTip(why);
        menu->setToolTipsVisible(true);
        return;
    }
    const auto covering = session->ablationCovering(head);
    for (const KindEntry& k : kKinds) {
        QAction* a =
            menu->addAction(QObject::tr("Ablate (%1)").arg(kindName(k.kind)), session,
                            [session, head, kind = k.kind] { session->ablateHead(head, kind); });
        a->setObjectName(QLatin1String(k.headName));
        a->setToolTip(kindTip(k.kind));
        a->setCheckable(true);
        a->setChecked(covering && !covering->kvGroup && covering->kind == k.kind);
    }
    QMenu* group = menu->addMenu(QObject::tr("Ablate its key/value group"));
    group->setObjectName(QStringLiteral("ablateGroupMenu"));
    group->setToolTipsVisible(true);
    group->setEnabled(session->hasKvGroups());
    if (!session->hasKvGroups()) {
        group->setTitle(QObject::tr("Ablate its key/value group (no grouped-query attention)"));
    }
    for (const KindEntry& k : kKinds) {
        QAction* a = group->addAction(kindName(k.kind), session, [session, head, kind = k.kind] {
            session->ablateHead(head, kind, true);
        });
        a->setObjectName(QLatin1String(k.groupName));
        a->setToolTip(kindTip(k.kind));
        a->setCheckable(true);
        a->setChecked(covering && covering->kvGroup && covering->kind == k.kind);
    }
    QAction* clear = menu->addAction(QObject::tr("Clear ablation of this head"), session,
                                     [session, head] { session->clearAblation(head); });
    clear->setObjectName(QStringLiteral("clearHeadAblation"));
    clear->setEnabled(covering.has_value());
    QAction* all = menu->addAction(QObject::tr("Clear all ablations"), session,
                                   [session] { session->clearAblations(); });
    all->setObjectName(QStringLiteral("clearAllAblations"));
    all->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    all->setEnabled(!session->ablations().empty());
    menu->setToolTipsVisible(true);
}

QAction* makeClearAblationsAction(AnalysisSession* session, QObject* parent) {
    auto* action = new QAction(QObject::tr("&Clear all ablations"), parent);
    action->setObjectName(QStringLiteral("clearAblationsAction"));
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    action->setToolTip(QObject::tr("Put every ablated head back: the clean pass is shown again"));
    action->setEnabled(false);
    QObject::connect(action, &QAction::triggered, session, &AnalysisSession::clearAblations);
    QObject::connect(session, &AnalysisSession::ablationsChanged, action,
                     [session, action] { action->setEnabled(!session->ablations().empty()); });
    return action;
}

}  // namespace attnscope::app
