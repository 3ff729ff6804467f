#include "session/head_record_status.h"

#include <algorithm>

#include <QCoreApplication>
#include <QStringList>

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("HeadRecordStatus", text);
}

// The "L·H" notation of the tool tips and the task bar: layer and head, both 0-based.
QString headName(HeadId head) {
    return QStringLiteral("%1·%2").arg(head.layer).arg(head.head);
}

}  // namespace

QString headRecordPendingText(const AnalysisSession& session, const std::vector<HeadId>& heads) {
    QStringList names;
    for (const HeadId head : heads) {
        const QString error = session.headRecords().error(head);
        if (!error.isEmpty()) {
            return tr("Could not compute head %1 (layer·head, 0-based):\n%2")
                .arg(headName(head), error);
        }
        names << headName(head);
    }
    const QString what = names.size() == 1 ? tr("Computing head %1…") : tr("Computing heads %1…");
    return what.arg(names.join(QStringLiteral(", "))) +
           tr("\nThis sentence's maps exceed the memory budget (Mask and scale ▸ Memory), so "
              "the heads on screen are recomputed from their layer's input.");
}

QString headRecordPendingHeadline(const AnalysisSession& session,
                                  const std::vector<HeadId>& heads) {
    const QString text = headRecordPendingText(session, heads);
    const bool failed = std::any_of(heads.begin(), heads.end(), [&session](HeadId head) {
        return !session.headRecords().error(head).isEmpty();
    });
    return failed ? text : text.section(QLatin1Char('\n'), 0, 0);
}

QString headRecordStatusMessage(HeadId head) {
    return tr("Computing head %1 (this sentence's maps are over the memory budget)…")
        .arg(headName(head));
}

}  // namespace attnscope::app
