// Every term of a direct logit attribution as a Qt table model (issue 34): its rank by |value|
// (1: the largest, so the table opens largest first), its name as the CSV writes it ("L3H7",
// "L3mlp", "embed"), its signed value and its kind (last: the name says it too). Sorting by the
// term keeps the model's order (embeddings, then layer by layer, then the biases). Keeps a shared
// pointer to an immutable run; GUI thread only.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "analyses/corpus/results_table_model.h"
#include "analyses/dla/dla_document.h"
#include "attnscope/base/head_id.h"

namespace attnscope::app {

class DlaTableModel : public ResultsTableModel {
    Q_OBJECT

public:
    enum Column { Rank, Term, Value, Kind, ColumnCount };

    explicit DlaTableModel(QObject* parent = nullptr);

    // Null clears the table. Rows are the terms in the model's order.
    void setRun(std::shared_ptr<const DlaDocument::Run> run);

    const analysis::DlaTerm& termOf(int row) const;

    // The head of a head term's row; none for the other terms.
    std::optional<HeadId> headOf(int row) const;

protected:
    int rows() const override;
    QVariant text(int row, int column) const override;
    QVariant sortValue(int row, int column) const override;
    QVariant toolTip(int row, int column) const override;
    QVariant alignment(int row, int column) const override;

private:
    std::shared_ptr<const DlaDocument::Run> m_run;
    std::vector<int> m_ranks;  // [terms]: 1 for the largest |value|
};

}  // namespace attnscope::app
