#include "session/analysis_session.h"

#include <algorithm>

namespace attnscope::app {

AnalysisSession::AnalysisSession(QObject* parent) : QObject(parent) {
    qRegisterMetaType<attnscope::HeadId>();
}

void AnalysisSession::setModel(std::shared_ptr<const model::Model> model, const QString& path) {
    m_model = std::move(model);
    m_modelPath = path;
    m_result.reset();
    m_records.clear();
    m_mask = {};  // the new model's default (causal for GPT-2, none for BERT)
    m_scale.reset();
    m_selected = clamp(m_selected);
    m_compare = clamp(m_compare);
    emit modelChanged();
    emit computeSettingsChanged();
    emit resultChanged();
    emit selectedHeadChanged(m_selected);
    emit compareHeadChanged(m_compare);
}

void AnalysisSession::setText(const QString& text) {
    if (text == m_text) {
        return;
    }
    m_text = text;
    emit textChanged(text);
}

void AnalysisSession::setMask(const forward::MaskChoice& mask) {
    m_mask = mask;
    emit computeSettingsChanged();
}

void AnalysisSession::setScale(std::optional<float> scale) {
    if (scale == m_scale) {
        return;
    }
    m_scale = scale;
    emit computeSettingsChanged();
}

void AnalysisSession::setResult(std::shared_ptr<const analysis::SentenceAnalysis> result) {
    m_result = std::move(result);
    m_records.clear();
    const bool dropToken =
        m_selectedToken >= 0 && (!m_result || m_selectedToken >= m_result->forward.nTokens);
    if (dropToken) {
        m_selectedToken = -1;
    }
    emit resultChanged();
    if (dropToken) {
        emit selectedTokenChanged(m_selectedToken);
    }
}

forward::HeadRecord AnalysisSession::headRecord(HeadId head) const {
    if (!m_result || !m_model) {
        return {};
    }
    const forward::ForwardResult& f = m_result->forward;
    if (f.mapsRecorded) {
        return forward::headRecord(*m_model, f, head);
    }
    for (const auto& [id, record] : m_records) {
        if (id == head) {
            return *record;
        }
    }
    // One layer's projections and one attention: tens of milliseconds even for large models,
    // so it runs here rather than round-tripping through the worker.
    auto record =
        std::make_shared<const forward::HeadRecord>(forward::recomputeHead(*m_model, f, head));
    constexpr std::size_t kCachedHeads = 8;
    if (m_records.size() == kCachedHeads) {
        m_records.pop_back();
    }
    m_records.emplace_front(head, record);
    return *record;
}

void AnalysisSession::setMapBudgetBytes(std::size_t bytes) {
    if (bytes != m_mapBudget) {
        m_mapBudget = bytes;
        emit computeSettingsChanged();
    }
}

void AnalysisSession::selectToken(int index) {
    const int n = m_result ? m_result->forward.nTokens : 0;
    const int clamped = index >= 0 && index < n ? index : -1;
    if (clamped != m_selectedToken) {
        m_selectedToken = clamped;
        emit selectedTokenChanged(m_selectedToken);
    }
}

int AnalysisSession::layerCount() const {
    return m_model ? m_model->spec.nLayers : 0;
}

int AnalysisSession::headCount() const {
    return m_model ? m_model->spec.nHeads : 0;
}

HeadId AnalysisSession::clamp(HeadId head) const {
    return {std::clamp(head.layer, 0, std::max(0, layerCount() - 1)),
            std::clamp(head.head, 0, std::max(0, headCount() - 1))};
}

void AnalysisSession::selectHead(HeadId head) {
    head = clamp(head);
    if (head == m_selected) {
        return;
    }
    m_selected = head;
    emit selectedHeadChanged(head);
}

void AnalysisSession::setCompareHead(HeadId head) {
    head = clamp(head);
    if (head == m_compare) {
        return;
    }
    m_compare = head;
    emit compareHeadChanged(head);
}

void AnalysisSession::setHeatmapStyle(const render::HeatmapStyle& style) {
    m_style = style;
    emit heatmapStyleChanged();
}

void AnalysisSession::reportError(const QString& message) {
    emit errorReported(message);
}

}  // namespace attnscope::app
