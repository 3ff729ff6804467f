#include "session/head_record_watch.h"

#include <algorithm>

#include "session/analysis_session.h"
#include "session/head_record_status.h"

namespace attnscope::app {

HeadRecordWatch::HeadRecordWatch(AnalysisSession* session, std::function<void()> redraw,
                                 QObject* parent)
    : QObject(parent), m_session(session), m_redraw(std::move(redraw)) {
    connect(&session->headRecords(), &HeadRecords::changed, this, [this](HeadId head) {
        if (std::find(m_missing.begin(), m_missing.end(), head) != m_missing.end()) {
            m_redraw();
        }
    });
}

std::vector<std::shared_ptr<const forward::HeadRecord>> HeadRecordWatch::fetch(
    const std::vector<HeadId>& heads) {
    m_missing.clear();
    std::vector<std::shared_ptr<const forward::HeadRecord>> records;
    records.reserve(heads.size());
    for (const HeadId head : heads) {
        records.push_back(m_session->headRecords().get(head));
        if (!records.back() && m_session->result() &&
            std::find(m_missing.begin(), m_missing.end(), head) == m_missing.end()) {
            m_missing.push_back(head);
        }
    }
    return records;
}

std::shared_ptr<const forward::HeadRecord> HeadRecordWatch::fetch(HeadId head) {
    return fetch(std::vector<HeadId>{head}).front();
}

QString HeadRecordWatch::pendingText() const {
    return headRecordPendingText(*m_session, m_missing);
}

QString HeadRecordWatch::pendingHeadline(HeadId head) const {
    return headRecordPendingHeadline(*m_session, {head});
}

}  // namespace attnscope::app
