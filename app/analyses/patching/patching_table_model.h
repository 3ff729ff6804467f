// Every patched run of a sweep as a Qt table model (issue 34): its rank by |normalised metric|
// (1: the largest; undefined metrics last), the site ("L3H7", "L3H7 @4", "L3 @4"), the clean
// token at the site's position (empty for a head at every position), the normalised metric and
// the patched run's raw logit difference. Sorting by the site keeps the core's order (layer,
// unit, position). Keeps a shared pointer to an immutable sweep; GUI thread only.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "analyses/corpus/results_table_model.h"
#include "analyses/patching/patching_document.h"
#include "attnscope/base/head_id.h"

namespace attnscope::app {

class PatchingTableModel : public ResultsTableModel {
    Q_OBJECT

public:
    enum Column { Rank, Site, Token, Metric, Ld, ColumnCount };

    // The grid index of a row, decoded.
    struct Cell {
        int layer = 0;
        int unit = 0;
        int position = 0;
    };

    explicit PatchingTableModel(QObject* parent = nullptr);

    // Null clears the table. Rows are the grid's cells in its order.
    void setSweep(std::shared_ptr<const PatchingDocument::Sweep> sweep);

    Cell cellOf(int row) const;

    // The head of a row of a head sweep; none for the others.
    std::optional<HeadId> headOf(int row) const;

protected:
    int rows() const override;
    QVariant text(int row, int column) const override;
    QVariant sortValue(int row, int column) const override;
    QVariant toolTip(int row, int column) const override;
    QVariant alignment(int row, int column) const override;

private:
    QString siteName(const Cell& cell) const;

    std::shared_ptr<const PatchingDocument::Sweep> m_sweep;
    std::vector<int> m_ranks;  // [cells]: 1 for the largest |metric|
};

}  // namespace attnscope::app
