#include "analyses/circuits/circuits_table_model.h"

#include <cmath>
#include <iterator>
#include <limits>

#include "analyses/circuits/circuits_text.h"

namespace attnscope::app {

namespace {

const ResultsTableModel::ColumnText kColumns[] = {
    {"Layer", nullptr},
    {"Head", nullptr},
    {"Copying", "OV copying score: Σλ / Σ|λ| of W_E W_OV W_U's eigenvalues; +1 copies"},
    {"Positional",
     "Positional previous-token score: mean attention to the previous position "
     "from the learned position embeddings alone"},
    {"QK σ1", "The largest singular value of W_QK (the norm before attention folded in)"},
    {"OV σ1", "The largest singular value of W_OV (the norm before attention folded in)"},
};
static_assert(std::size(kColumns) == CircuitsTableModel::ColumnCount);

double first(const std::vector<double>& values) {
    return values.empty() ? std::nan("") : values.front();
}

}  // namespace

CircuitsTableModel::CircuitsTableModel(QObject* parent) : ResultsTableModel(kColumns, parent) {}

void CircuitsTableModel::setRun(std::shared_ptr<const CircuitsDocument::Run> run) {
    beginResetModel();
    m_run = std::move(run);
    endResetModel();
}

HeadId CircuitsTableModel::headOf(int row) const {
    return headAt(m_run->circuits, row);
}

int CircuitsTableModel::rows() const {
    return m_run ? static_cast<int>(m_run->circuits.heads.size()) : 0;
}

double CircuitsTableModel::value(int row, int column) const {
    const analysis::HeadWeights& h = m_run->circuits.heads.at(static_cast<std::size_t>(row));
    switch (column) {
        case Copying:
            return h.copying;
        case Positional:
            return h.positionalPrevious;
        case TopQk:
            return first(h.qkSingular);
        case TopOv:
            return first(h.ovSingular);
        default:
            return std::nan("");
    }
}

QVariant CircuitsTableModel::text(int row, int column) const {
    switch (column) {
        case Layer:
            return headOf(row).layer;
        case Head:
            return headOf(row).head;
        case Copying:
            return scoreText(value(row, column), true);
        default:
            return scoreText(value(row, column));
    }
}

QVariant CircuitsTableModel::sortValue(int row, int column) const {
    if (column == Layer || column == Head) {
        return column == Layer ? row : headOf(row).head * 100000 + row;
    }
    const double v = value(row, column);
    return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
}

QVariant CircuitsTableModel::toolTip(int row, int column) const {
    if (column == Copying && std::isnan(value(row, column))) {
        return copyingUndefined();
    }
    if (column == Positional && std::isnan(value(row, column))) {
        return positionalUndefined();
    }
    return tr("Click to show head %1's card").arg(headName(headOf(row)));
}

}  // namespace attnscope::app
