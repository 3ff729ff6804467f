#include "views/kv_groups.h"

#include <QCoreApplication>

namespace attnscope::app {

QString kvSharingText(const forward::ForwardResult& f, int head) {
    const int group = f.kvGroupSize();
    if (group <= 1) {
        return {};
    }
    const int kv = f.kvHeadOf(head);
    return QCoreApplication::translate("HeadGrid", "key/value head %1, shared by query heads %2–%3")
        .arg(kv)
        .arg(kv * group)
        .arg(kv * group + group - 1);
}

bool startsKvGroup(const forward::ForwardResult& f, int head) {
    const int group = f.kvGroupSize();
    return group > 1 && head > 0 && head % group == 0;
}

}  // namespace attnscope::app
