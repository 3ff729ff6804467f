// Every unit (head, or key/value group) of a head importance run as a Qt table model: its rank
// (1 = ablating it alone raises the loss most), layer, head or group, Δ loss, the loss and the
// accuracy with it ablated. Display text in DisplayRole, the number to sort by in SortRole,
// so a QSortFilterProxyModel sorts numerically. Keeps a shared pointer to an immutable run;
// GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include "analyses/corpus/results_table_model.h"
#include "analyses/importance/importance_document.h"

namespace attnscope::app {

class ImportanceTableModel : public ResultsTableModel {
    Q_OBJECT

public:
    enum Column { Rank, Layer, Unit, DeltaLoss, AblatedLoss, Accuracy, ColumnCount };

    explicit ImportanceTableModel(QObject* parent = nullptr);

    // Null clears the table. Rows are in the model's order (layer, then head).
    void setRun(std::shared_ptr<const ImportanceRun> run);

    std::shared_ptr<const ImportanceRun> run() const { return m_run; }

    // (layer, unit) of a row of this model.
    int layerOf(int row) const;
    int unitOf(int row) const;

protected:
    int rows() const override;
    QVariant text(int row, int column) const override;
    QVariant sortValue(int row, int column) const override;
    QVariant toolTip(int row, int column) const override;
    QVariant title(int column) const override;  // the Unit column's: Head or Group

private:
    std::shared_ptr<const ImportanceRun> m_run;
    std::vector<int> m_ranks;
};

}  // namespace attnscope::app
