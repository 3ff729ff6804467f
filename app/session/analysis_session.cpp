#include "session/analysis_session.h"

#include <algorithm>

#include <QStringList>

namespace attnscope::app {

AnalysisSession::AnalysisSession(QObject* parent) : QObject(parent) {
    qRegisterMetaType<attnscope::HeadId>();
    qRegisterMetaType<attnscope::analysis::AttributionMethod>();
    qRegisterMetaType<attnscope::forward::AttentionKind>();
}

void AnalysisSession::setModel(std::shared_ptr<const model::Model> model, const QString& path) {
    m_model = std::move(model);
    m_modelPath = path;
    m_seq2seq.reset();
    m_decodedTarget.clear();  // ids of the old model's vocabulary
    // Cross-attention is what an encoder-decoder adds over the one-stack models.
    m_kind = forward::AttentionKind::Cross;
    if (isEncoderDecoder()) {
        m_headViewMethod = analysis::AttributionMethod::Raw;  // the only one they support
    }
    m_result.reset();
    m_clean.reset();
    m_effects.reset();
    m_meanSource.clear();
    const bool hadAblations = !m_ablations.empty();
    m_ablations.clear();  // heads of another model
    m_records.clear();
    m_failures.clear();
    startRound();
    m_mask = {};  // the new model's default (causal for GPT-2, none for BERT)
    m_scale.reset();
    m_selected = clamp(m_selected);
    m_compareFollows = true;  // a B picked among the old model's heads is no choice for this one
    m_compare = followingHead(m_selected);
    m_predictions = {};
    const bool hadScores = m_scores != nullptr;
    m_scores.reset();  // the old model's heads: a cell clicked would open another model's head
    const bool hadCoref = m_corefScores != nullptr;
    m_corefScores.reset();  // and its windows: another tokenizer cuts others
    const bool hadImportance = m_importance != nullptr;
    m_importance.reset();  // another model's heads
    const bool hadSurvey = m_survey != nullptr;
    m_survey.reset();
    const bool hadFilter = !m_labelFilter.isEmpty();
    m_labelFilter.clear();
    refreshGold();
    parseTokenIds();
    const bool droppedAttributions = syncAttributions();
    emit modelChanged();
    emit computeSettingsChanged();
    emit resultChanged();
    if (droppedAttributions) {
        emit attributionsChanged();
    }
    emit selectedHeadChanged(m_selected);
    emit compareHeadChanged(m_compare);
    if (hadScores) {
        emit dependencyScoresChanged();
    }
    if (hadCoref) {
        emit corefScoresChanged();
    }
    if (hadImportance) {
        emit importanceChanged();
    }
    if (hadSurvey) {
        emit surveyChanged();
        emit headLabelsChanged();
    }
    if (hadFilter) {
        emit labelFilterChanged(m_labelFilter);
    }
    if (hadAblations) {
        emit ablationsChanged();
        reportError(tr("Ablations cleared: they were heads of the previous model."));
    }
    if (m_model && !m_model->warnings.empty()) {
        reportWarnings(m_model->warnings);
    }
}

void AnalysisSession::setText(const QString& text) {
    if (text == m_text) {
        return;
    }
    m_text = text;
    parseTokenIds();
    emit textChanged(text);
}

bool AnalysisSession::takesTokenIds() const {
    return m_model && !m_model->tokenizer && !m_model->isEncoderDecoder();
}

void AnalysisSession::parseTokenIds() {
    TokenIdList parsed;
    if (takesTokenIds()) {
        parsed = app::parseTokenIds(m_text, m_model->spec.vocabSize);
    }
    const bool changed = parsed.ids != m_tokenIds.ids || parsed.error != m_tokenIds.error ||
                         parsed.errorStart != m_tokenIds.errorStart;
    m_tokenIds = std::move(parsed);
    if (changed) {
        emit tokenIdInputChanged();
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

void AnalysisSession::setTruncateLongInput(bool on) {
    if (on != m_truncate) {
        m_truncate = on;
        emit computeSettingsChanged();
    }
}

bool AnalysisSession::resultIsTruncated() const {
    if (takesTokenIds()) {  // the result holds no text, only the ids
        return m_result &&
               static_cast<std::size_t>(m_result->forward.nTokens) < m_tokenIds.ids.size();
    }
    // An encoder-decoder's result is the target's on two kinds of three; text() is the source.
    const analysis::SentenceAnalysis* read = m_seq2seq ? &m_seq2seq->encoder : m_result.get();
    return read != nullptr && read->text.size() < static_cast<std::size_t>(m_text.toUtf8().size());
}

void AnalysisSession::reportInputTooLong(int tokens, int limit) {
    emit inputTooLong(tokens, limit);
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
    m_records.clear();
    m_failures.clear();
    startRound();
    const bool dropToken =
        m_selectedToken >= 0 && (!m_result || m_selectedToken >= m_result->forward.nTokens);
    if (dropToken) {
        m_selectedToken = -1;
    }
    m_predictions = {};
    refreshGold();
    const bool droppedAttributions = syncAttributions();  // views redraw with the new states
    emit resultChanged();
    if (droppedAttributions) {
        emit attributionsChanged();
    }
    if (dropToken) {
        emit selectedTokenChanged(m_selectedToken);
    }
    if (m_result && !m_result->forward.warnings.empty()) {
        reportWarnings(m_result->forward.warnings);  // NaN met: the maps are not attention
    }
}

std::shared_ptr<const forward::HeadRecord> AnalysisSession::headRecord(HeadId head) {
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
        emit headRecordRequested(head);
    }
    return nullptr;
}

QString AnalysisSession::headRecordError(HeadId head) const {
    const auto it = m_failures.find(head);
    return it == m_failures.end() ? QString() : it->second;
}

void AnalysisSession::setHeadRecord(
    const std::shared_ptr<const analysis::SentenceAnalysis>& forResult, HeadId head,
    std::shared_ptr<const forward::HeadRecord> record) {
    if (forResult != m_result || !record) {
        return;  // about a sentence, setting or model no longer shown
    }
    // An earlier round's job may bring a head that is already here.
    const bool known = std::any_of(m_records.begin(), m_records.end(),
                                   [head](const auto& entry) { return entry.first == head; });
    if (!known) {
        if (m_records.size() == kCachedHeads) {
            m_records.pop_back();
        }
        m_records.emplace_front(head, std::move(record));
    }
    m_waiting.erase(head);
    emit headRecordChanged(head);
}

void AnalysisSession::setHeadRecordFailed(
    const std::shared_ptr<const analysis::SentenceAnalysis>& forResult, HeadId head,
    const QString& message) {
    if (forResult != m_result) {
        return;
    }
    m_failures[head] = message;
    m_waiting.erase(head);
    emit headRecordChanged(head);
    reportError(tr("Could not recompute layer %1, head %2: %3")
                    .arg(head.layer)
                    .arg(head.head)
                    .arg(message));
}

void AnalysisSession::dropHeadRecordRequest(
    const std::shared_ptr<const analysis::SentenceAnalysis>& forResult, HeadId head) {
    // Asked again in this round: the newer request stands.
    if (forResult == m_result && !m_waiting.contains(head)) {
        emit headRecordChanged(head);
    }
}

void AnalysisSession::startRound() {
    ++m_round;
    m_waiting.clear();
}

int AnalysisSession::predictionPosition() const {
    if (!m_result || !m_model || m_result->forward.nTokens == 0) {
        return -1;
    }
    if (m_seq2seq) {
        // Rows of the decoder: a row clicked in the encoder's map is a source token.
        const int rows = m_seq2seq->decoder.forward.nTokens;
        const bool onDecoderRows = m_kind != forward::AttentionKind::Encoder;
        return onDecoderRows && m_selectedToken >= 0 && m_selectedToken < rows ? m_selectedToken
                                                                               : rows - 1;
    }
    if (m_selectedToken >= 0) {
        return m_selectedToken;
    }
    if (m_model->spec.prediction == model::PredictionKind::CausalLm) {
        return m_result->forward.nTokens - 1;
    }
    const std::vector<int> masks =
        forward::maskTokenPositions(*m_model, m_result->forward.tokenIds);
    return masks.empty() ? -1 : masks.front();
}

void AnalysisSession::setPredictions(Predictions predictions) {
    if (predictions.result != m_result || predictions.position != predictionPosition()) {
        return;  // a newer sentence or position is on its way
    }
    m_predictions = std::move(predictions);
    emit predictionsChanged();
}

void AnalysisSession::setTreebank(std::shared_ptr<const Treebank> treebank) {
    m_treebank = std::move(treebank);
    emit treebankChanged();
    refreshGold();
    emit sentenceGoldChanged();
}

void AnalysisSession::setDependencyScores(std::shared_ptr<const DependencyScores> scores) {
    if (scores && scores->model != m_model) {
        return;  // scored with a model that is no longer open
    }
    if (scores && scores->treebank != m_treebank) {
        setTreebank(scores->treebank);
    }
    m_scores = std::move(scores);
    emit dependencyScoresChanged();
}

void AnalysisSession::setImportance(std::shared_ptr<const ImportanceRun> run) {
    if (run && run->model != m_model) {
        return;  // computed with a model that is no longer open
    }
    m_importance = std::move(run);
    emit importanceChanged();
}

void AnalysisSession::setSurvey(std::shared_ptr<const SurveyRun> run) {
    if (run && run->model != m_model) {
        return;  // computed with a model that is no longer open
    }
    m_survey = std::move(run);
    emit surveyChanged();
    emit headLabelsChanged();
}

HeadLabels AnalysisSession::headLabels() const {
    if (!m_survey) {
        return {};
    }
    // Shares the run: the labels live as long as a view holds them.
    return {std::shared_ptr<const LabelsByHead>(m_survey, &m_survey->labels), m_survey->nLayers(),
            m_survey->nHeads()};
}

void AnalysisSession::setLabelFilter(const QString& tag) {
    if (tag == m_labelFilter) {
        return;
    }
    m_labelFilter = tag;
    emit labelFilterChanged(m_labelFilter);
}

void AnalysisSession::setCorefScores(std::shared_ptr<const CorefScores> scores) {
    if (scores && scores->model != m_model) {
        return;  // scored with a model that is no longer open
    }
    if (scores) {
        m_corefCorpus = scores->corpus;
    }
    m_corefScores = std::move(scores);
    refreshGold();
    emit corefScoresChanged();
    emit windowGoldChanged();
}

// Once per result, treebank or coreference scores, so views read the alignment instead of
// redoing it per hover.
void AnalysisSession::refreshGold() {
    // Gold trees and arcs are one sentence's: an encoder-decoder's maps may join two.
    const bool oneSentence = m_result && !m_seq2seq;
    m_gold = m_treebank && oneSentence ? app::sentenceGold(*m_treebank, *m_result) : nullptr;
    m_windowGold =
        m_corefScores && oneSentence ? app::windowGold(*m_corefScores, *m_result) : nullptr;
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
        m_predictions = {};
        emit selectedTokenChanged(m_selectedToken);
    }
}

int AnalysisSession::layerCount() const {
    const model::Model* stack = shownStack();
    return stack ? stack->spec.nLayers : 0;
}

int AnalysisSession::headCount() const {
    const model::Model* stack = shownStack();
    return stack ? stack->spec.nHeads : 0;
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
    const HeadId b = m_compareFollows ? followingHead(head) : m_compare;
    const bool movedB = b != m_compare;
    m_compare = b;
    startRound();
    emit selectedHeadChanged(head);
    if (movedB) {
        emit compareHeadChanged(b);
    }
}

// The head after A in A's layer, wrapping to head 0; with one head per layer, the same head of
// the next layer; A itself in a one-head model.
HeadId AnalysisSession::followingHead(HeadId a) const {
    if (headCount() > 1) {
        return {a.layer, (a.head + 1) % headCount()};
    }
    if (layerCount() > 1) {
        return {(a.layer + 1) % layerCount(), a.head};
    }
    return a;
}

void AnalysisSession::setCompareHead(HeadId head) {
    head = clamp(head);
    m_compareFollows = false;  // the user's B stays where they put it
    if (head == m_compare) {
        return;
    }
    m_compare = head;
    startRound();
    emit compareHeadChanged(head);
}

void AnalysisSession::setHeatmapStyle(const render::HeatmapStyle& style) {
    m_style = style;
    emit heatmapStyleChanged();
}

void AnalysisSession::reportError(const QString& message) {
    emit errorReported(message);
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
