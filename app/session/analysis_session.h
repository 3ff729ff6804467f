// The document every view observes and the one holder of results: the open model, the sentence,
// the compute settings, the latest result, the recomputed heads of an over-budget sentence, the
// predictions, the treebank with its gold trees and dependency scores, the coreference corpus
// with its scores and the gold arcs of the window on screen, the selected heads, and the heads
// ablated with the ablated and clean results and their effects (session_ablations.cpp).
// Lives in the GUI thread; holds no logic beyond keeping its fields consistent (clamping the
// selected head to the model's size, dropping what belongs to an older model or result). The
// ComputeService fills it; views read it and call its setters for user choices.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <QObject>
#include <QString>

#include "analyses/attribution/attribution_document.h"
#include "analyses/coref/coref_document.h"
#include "analyses/importance/importance_document.h"
#include "analyses/survey/survey_document.h"
#include "attnscope/analysis/ablation_effects.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/analysis/seq2seq_analysis.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/model/model.h"
#include "render/heatmap_image.h"
#include "session/head_labels.h"
#include "session/meta_types.h"
#include "session/token_id_input.h"
#include "session/treebank.h"

namespace attnscope::app {

class AnalysisSession : public QObject {
    Q_OBJECT

public:
    explicit AnalysisSession(QObject* parent = nullptr);

    std::shared_ptr<const model::Model> model() const { return m_model; }

    QString modelPath() const { return m_modelPath; }

    // A new model resets the mask to the model's default and keeps the text, the treebank and
    // the coreference corpus; the old model's result, predictions, dependency and coreference
    // scores and the ablations are dropped (the message bar says so when there were any).
    void setModel(std::shared_ptr<const model::Model> model, const QString& path);

    QString text() const { return m_text; }

    void setText(const QString& text);

    // A one-stack model without tokenizer files reads token ids, not text, from the sentence
    // field (issue 30; token_id_input.h): text() is then parsed as ids whenever it or the model
    // changes, and the result is of those ids (analysis::analyzeIds).
    bool takesTokenIds() const;

    // The parsed ids and the first error in them; empty unless takesTokenIds().
    const TokenIdList& tokenIdInput() const { return m_tokenIds; }

    forward::MaskChoice mask() const { return m_mask; }

    void setMask(const forward::MaskChoice& mask);

    // Encoder-decoder models (issue 20; session_seq2seq.cpp). text() is the source; the target
    // is typed apart (empty: the decoder reads its start token alone).
    bool isEncoderDecoder() const { return m_model && m_model->isEncoderDecoder(); }

    QString targetText() const { return m_targetText; }

    // A target typed: the teacher-forced pass tokenizes it.
    void setTargetText(const QString& text);

    // What Translate decoded, and `text`, the text those ids decode to: the pass runs on the
    // ids themselves (re-tokenizing the text can give other ids). Empty once a target is typed
    // or another model opens.
    const std::vector<std::int32_t>& decodedTarget() const { return m_decodedTarget; }

    void setDecodedTarget(const QString& text, std::vector<std::int32_t> ids);

    // The source and target through the model, all three kinds; null for one-stack models and
    // until computed. result() is the shown kind's part of it (an aliasing pointer), so every
    // view shows that kind; choosing another kind is a result change for them.
    std::shared_ptr<const analysis::Seq2SeqAnalysis> seq2seq() const { return m_seq2seq; }

    void setSeq2Seq(std::shared_ptr<const analysis::Seq2SeqAnalysis> analysis);

    // Cross-attention when an encoder-decoder model is opened.
    forward::AttentionKind attentionKind() const { return m_kind; }

    void setAttentionKind(forward::AttentionKind kind);

    // The stack whose heads the views show: the decoder's for decoder and cross-attention,
    // else the model itself (its spec gives layerCount, headCount and the own scale).
    const model::Model* shownStack() const;

    // The rows predictions are about: the decoder's for an encoder-decoder model (row t predicts
    // target token t), else result(). Null without a result.
    std::shared_ptr<const analysis::SentenceAnalysis> predictionRows() const;

