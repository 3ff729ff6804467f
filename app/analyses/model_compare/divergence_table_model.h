// Every head of a model comparison as a Qt table model, for the ranking beside the grid: its rank
// (1 = moved most: the largest divergence summed over the query rows), layer, head, the
// Jensen–Shannon divergence per query row, summed, and of the row that moved most with that
// row's token. Display text in DisplayRole, the number to sort by in SortRole, so that a
// QSortFilterProxyModel sorts numerically. Keeps a shared pointer to an immutable comparison;
// GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include "analyses/corpus/results_table_model.h"
#include "analyses/model_compare/model_compare_document.h"

namespace attnscope::app {

class DivergenceTableModel : public ResultsTableModel {
    Q_OBJECT

public:
    enum Column { Rank, Layer, Head, Mean, Total, MaxRow, MaxQuery, ColumnCount };

    explicit DivergenceTableModel(QObject* parent = nullptr);

    // Null clears the table. Rows are in the model's order (layer, then head).
    void setComparison(std::shared_ptr<const ModelCompareDocument::Comparison> comparison);

    // The head of a row of this model.
    HeadId headOf(int row) const;
    // The row of a head; -1 without a comparison.
    int rowOf(HeadId head) const;
    // A head's rank, 1 = moved most; 0 without a comparison.
    int rankOf(HeadId head) const;

protected:
    int rows() const override;
    QVariant text(int row, int column) const override;
    QVariant sortValue(int row, int column) const override;
    QVariant toolTip(int row, int column) const override;

private:
    const analysis::HeadDivergence& at(int row) const;

    std::shared_ptr<const ModelCompareDocument::Comparison> m_comparison;
    std::vector<int> m_ranks;  // [row]: 1 = moved most
};

// A divergence in nats for tables and tool tips: four decimals, or three significant digits
// below 0.001 (quantization moves most heads by 1e-5 or less), "0" for none at all.
QString divergenceText(double nats);

}  // namespace attnscope::app
