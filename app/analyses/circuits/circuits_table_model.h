// Every head's weight-space scores as a Qt table model (issue 34): layer, head, OV copying
// score, positional previous-token score and the top singular value of W_QK and of W_OV, as the
// core has them ("—" where it has none: NaN sorts below every number). Keeps a shared pointer to
// an immutable run; GUI thread only.
#pragma once

#include <memory>

#include "analyses/circuits/circuits_document.h"
#include "analyses/corpus/results_table_model.h"
#include "attnscope/base/head_id.h"

namespace attnscope::app {

class CircuitsTableModel : public ResultsTableModel {
    Q_OBJECT

public:
    enum Column { Layer, Head, Copying, Positional, TopQk, TopOv, ColumnCount };

    explicit CircuitsTableModel(QObject* parent = nullptr);

    // Null clears the table. Rows are the heads, layer by layer.
    void setRun(std::shared_ptr<const CircuitsDocument::Run> run);

    HeadId headOf(int row) const;

protected:
    int rows() const override;
    QVariant text(int row, int column) const override;
    QVariant sortValue(int row, int column) const override;
    QVariant toolTip(int row, int column) const override;

private:
    double value(int row, int column) const;

    std::shared_ptr<const CircuitsDocument::Run> m_run;
};

}  // namespace attnscope::app
