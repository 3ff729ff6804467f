// What the analyses draw on the shared head views, given to the session by them: the head
// labels (the survey's), the label the user asked to see, the gold coreference arcs of the
// window on screen (the coreference analysis installs where they come from), a score for every
// head and the sentence through a second model (the model comparison's). The head views read
// them here and name no analysis; the session drops them with the model.
#pragma once

#include <functional>
#include <memory>

#include <QObject>
#include <QString>

#include "attnscope/analysis/sentence_analysis.h"
#include "session/counterpart_pass.h"
#include "session/head_labels.h"
#include "session/head_scores.h"
#include "session/window_gold.h"

namespace attnscope::app {

class AnalysisSession;

class HeadOverlays : public QObject {
    Q_OBJECT

public:
    explicit HeadOverlays(const AnalysisSession& session) : m_session(session) {}

    // The labels the head views show (head_labels.h); empty without a survey.
    const HeadLabels& labels() const { return m_labels; }

    void setLabels(HeadLabels labels);

    // The label the user asked to see ("induct", or a family: "pos", "syn"; empty: none): views
    // that show heads highlight those carrying it (analysis::headsWithLabel). Kept across
    // surveys; cleared with the model.
    QString labelFilter() const { return m_labelFilter; }

    void setLabelFilter(const QString& tag);

    // The gold coreference arcs of the window on screen (the text is a scored window's); null
    // otherwise. Asked of the source once per result (refreshWindowGold), not per hover.
    std::shared_ptr<const WindowGold> windowGold() const { return m_windowGold; }

    using WindowGoldSource =
        std::function<std::shared_ptr<const WindowGold>(const analysis::SentenceAnalysis&)>;
    // Null: nowhere. The caller emits windowGoldChanged when the views are to follow.
    void setWindowGoldSource(WindowGoldSource source);

    // For the session: the result on screen changed (it emits under resultChanged).
    void refreshWindowGold();

    // A score for every head (head_scores.h) that the model grid shows; empty: none.
    const HeadScores& headScores() const { return m_scores; }

    // Replaces whatever scores are shown (the last analysis to publish owns the slot).
    void setHeadScores(HeadScores scores);

    // Drops the scores if `owner` published them; another analysis's stay.
    void clearHeadScores(const QString& owner);

    // The sentence through a second model (counterpart_pass.h); null: none.
    std::shared_ptr<const CounterpartPass> counterpart() const { return m_counterpart; }

    void setCounterpart(std::shared_ptr<const CounterpartPass> counterpart);

    // For the session when another model opens: drops everything, and after the session's own
    // signals announces what was there.
    struct Dropped {
        bool labels = false;
        bool filter = false;
        bool scores = false;
        bool counterpart = false;
    };

    Dropped dropModel();
    void announceDropped(Dropped dropped);

signals:
    void labelsChanged();
    void labelFilterChanged(const QString& tag);
    void windowGoldChanged();
    void headScoresChanged();
    void counterpartChanged();

private:
    const AnalysisSession& m_session;
    HeadLabels m_labels;
    QString m_labelFilter;
    WindowGoldSource m_windowGoldSource;
    std::shared_ptr<const WindowGold> m_windowGold;
    HeadScores m_scores;
    std::shared_ptr<const CounterpartPass> m_counterpart;
};

}  // namespace attnscope::app