    // Features that re-run a one-stack model (ablation, attribution methods, corpus scoring,
    // survey, importance): empty when available, else why not (for a tool tip or message).
    QString unsupportedReason() const;

    // nullopt: the model's own scale (1/sqrt(d_k); 1 for T5).
    std::optional<float> scale() const { return m_scale; }

    void setScale(std::optional<float> scale);

    // Input longer than the model's positions: refused (inputTooLong tells the user, who may
    // turn this on) or, when on, cut to the longest prefix that fits (analysis/truncation.h).
    bool truncateLongInput() const { return m_truncate; }

    void setTruncateLongInput(bool on);

    // True when the result is of a cut text: its text is a proper prefix of text().
    bool resultIsTruncated() const;

    // From the ComputeService: text() has `tokens` tokens and the model reads at most `limit`.
    void reportInputTooLong(int tokens, int limit);

    // The result for the current model, text and settings; null until one is computed. With
    // ablations set it is the ablated pass (every view shows how downstream heads change);
    // cleanResult() is then the clean pass over the same input, else the same as result().
    std::shared_ptr<const analysis::SentenceAnalysis> result() const { return m_result; }

    std::shared_ptr<const analysis::SentenceAnalysis> cleanResult() const { return m_clean; }

    // A clean result: no ablation effects.
    void setResult(std::shared_ptr<const analysis::SentenceAnalysis> result);

    // The heads ablated in every pass (forward/interventions.h), in canonical order (layer,
    // group before query head, target). Ablating a head replaces whatever ablation covered it
    // (its own, or its key/value group's); a group replaces the ablations of its query heads.
    const std::vector<forward::HeadAblation>& ablations() const { return m_ablations; }

    void setAblations(std::vector<forward::HeadAblation> ablations);
    void ablateHead(HeadId head, forward::AblationKind kind, bool kvGroup = false);
    void clearAblation(HeadId head);  // the ablation covering `head`, if any
    void clearAblations();
    // The ablation in the list that covers `head` (its own or its group's).
    std::optional<forward::HeadAblation> ablationCovering(HeadId head) const;

    // True when the model shares key/value heads (grouped-query attention), so a group can be
    // ablated apart from one query head.
    bool hasKvGroups() const;

    // What an ablated result changed (null for a clean one), and where the means of Mean
    // ablations came from ("12 treebank sentences", "the current sentence"; empty without).
    std::shared_ptr<const analysis::AblationEffects> ablationEffects() const { return m_effects; }

    QString meanSource() const { return m_meanSource; }

    struct AblatedResult {
        std::shared_ptr<const analysis::SentenceAnalysis> clean;
        std::shared_ptr<const analysis::SentenceAnalysis> ablated;
        std::shared_ptr<const analysis::AblationEffects> effects;
        QString meanSource;
    };

    void setAblatedResult(AblatedResult result);

    // One head's maps for display. With recorded maps they are copied out at once. When the
    // sentence's maps did not fit the memory budget, the last kCachedHeads heads recomputed
    // are kept; for any other head this returns null and asks the ComputeService for it
    // (headRecordRequested, once per round), which answers through setHeadRecord or
    // setHeadRecordFailed; views redraw on headRecordChanged. Null without a result.
    std::shared_ptr<const forward::HeadRecord> headRecord(HeadId head);

    // True while `head` of the current result has been asked of the service and not answered.
    bool waitsForHeadRecord(HeadId head) const { return m_waiting.count(head) > 0; }

    // Why the core could not recompute `head` for the current result; empty if it did not fail.
    QString headRecordError(HeadId head) const;

    // Requests come in rounds: a new result, selected head or compare head starts a new round,
    // and the views (which all observe those changes) ask again for what they show. Requests
    // of an older round that have not started yet are no longer wanted.
    quint64 headRequestRound() const { return m_round; }

