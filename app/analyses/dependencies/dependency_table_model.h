// The relation table of a dependency-scoring run as a Qt table model: one row per relation
// ("all" first, then by count), then, when some relations have fewer words than the minimum
// count, a separator row and those rare relations greyed. Columns: relation, words, best head
// ("L-H", 0-based), direction, accuracy, best fixed-offset baseline ("+1: 45.5 %").
// The model keeps a shared pointer to an immutable accumulator; GUI thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "analyses/corpus/results_table_model.h"
#include "analyses/corpus/score_text.h"
#include "attnscope/analysis/dependency_accumulator.h"

namespace attnscope::app {

class DependencyTableModel : public ResultsTableModel {
    Q_OBJECT

public:
    enum Column { Relation, Words, BestHead, Direction, Accuracy, Baseline, ColumnCount };

    explicit DependencyTableModel(QObject* parent = nullptr);

    // Null clears the table.
    void setResults(std::shared_ptr<const analysis::DependencyAccumulator> results,
                    std::int64_t minCount);

    std::shared_ptr<const analysis::DependencyAccumulator> results() const { return m_results; }

    const analysis::RelationTable& table() const { return m_table; }

    std::int64_t minCount() const { return m_minCount; }

    // The table row shown at `row`; empty for the separator row.
    std::optional<analysis::RelationRow> rowAt(int row) const;
    // The view row of `relation`, or -1.
    int rowOf(const std::string& relation) const;
    // Whether `row` is a rare relation (below the minimum count).
    bool isRare(int row) const;

    Qt::ItemFlags flags(const QModelIndex& index) const override;

    // Display strings, shared with the panel and tests.
    // (corpus/score_text.h writes heads and accuracies the same in every corpus panel.)
    static QString headText(HeadId head) { return corpus::headText(head); }

    static QString directionText(analysis::Direction d);

    static QString percent(const analysis::Counts& c) { return corpus::percentText(c); }

    static QString noPredictionText(const analysis::Counts& c) {
        return corpus::noPredictionText(c);
    }

    static QString baselineText(const analysis::BestOffset& b);

protected:
    int rows() const override;
    // The separator row's cells are empty but its title, in the placeholder text colour.
    QVariant text(int row, int column) const override;
    QVariant toolTip(int row, int column) const override;
    QVariant alignment(int row, int column) const override;
    QVariant otherRole(int row, int column, int role) const override;  // colour, font

private:
    bool hasSeparator() const { return !m_table.rare.empty(); }

    std::shared_ptr<const analysis::DependencyAccumulator> m_results;
    analysis::RelationTable m_table;
    std::int64_t m_minCount = 100;
};

}  // namespace attnscope::app
