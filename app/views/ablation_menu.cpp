#include "views/ablation_menu.h"

#include <optional>

#include <QAction>
#include <QKeySequence>
#include <QMenu>

#include "render/named_enum.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

// Each ablation kind's object names and words; tr() at use.
struct KindEntry {
    forward::AblationKind value;
    const char* headName;   // the query head's action
    const char* groupName;  // the key/value group's action
    const char* tip;
    const char* effect;  // ablationEffectText
};

constexpr KindEntry kKinds[] = {
    {forward::AblationKind::Zero, "ablateZero", "ablateGroupZero",
     QT_TRANSLATE_NOOP("QObject",
                       "The head's output is 0 before the output projection (HF head_mask)"),
     QT_TRANSLATE_NOOP("QObject", "output set to zero")},
    {forward::AblationKind::Mean, "ablateMean", "ablateGroupMean",
     QT_TRANSLATE_NOOP("QObject",
                       "The head's output is its mean output over the loaded treebank (at most "
                       "200 sentences), or over this sentence without one"),
     QT_TRANSLATE_NOOP("QObject", "output replaced by its mean")},
    {forward::AblationKind::Sink, "ablateSink", "ablateGroupSink",
     QT_TRANSLATE_NOOP("QObject", "Every query row attends only to the first token"),
     QT_TRANSLATE_NOOP("QObject", "rows forced onto the first token")},
};

QString kindName(forward::AblationKind kind) {
    return QString::fromStdString(forward::ablationKindName(kind));
}

// One checkable action per kind: the query head's (`group` false) or its key/value group's.
void addKindActions(QMenu* menu, AnalysisSession* session, HeadId head, bool group,
                    const std::optional<forward::HeadAblation>& covering) {
    for (const KindEntry& k : kKinds) {
        const QString text =
            group ? kindName(k.value) : QObject::tr("Ablate (%1)").arg(kindName(k.value));
        QAction* a = menu->addAction(text, session, [session, head, group, kind = k.value] {
            session->ablateHead(head, kind, group);
        });
        a->setObjectName(QLatin1String(group ? k.groupName : k.headName));
        a->setToolTip(QObject::tr(k.tip));
        a->setCheckable(true);
        a->setChecked(covering && covering->kvGroup == group && covering->kind == k.value);
    }
}

}  // namespace

QString ablationEffectText(forward::AblationKind kind) {
    const KindEntry* k = render::rowOf(kKinds, kind);
    return k ? QObject::tr(k->effect) : QString();
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
    addKindActions(menu, session, head, false, covering);
    QMenu* group = menu->addMenu(QObject::tr("Ablate its key/value group"));
    group->setObjectName(QStringLiteral("ablateGroupMenu"));
    group->setToolTipsVisible(true);
    group->setEnabled(session->hasKvGroups());
    if (!session->hasKvGroups()) {
        group->setTitle(QObject::tr("Ablate its key/value group (no grouped-query attention)"));
    }
    addKindActions(group, session, head, true, covering);
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