    // The service's answers about `forResult`'s heads. Answers about any other result than the
    // current one are dropped: the sentence, settings or model changed while they ran.
    void setHeadRecord(const std::shared_ptr<const analysis::SentenceAnalysis>& forResult,
                       HeadId head, std::shared_ptr<const forward::HeadRecord> record);
    void setHeadRecordFailed(const std::shared_ptr<const analysis::SentenceAnalysis>& forResult,
                             HeadId head, const QString& message);
    // The request was superseded before it ran; a view still showing `head` asks again.
    void dropHeadRecordRequest(const std::shared_ptr<const analysis::SentenceAnalysis>& forResult,
                               HeadId head);

    static constexpr std::size_t kCachedHeads = 8;

    // Memory the full maps of one sentence may take before only summaries are kept.
    std::size_t mapBudgetBytes() const { return m_mapBudget; }

    void setMapBudgetBytes(std::size_t bytes);

    HeadId selectedHead() const { return m_selected; }

    void selectHead(HeadId head);

    // The token position whose predictions are shown (a query row clicked in the head view);
    // -1 for none. Kept while the sentence is long enough.
    int selectedToken() const { return m_selectedToken; }

    void selectToken(int index);

    // Head B of the Compare tab. It follows A, on the head after A in A's layer (followingHead),
    // until a B is picked (setCompareHead); a picked B stays until a new model is opened.
    HeadId compareHead() const { return m_compare; }

    void setCompareHead(HeadId head);

    bool compareFollowsSelected() const { return m_compareFollows; }

    // The position whose predictions are shown: the selected token, else the last token (causal
    // LM) or the first mask token (masked LM); -1 for none.
    int predictionPosition() const;

    // One token's standing in the other pass of an ablation: its probability and rank there.
    struct PredictionShift {
        float otherProbability = 0;
        int otherRank = 0;  // 1-based over the whole vocabulary
    };

    struct Predictions {
        std::shared_ptr<const analysis::SentenceAnalysis> result;  // null: none yet
        int position = -1;
        std::vector<forward::TokenPrediction> top;  // of result(): ablated when ablations are set
        // With ablations only (else empty): the clean pass's top tokens, where each of them
        // went in the ablated pass, and where each of `top` stood in the clean pass.
        std::vector<forward::TokenPrediction> cleanTop;
        std::vector<PredictionShift> cleanTopInAblated;  // [cleanTop]
        std::vector<PredictionShift> topInClean;         // [top]
        // Encoder-decoder models: the target token the row produces under teacher forcing
        // (-1: past the target), its label and its standing among all tokens.
        std::int32_t targetId = -1;
        QString targetLabel;
        PredictionShift targetStanding;
    };

    // The predictions at predictionPosition() for the current result, once computed.
    const Predictions& predictions() const { return m_predictions; }

    // Dropped unless about the current result and position.
    void setPredictions(Predictions predictions);

    // The treebank read last (gold trees, the sentence list); null before any.
    std::shared_ptr<const Treebank> treebank() const { return m_treebank; }

    void setTreebank(std::shared_ptr<const Treebank> treebank);

    // Every head's scores on the treebank for the current model; null when there are none.
    std::shared_ptr<const DependencyScores> dependencyScores() const { return m_scores; }

    // Dropped when computed with another model than the current one.
    void setDependencyScores(std::shared_ptr<const DependencyScores> scores);

    // The current sentence's gold tree in the treebank, aligned to its tokens; null if none.
    std::shared_ptr<const SentenceGold> sentenceGold() const { return m_gold; }

    // The CorefUD corpus read last (kept for rescoring it); null before any.
    std::shared_ptr<const analysis::CorefCorpus> corefCorpus() const { return m_corefCorpus; }

    // Every head's coreference scores for the current model; null when there are none.
    std::shared_ptr<const CorefScores> corefScores() const { return m_corefScores; }

    // Dropped when computed with another model than the current one; keeps their corpus.
    void setCorefScores(std::shared_ptr<const CorefScores> scores);

    // The gold coreference arcs of the window on screen (the text is a scored window's);
    // null otherwise.
    std::shared_ptr<const WindowGold> windowGold() const { return m_windowGold; }

