#include "session/head_records.h"

#include <algorithm>

namespace attnscope::app {

void HeadRecords::reset(std::shared_ptr<const model::Model> model, ResultPtr result) {
    m_model = std::move(model);
    m_result = std::move(result);
    m_records.clear();
    m_failures.clear();
    startRound();
}

void HeadRecords::startRound() {
    ++m_round;
    m_waiting.clear();
}

std::shared_ptr<const forward::HeadRecord> HeadRecords::get(HeadId head) {
    if (!m_result || !m_model) {
        return nullptr;
    }
    const forward::ForwardResult& f = m_result->forward;
    if (f.mapsRecorded) {
        // A copy out of the maps: cheap, so views draw at once without a round trip.
        return std::make_shared<const forward::HeadRecord>(forward::headRecord(*m_model, f, head));
    }
    for (const auto& [id, record] : m_records) {
        if (id == head) {
            return record;
        }
    }
    // One layer's projections and one attention: ~100 ms for a 1 B model, seconds for larger
    // ones, so the service runs it on a worker and the views show that it is coming.
    if (!m_failures.contains(head) && m_waiting.insert(head).second) {
        emit requested(head);
    }
    return nullptr;
}

QString HeadRecords::error(HeadId head) const {
    const auto it = m_failures.find(head);
    return it == m_failures.end() ? QString() : it->second;
}

void HeadRecords::set(const ResultPtr& forResult, HeadId head,
                      std::shared_ptr<const forward::HeadRecord> record) {
    if (forResult != m_result || !record) {
        return;  // about a sentence, setting or model no longer shown
    }
    // An earlier round's job may bring a head that is already here.
    const bool known = std::any_of(m_records.begin(), m_records.end(),
                                   [head](const auto& entry) { return entry.first == head; });
    if (!known) {
        if (m_records.size() == kCached) {
            m_records.pop_back();
        }
        m_records.emplace_front(head, std::move(record));
    }
    m_waiting.erase(head);
    emit changed(head);
}

void HeadRecords::setFailed(const ResultPtr& forResult, HeadId head, const QString& message) {
    if (forResult != m_result) {
        return;
    }
    m_failures[head] = message;
    m_waiting.erase(head);
    emit changed(head);
    emit failed(tr("Could not recompute layer %1, head %2: %3")
                    .arg(head.layer)
                    .arg(head.head)
                    .arg(message));
}

void HeadRecords::dropRequest(const ResultPtr& forResult, HeadId head) {
    // Asked again in this round: the newer request stands.
    if (forResult == m_result && !m_waiting.contains(head)) {
        emit changed(head);
    }
}

}  // namespace attnscope::app
