// The document every view observes: the open model, the sentence, the compute settings, the
// latest result and the selected heads. Lives in the GUI thread; holds no logic beyond keeping
// its fields consistent (e.g. clamping the selected head to the model's size). The
// ComputeService updates it; views read it and call its setters for user choices.
#pragma once

#include <deque>
#include <memory>
#include <optional>

#include <QObject>
#include <QString>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/head_record.h"
#include "attnscope/model/model.h"
#include "render/heatmap_image.h"

namespace attnscope::app {

class AnalysisSession : public QObject {
    Q_OBJECT

public:
    explicit AnalysisSession(QObject* parent = nullptr);

    std::shared_ptr<const model::Model> model() const { return m_model; }

    QString modelPath() const { return m_modelPath; }

    // A new model resets the mask to the model's default and keeps the text.
    void setModel(std::shared_ptr<const model::Model> model, const QString& path);

    QString text() const { return m_text; }

    void setText(const QString& text);

    forward::MaskChoice mask() const { return m_mask; }

    void setMask(const forward::MaskChoice& mask);

    // nullopt: the model's own scale (1/sqrt(d_k)).
    std::optional<float> scale() const { return m_scale; }

    void setScale(std::optional<float> scale);

    // The result for the current model, text and settings; null until one is computed.
    std::shared_ptr<const analysis::SentenceAnalysis> result() const { return m_result; }

    void setResult(std::shared_ptr<const analysis::SentenceAnalysis> result);

    // One head's maps for display: the recorded ones, or — when the sentence's maps did not
    // fit the memory budget — recomputed by the core from that layer's input and cached for
    // the last few heads asked for. Null result: an empty record.
    forward::HeadRecord headRecord(HeadId head) const;

    // Memory the full maps of one sentence may take before only summaries are kept.
    std::size_t mapBudgetBytes() const { return m_mapBudget; }

    void setMapBudgetBytes(std::size_t bytes);

    HeadId selectedHead() const { return m_selected; }

    void selectHead(HeadId head);

    // The token position whose predictions are shown (a query row clicked in the head view);
    // -1 for none. Kept while the sentence is long enough.
    int selectedToken() const { return m_selectedToken; }

    void selectToken(int index);

    HeadId compareHead() const { return m_compare; }

    void setCompareHead(HeadId head);

    render::HeatmapStyle heatmapStyle() const { return m_style; }

    void setHeatmapStyle(const render::HeatmapStyle& style);

    // Shown in the window's message bar; the session itself keeps everything it had.
    void reportError(const QString& message);

    int layerCount() const;
    int headCount() const;

signals:
    void modelChanged();
    void textChanged(const QString& text);
    void computeSettingsChanged();  // mask or scale
    void resultChanged();
    void selectedHeadChanged(attnscope::HeadId head);
    void compareHeadChanged(attnscope::HeadId head);
    void selectedTokenChanged(int index);
    void heatmapStyleChanged();
    void errorReported(const QString& message);

private:
    HeadId clamp(HeadId head) const;

    std::shared_ptr<const model::Model> m_model;
    QString m_modelPath;
    QString m_text;
    forward::MaskChoice m_mask;
    std::optional<float> m_scale;
    std::shared_ptr<const analysis::SentenceAnalysis> m_result;
    std::size_t m_mapBudget = std::size_t{1} << 30;  // 1 GiB
    mutable std::deque<std::pair<HeadId, std::shared_ptr<const forward::HeadRecord>>> m_records;
    HeadId m_selected;
    HeadId m_compare;
    int m_selectedToken = -1;
    render::HeatmapStyle m_style;
};

}  // namespace attnscope::app

Q_DECLARE_METATYPE(attnscope::HeadId)