    // Every head's (or key/value group's) importance on a corpus for the current model; null
    // when there is none. Dropped when computed with another model than the current one.
    std::shared_ptr<const ImportanceRun> importance() const { return m_importance; }

    void setImportance(std::shared_ptr<const ImportanceRun> run);

    // Every head's corpus survey and labels for the current model; null when there is none.
    // Dropped when computed with another model than the current one.
    std::shared_ptr<const SurveyRun> survey() const { return m_survey; }

    void setSurvey(std::shared_ptr<const SurveyRun> run);

    // The survey's head labels as the head views show them (session/head_labels.h); empty
    // without a survey.
    HeadLabels headLabels() const;

    // The label the user asked to see ("induct", or a family: "pos", "syn"; empty: none): views
    // that show heads highlight those carrying it (analysis::headsWithLabel). Kept across
    // surveys; cleared with the model.
    QString labelFilter() const { return m_labelFilter; }

    void setLabelFilter(const QString& tag);

    // Attribution maps (issue 19, session/attribution.h), always of cleanResult(): with
    // ablations set they are the unablated model's. attribution() returns a method's maps, or
    // null and asks the service for them (attributionRequested, once, unless it was cancelled
    // or failed: requestAttribution asks again). Flow is unavailable above kFlowMaxTokens.
    AttributionPtr attribution(analysis::AttributionMethod method);
    const AttributionState& attributionState(analysis::AttributionMethod method) const;
    bool attributionAvailable(analysis::AttributionMethod method) const;
    void requestAttribution(analysis::AttributionMethod method);
    void cancelAttribution(analysis::AttributionMethod method);
    // The service's answers; dropped unless about the current clean pass.
    void setAttribution(const std::shared_ptr<const analysis::SentenceAnalysis>& forResult,
                        analysis::AttributionMethod method, AttributionPtr maps);
    void setAttributionProgress(const std::shared_ptr<const analysis::SentenceAnalysis>& forResult,
                                analysis::AttributionMethod method, double fraction);
    void setAttributionFailed(const std::shared_ptr<const analysis::SentenceAnalysis>& forResult,
                              analysis::AttributionMethod method, const QString& message);

    // The method the head view shows (Raw: the head's own maps) and the Methods tab's pair.
    analysis::AttributionMethod headViewMethod() const { return m_headViewMethod; }

    void setHeadViewMethod(analysis::AttributionMethod method);

    MethodPair methodPair() const { return m_methodPair; }

    void setMethodPair(MethodPair pair);

    render::HeatmapStyle heatmapStyle() const { return m_style; }

    void setHeatmapStyle(const render::HeatmapStyle& style);

    // Shown in the window's message bar; the session itself keeps everything it had.
    void reportError(const QString& message);
    // A message reported earlier no longer holds (a job that was cancelled or failed has since
    // succeeded): the message bar hides it if it still shows it (issue 30).
    void withdrawMessage(const QString& message);
    // The model's load warnings and a result's (NaN met), one "Warning: …" line each, told by
    // warningReported: the window shows them apart from errors.
    void reportWarnings(const std::vector<std::string>& warnings);

