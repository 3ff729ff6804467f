// The model comparison's part of the session (issue 32): a second model opened beside the
// session's (the same layers and heads: the same model as F16 and as Q4_K_M, as safetensors and
// as GGUF), and the sentence on screen through both, head by head: each head's Jensen–Shannon
// divergence between the two maps (analysis::compareModels) with both passes — or why there is
// none (the two tokenizers cut the sentence differently). A new main model drops all of it: the
// second model was checked against the old one's shape. The document gives the head views the
// second pass (HeadOverlays::counterpart, for the Compare tab) and, when the user asks for them,
// the divergences as head scores (the model grid's bars).
#pragma once

#include <memory>

#include <QString>

#include "attnscope/analysis/model_compare.h"
#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/model/model.h"
#include "session/analysis_document.h"
#include "session/head_scores.h"

namespace attnscope::app {

class ModelCompareDocument : public AnalysisDocument {
    Q_OBJECT

public:
    using AnalysisDocument::AnalysisDocument;

    struct SecondModel {
        std::shared_ptr<const model::Model> model;  // null: none open
        QString path;
    };

    // One sentence through both models: `a` is the session's clean pass of it, `b` the second
    // model's pass of the same token ids.
    struct Comparison {
        std::shared_ptr<const model::Model> modelA;
        std::shared_ptr<const model::Model> modelB;
        std::shared_ptr<const analysis::SentenceAnalysis> a;
        std::shared_ptr<const analysis::SentenceAnalysis> b;
        analysis::ModelComparison heads;
    };

    const SecondModel& secondModel() const { return m_second; }

    // The file or folder name of each model, as the tab and the tool tips name them.
    QString nameA() const;
    QString nameB() const;

    // Replaces the second model; the comparison of the old one goes.
    void setSecondModel(SecondModel second);

    // Why the last model chosen was not taken (its shape); empty once one is.
    QString refusal() const { return m_refusal; }

    // A model chosen was refused (the message bar tells why): the second model open, if any,
    // stays.
    void refuse(const QString& why);

    // Null until computed, and while the sentence does not tokenize the same in both models.
    std::shared_ptr<const Comparison> comparison() const { return m_comparison; }

    // Kept unless it was computed with models or a pass the session no longer shows (a newer
    // comparison is then on its way): false, and nothing changes.
    bool setComparison(std::shared_ptr<const Comparison> comparison);

    // Why there is no comparison of the sentence on screen; empty when there is one or none is
    // asked for. Setting one drops the comparison.
    QString notice() const { return m_notice; }

    void setNotice(const QString& notice);
    // No sentence to compare: no comparison and no notice.
    void clearComparison();

    // Whether the model grid shows each head's divergence (HeadOverlays::headScores).
    bool showsOnGrid() const { return m_onGrid; }

    void setShowOnGrid(bool on);

    // The head scores the grid shows: each head's mean divergence per query row.
    static HeadScores scoresOf(const Comparison& comparison, const QString& nameB);

    bool dropModel() override;
    void announceDropped() override;

signals:
    void secondModelChanged();
    void comparisonChanged();  // the comparison or the notice

private:
    // What the head views see of the comparison (HeadOverlays).
    void publish();
    void changeNotice(const QString& notice);

    SecondModel m_second;
    QString m_refusal;
    std::shared_ptr<const Comparison> m_comparison;
    QString m_notice;
    QString m_reported;  // the notice the message bar was told
    bool m_onGrid = false;
};

}  // namespace attnscope::app
