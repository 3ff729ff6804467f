// The document every view observes and the one holder of the sentence state: the open model,
// the sentence, the compute settings, the latest result and its head records (head_records.h),
// the predictions with the target and distractor picked among them, the treebank read last with
// the sentence's gold tree, the selected heads, the heads ablated with the ablated and clean
// results and their effects (session_ablations.cpp), the attribution maps (attribution_maps.h)
// and the overlays analyses give the shared head views (head_overlays.h). Each analysis keeps
// its own state in a document the session holds for it (analysis_document.h). Lives in the GUI
// thread; holds no logic beyond keeping its fields consistent (clamping the selected head to the
// model's size, dropping what belongs to an older model or result). The ComputeService fills it;
// views read it and call its setters for user choices.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "attnscope/analysis/ablation_effects.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/analysis/seq2seq_analysis.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"
#include "render/heatmap_image.h"
#include "session/analysis_document.h"
#include "session/attribution_maps.h"
#include "session/head_overlays.h"
#include "session/head_records.h"
#include "session/meta_types.h"
#include "session/one_of_each.h"
#include "session/predictions.h"
#include "session/token_id_input.h"
#include "session/treebank.h"

namespace attnscope::app {

class AnalysisSession : public QObject {
    Q_OBJECT

public:
    explicit AnalysisSession(QObject* parent = nullptr);

    std::shared_ptr<const model::Model> model() const { return m_model; }

    QString modelPath() const { return m_modelPath; }

    // A new model resets the mask to the model's default and keeps the text and the treebank;
    // the old model's result, predictions, ablations (the message bar says so when there were
    // any), head labels and everything the documents hold of it are dropped.
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

    // The saturation lab's QK-norm and soft-cap what-ifs (attention_what_if.h), applied to every
    // layer of every pass, like the scale. A new model starts from the model as it is.
    const forward::AttentionWhatIf& attentionWhatIf() const { return m_whatIf; }

    void setAttentionWhatIf(const forward::AttentionWhatIf& whatIf);

    // Whether the maps shown are the model's own: no what-if and no scale of the user's.
    bool showsModelAsIs() const { return m_whatIf.isModel() && !m_scale; }

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

    // The maps of the result's heads, recorded or recomputed (head_records.h).
    HeadRecords& headRecords() { return m_headRecords; }

    const HeadRecords& headRecords() const { return m_headRecords; }

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

    // The predictions at predictionPosition() for the current result, once computed.
    const Predictions& predictions() const { return m_predictions; }

    // Dropped unless about the current result and position.
    void setPredictions(Predictions predictions);

    // The target and distractor picked in the Predictions panel (predictions.h). A token id
    // means the same at every position and in every sentence, so both stay until the user
    // changes them or another model opens. A target equal to the distractor drops the
    // distractor.
    const PickedTokens& pickedTokens() const { return m_picked; }

    void pickTarget(std::optional<std::int32_t> id);
    void pickDistractor(std::optional<std::int32_t> id);

    // The treebank read last (gold trees, the sentence list); null before any.
    std::shared_ptr<const Treebank> treebank() const { return m_treebank; }

    void setTreebank(std::shared_ptr<const Treebank> treebank);

    // The current sentence's gold tree in the treebank, aligned to its tokens; null if none.
    std::shared_ptr<const SentenceGold> sentenceGold() const { return m_gold; }

    // What the analyses draw on the head views: labels, label filter, gold coreference arcs.
    HeadOverlays& overlays() { return m_overlays; }

    const HeadOverlays& overlays() const { return m_overlays; }

    // Attribution maps of cleanResult() (attribution_maps.h): with ablations set they are the
    // unablated model's.
    AttributionMaps& attributions() { return m_attributions; }

    const AttributionMaps& attributions() const { return m_attributions; }

    // The document of one analysis (analysis_document.h), made on first use.
    template <class Document>
    Document& document() {
        return m_documents.get<Document>(*this);
    }

    render::HeatmapStyle heatmapStyle() const { return m_style; }

    void setHeatmapStyle(const render::HeatmapStyle& style);

    // Shown in the window's message bar; the session itself keeps everything it had.
    void reportError(const QString& message);
    // Shown in the message bar as a note, neither error nor warning: what the user did happened
    // ("… was cancelled; the previous results stay").
    void reportNote(const QString& message);
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
    void pickedTokensChanged();
    void ablationsChanged();
    void treebankChanged();
    // A new treebank changed sentenceGold(); a new result changes it too, under resultChanged.
    void sentenceGoldChanged();
    void errorReported(const QString& message);
    void noteReported(const QString& message);
    void messageWithdrawn(const QString& message);
    void warningReported(const QString& message);
    void inputTooLong(int tokens, int limit);
    void targetTextChanged(const QString& text);
    void attentionKindChanged(attnscope::forward::AttentionKind kind);

private:
    HeadId clamp(HeadId head) const;
    HeadId followingHead(HeadId a) const;
    void applyResult(std::shared_ptr<const analysis::SentenceAnalysis> result);
    // The shown kind's part of m_seq2seq as result and clean result (session_seq2seq.cpp).
    void applySeq2SeqKind();
    void parseTokenIds();
    void refreshGold();
    void announceNewModel(bool hadAblations);

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
    forward::AttentionWhatIf m_whatIf;
    bool m_truncate = false;
    std::shared_ptr<const analysis::SentenceAnalysis> m_result;
    std::shared_ptr<const analysis::SentenceAnalysis> m_clean;
    std::shared_ptr<const analysis::AblationEffects> m_effects;
    QString m_meanSource;
    std::vector<forward::HeadAblation> m_ablations;
    std::size_t m_mapBudget = std::size_t{1} << 30;  // 1 GiB
    HeadRecords m_headRecords;                       // of m_result: reset with every new result
    HeadId m_selected;
    HeadId m_compare;
    bool m_compareFollows = true;
    int m_selectedToken = -1;
    render::HeatmapStyle m_style;
    Predictions m_predictions;
    PickedTokens m_picked;
    std::shared_ptr<const Treebank> m_treebank;
    std::shared_ptr<const SentenceGold> m_gold;
    HeadOverlays m_overlays{*this};
    AttributionMaps m_attributions{*this};
    OneOfEach<AnalysisDocument> m_documents;
};

}  // namespace attnscope::app