    int layerCount() const;
    int headCount() const;

signals:
    void modelChanged();
    void textChanged(const QString& text);
    // takesTokenIds() or tokenIdInput() changed (a new model, an edit).
    void tokenIdInputChanged();
    void computeSettingsChanged();  // mask, scale, memory budget or truncation
    void resultChanged();
    void selectedHeadChanged(attnscope::HeadId head);
    void compareHeadChanged(attnscope::HeadId head);
    void selectedTokenChanged(int index);
    void heatmapStyleChanged();
    void predictionsChanged();
    void ablationsChanged();
    void treebankChanged();
    void dependencyScoresChanged();
    // A new treebank changed sentenceGold(); a new result changes it too, under resultChanged.
    void sentenceGoldChanged();
    void corefScoresChanged();
    // New coreference scores changed windowGold(); a new result changes it under resultChanged.
    void windowGoldChanged();
    void importanceChanged();
    void surveyChanged();
    void headLabelsChanged();  // with every surveyChanged: views follow this one
    void labelFilterChanged(const QString& tag);
    void errorReported(const QString& message);
    void messageWithdrawn(const QString& message);
    void warningReported(const QString& message);
    void inputTooLong(int tokens, int limit);
    void targetTextChanged(const QString& text);
    void attentionKindChanged(attnscope::forward::AttentionKind kind);
    // For the ComputeService: recompute `head` of the current result (headRecord missed).
    void headRecordRequested(attnscope::HeadId head);
    // A record asked for arrived, failed or was dropped: views waiting for `head` redraw.
    void headRecordChanged(attnscope::HeadId head);
    // Attribution maps: the service is to compute or cancel one; a state changed (arrived,
    // failed, cancelled, all dropped); a slow one's fraction done.
    void attributionRequested(attnscope::analysis::AttributionMethod method);
    void attributionCancelRequested(attnscope::analysis::AttributionMethod method);
    void attributionsChanged();
    void attributionProgress(attnscope::analysis::AttributionMethod method, double fraction);
    void headViewMethodChanged();
    void methodPairChanged();

private:
    HeadId clamp(HeadId head) const;
    HeadId followingHead(HeadId a) const;
    void applyResult(std::shared_ptr<const analysis::SentenceAnalysis> result);
    // The shown kind's part of m_seq2seq as result and clean result (session_seq2seq.cpp).
    void applySeq2SeqKind();
    void startRound();
    void parseTokenIds();
    void refreshGold();
    // Drops the attributions of an older clean pass; true when it did (the caller emits
    // attributionsChanged after resultChanged, once views hold the new result's gold and
    // tokens). attribution.cpp, as the attribution functions above.
    bool syncAttributions();
    void startAttribution(analysis::AttributionMethod method);
    void requestAttributionAgain(analysis::AttributionMethod method);

    std::shared_ptr<const model::Model> m_model;
    QString m_modelPath;
    QString m_text;
    QString m_targetText;
    TokenIdList m_tokenIds;
    std::vector<std::int32_t> m_decodedTarget;
    std::shared_ptr<const analysis::Seq2SeqAnalysis> m_seq2seq;
    forward::AttentionKind m_kind = forward::AttentionKind::Cross;
    forward::MaskChoice m_mask;
    std::optional<float> m_scale;
    bool m_truncate = false;
    std::shared_ptr<const analysis::SentenceAnalysis> m_result;
    std::shared_ptr<const analysis::SentenceAnalysis> m_clean;
    std::shared_ptr<const analysis::AblationEffects> m_effects;
    QString m_meanSource;
    std::vector<forward::HeadAblation> m_ablations;
    std::size_t m_mapBudget = std::size_t{1} << 30;  // 1 GiB
    // Recomputed heads of m_result, most recent first; emptied with every new result.
    std::deque<std::pair<HeadId, std::shared_ptr<const forward::HeadRecord>>> m_records;
    std::set<HeadId> m_waiting;  // asked of the service in this round, not answered yet
    std::map<HeadId, QString> m_failures;
    quint64 m_round = 0;
    HeadId m_selected;
    HeadId m_compare;
    bool m_compareFollows = true;
    int m_selectedToken = -1;
    render::HeatmapStyle m_style;
    Predictions m_predictions;
    std::shared_ptr<const Treebank> m_treebank;
    std::shared_ptr<const DependencyScores> m_scores;
    std::shared_ptr<const SentenceGold> m_gold;
    std::shared_ptr<const analysis::CorefCorpus> m_corefCorpus;
    std::shared_ptr<const CorefScores> m_corefScores;
    std::shared_ptr<const WindowGold> m_windowGold;
    std::shared_ptr<const ImportanceRun> m_importance;
    std::shared_ptr<const SurveyRun> m_survey;
    QString m_labelFilter;
    AttributionStore m_attributions;
    analysis::AttributionMethod m_headViewMethod = analysis::AttributionMethod::Raw;
    MethodPair m_methodPair;
};

}  // namespace attnscope::app
