// The mention-group table of a coreference-scoring run as a Qt table model: one row per group
// (all, pronouns, proper nouns, other nominals) with the scored mentions, the group's most
// accurate head ("L-H", 0-based) and its accuracy (correct / predicted), and the accuracy of
// the three baselines (nearest, head match, rule-based sieve) over the same mentions.
// The model keeps a shared pointer to an immutable accumulator; GUI thread only.
#pragma once

#include <cstdint>
#include <memory>

#include "analyses/corpus/results_table_model.h"
#include "attnscope/analysis/coref_scoring.h"

namespace attnscope::app {

class CorefTableModel : public ResultsTableModel {
    Q_OBJECT

public:
    enum Column { Group, Scored, BestHead, Accuracy, Nearest, HeadMatch, Sieve, ColumnCount };

    explicit CorefTableModel(QObject* parent = nullptr);

    // Null clears the table.
    void setResults(std::shared_ptr<const analysis::CorefAccumulator> results);

    std::shared_ptr<const analysis::CorefAccumulator> results() const { return m_results; }

    // Display strings, shared with the panel and tests.
    static QString groupText(analysis::MentionGroup group);
    // "45.0 % (9/20)", "–" when nothing was predicted.
    static QString accuracyText(std::int64_t correct, std::int64_t predicted);
    static QString cellText(const analysis::CorefAccumulator& results, analysis::MentionGroup group,
                            int column);

protected:
    int rows() const override;
    QVariant text(int row, int column) const override;
    QVariant toolTip(int row, int column) const override;
    QVariant alignment(int row, int column) const override;  // the group's name to the left

private:
    std::shared_ptr<const analysis::CorefAccumulator> m_results;
};

}  // namespace attnscope::app
