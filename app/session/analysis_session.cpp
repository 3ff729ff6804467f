#include "session/analysis_session.h"

#include <algorithm>

#include <QStringList>

namespace attnscope::app {

AnalysisSession::AnalysisSession(QObject* parent) : QObject(parent) {
    qRegisterMetaType<attnscope::HeadId>();
    qRegisterMetaType<attnscope::analysis::AttributionMethod>();
    qRegisterMetaType<attnscope::forward::AttentionKind>();
    connect(&m_headRecords, &HeadRecords::failed, this, &AnalysisSession::reportError);
}

void AnalysisSession::setModel(std::shared_ptr<const model::Model> model, const QString& path) {
    m_model = std::move(model);
    m_modelPath = path;
    m_seq2seq.reset();
    m_decodedTarget.clear();  // ids of the old model's vocabulary
    // Cross-attention is what an encoder-decoder adds over the one-stack models.
    m_kind = forward::AttentionKind::Cross;
    m_attributions.resetMethodFor(isEncoderDecoder());
    m_result.reset();
    m_clean.reset();
    m_effects.reset();
    m_meanSource.clear();
    const bool hadAblations = !m_ablations.empty();
    m_ablations.clear();  // heads of another model
    m_headRecords.reset(m_model, nullptr);
    m_mask = {};  // the new model's default (causal for GPT-2, none for BERT)
    m_scale.reset();
    m_whatIf = {};
    m_selected = clamp(m_selected);
    m_compareFollows = true;  // a B picked among the old model's heads is no choice for this one
    m_compare = followingHead(m_selected);
    m_predictions = {};
    const bool hadPicked = m_picked != PickedTokens{};
    m_picked = {};  // ids of the old model's vocabulary
    // The documents' scores are of the old model's heads: a cell clicked would open another
    // model's head (and another tokenizer cuts other coreference windows).
    std::vector<AnalysisDocument*> dropped;
    m_documents.forEach([&dropped](AnalysisDocument& document) {
        if (document.dropModel()) {
            dropped.push_back(&document);
        }
    });
    const HeadOverlays::Dropped droppedOverlays = m_overlays.dropModel();
    refreshGold();
    parseTokenIds();
    const bool droppedAttributions = m_attributions.follow(m_clean);
    emit modelChanged();
    emit computeSettingsChanged();
    emit resultChanged();
    if (droppedAttributions) {
        emit m_attributions.changed();
    }
    emit selectedHeadChanged(m_selected);
    emit compareHeadChanged(m_compare);
    if (hadPicked) {
        emit pickedTokensChanged();
    }
    for (AnalysisDocument* document : dropped) {
        document->announceDropped();
    }
    m_overlays.announceDropped(droppedOverlays);
    announceNewModel(hadAblations);
}

void AnalysisSession::announceNewModel(bool hadAblations) {
    if (hadAblations) {
        emit ablationsChanged();
        reportError(tr("Ablations cleared: they were heads of the previous model."));
    }
    if (m_model && !m_model->warnings.empty()) {
        reportWarnings(m_model->warnings);
    }
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

void AnalysisSession::setAttentionWhatIf(const forward::AttentionWhatIf& whatIf) {
    if (whatIf == m_whatIf) {
        return;
    }
    m_whatIf = whatIf;
    emit computeSettingsChanged();
}

void AnalysisSession::setResult(std::shared_ptr<const analysis::SentenceAnalysis> result) {
    m_seq2seq.reset();
    m_clean = result;
    m_effects.reset();
    m_meanSource.clear();
    applyResult(std::move(result));
}

void AnalysisSession::applyResult(std::shared_ptr<const analysis::SentenceAnalysis> result) {
    m_result = std::move(result);
    m_headRecords.reset(m_model, m_result);
    const bool dropToken =
        m_selectedToken >= 0 && (!m_result || m_selectedToken >= m_result->forward.nTokens);
    if (dropToken) {
        m_selectedToken = -1;
    }
    m_predictions = {};
    refreshGold();
    const bool droppedAttributions = m_attributions.follow(m_clean);
    emit resultChanged();
    if (droppedAttributions) {
        emit m_attributions.changed();  // views redraw with the new states
    }
    if (dropToken) {
        emit selectedTokenChanged(m_selectedToken);
    }
    if (m_result && !m_result->forward.warnings.empty()) {
        reportWarnings(m_result->forward.warnings);  // NaN met: the maps are not attention
    }
}

void AnalysisSession::setTreebank(std::shared_ptr<const Treebank> treebank) {
    m_treebank = std::move(treebank);
    emit treebankChanged();
    refreshGold();
    emit sentenceGoldChanged();
}

// Once per result or treebank, so views read the alignment instead of redoing it per hover.
void AnalysisSession::refreshGold() {
    // Gold trees and arcs are one sentence's: an encoder-decoder's maps may join two.
    const bool oneSentence = m_result && !m_seq2seq;
    m_gold = m_treebank && oneSentence ? app::sentenceGold(*m_treebank, *m_result) : nullptr;
    m_overlays.refreshWindowGold();
}

void AnalysisSession::setMapBudgetBytes(std::size_t bytes) {
    if (bytes != m_mapBudget) {
        m_mapBudget = bytes;
        emit computeSettingsChanged();
    }
}

void AnalysisSession::setHeatmapStyle(const render::HeatmapStyle& style) {
    m_style = style;
    emit heatmapStyleChanged();
}

void AnalysisSession::reportError(const QString& message) {
    emit errorReported(message);
}

void AnalysisSession::reportNote(const QString& message) {
    emit noteReported(message);
}

void AnalysisSession::withdrawMessage(const QString& message) {
    emit messageWithdrawn(message);
}

void AnalysisSession::reportWarnings(const std::vector<std::string>& warnings) {
    QStringList lines;
    for (const std::string& w : warnings) {
        lines << tr("Warning: %1").arg(QString::fromStdString(w));
    }
    emit warningReported(lines.join(QLatin1Char('\n')));
}

}  // namespace attnscope::app
