// Every head of a survey run as a Qt table model (issue 18): layer, head, its labels (tags,
// strongest first), for a treebank the head's best relation, its accuracy and its margin over
// the relation's offset baseline, then every score of surveyScoreNames() under a short title (the
// full name and rule in the header's tool tip). Display text in DisplayRole ("–" for an
// undefined value), the number in SortRole (NaN when undefined). SurveySortModel sorts those
// numbers with NaN last in either order and keeps only the rows of a label filter. Keeps a shared
// pointer to an immutable run; GUI thread only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <QSortFilterProxyModel>

#include "analyses/corpus/results_table_model.h"
#include "analyses/survey/survey_document.h"

namespace attnscope::app {

// "prev", "TL induct no BOS": the table's column title of a survey score name.
QString surveyScoreTitle(const std::string& name);
// "Mean attention to the previous token (Clark et al.; S4)": the score in words, with its rule.
QString surveyScoreDescription(const std::string& name);

// Rich text: rules L1–L10 with the thresholds `rules` holds (the Labels column's tool tip).
QString labelRulesTooltip(const analysis::LabelRules& rules);

// A score the Survey dock charts, with the chart's title.
struct HeadlineScore {
    std::string name;  // "prev"
    QString title;     // "previous token"
};

// The nine scores whose distributions the dock shows: prev, next, self, first_mass, sink_rate,
// entropy_norm, the induction probe where it ran (causal models) else tl_induction_mul_nobos,
// tl_dup_mul_nobos, positional_frequency.
std::vector<HeadlineScore> headlineScores(const SurveyRun& run);

// One entry of the label filter box: "pos (5)" -> "pos", "    pos+1 (3)" -> "pos+1".
struct LabelFilterEntry {
    QString text;
    QString tag;
};

// The label families present in `run` in rule order (L1–L10; other families after), each with
// its head count and, when it has several tags or its one tag is not the family itself, those
// tags indented under it. Empty for a null run.
std::vector<LabelFilterEntry> labelFilterEntries(const SurveyRun* run);

class SurveyTableModel : public ResultsTableModel {
    Q_OBJECT

public:
    enum FixedColumn { Layer, Head, Labels, FixedColumns };

    // For a treebank, after the labels (what the head is for, before how it scores): the best
    // relation, its accuracy and margin.
    enum DependencyColumn { Relation, RelationAccuracy, RelationMargin, DependencyColumns };

    explicit SurveyTableModel(QObject* parent = nullptr);

    // Null clears the table. Rows are in head order (layer, then head).
    void setRun(std::shared_ptr<const SurveyRun> run);

    std::shared_ptr<const SurveyRun> run() const { return m_run; }

    HeadId headOf(int row) const;

    // The column of a score name; -1 when there is none.
    int scoreColumn(const std::string& name) const;
    // A treebank column; -1 without dependency results.
    int dependencyColumn(DependencyColumn which) const;
    // The column of the first score (after the treebank's when there are some).
    int firstScoreColumn() const;

protected:
    int rows() const override;
    int columns() const override;
    QVariant text(int row, int column) const override;
    QVariant sortValue(int row, int column) const override;
    QVariant toolTip(int row, int column) const override;  // the head's labels, with evidence
    QVariant alignment(int row, int column) const override;
    QVariant title(int column) const override;
    QVariant titleToolTip(int column) const override;

private:
    const analysis::BestRelation* relationOf(int row) const;
    // The column's title (`display`) or tool tip.
    QVariant header(int column, bool display) const;

    std::shared_ptr<const SurveyRun> m_run;
    const std::vector<std::string>* m_names;
};

class SurveySortModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit SurveySortModel(QObject* parent = nullptr);

    // Keeps source row i (head index i) where kept[i]; nullopt keeps every row.
    void setKeptRows(std::optional<std::vector<bool>> kept);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::optional<std::vector<bool>> m_kept;
};

}  // namespace attnscope::app
