#include "analyses/corpus/results_table_model.h"

namespace attnscope::app {

ResultsTableModel::ResultsTableModel(std::span<const ColumnText> columns, QObject* parent)
    : QAbstractTableModel(parent), m_columns(columns) {}

int ResultsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : rows();
}

int ResultsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : columns();
}

QVariant ResultsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows() || index.column() >= columns()) {
        return {};
    }
    const int row = index.row();
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole:
            return text(row, column);
        case SortRole:
            return sortValue(row, column);
        case Qt::ToolTipRole:
            return toolTip(row, column);
        case Qt::TextAlignmentRole:
            return alignment(row, column);
        default:
            return otherRole(row, column, role);
    }
}

QVariant ResultsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columns()) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        return title(section);
    }
    return role == Qt::ToolTipRole ? titleToolTip(section) : QVariant();
}

QVariant ResultsTableModel::sortValue(int, int) const {
    return {};
}

QVariant ResultsTableModel::toolTip(int, int) const {
    return {};
}

QVariant ResultsTableModel::alignment(int, int) const {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
}

QVariant ResultsTableModel::otherRole(int, int, int) const {
    return {};
}

int ResultsTableModel::columns() const {
    return static_cast<int>(m_columns.size());
}

QVariant ResultsTableModel::title(int column) const {
    return translated(m_columns[static_cast<std::size_t>(column)].title);
}

QVariant ResultsTableModel::titleToolTip(int column) const {
    return translated(m_columns[static_cast<std::size_t>(column)].toolTip);
}

QVariant ResultsTableModel::translated(const char* text) const {
    return text ? QVariant(metaObject()->tr(text, nullptr, -1)) : QVariant();
}

}  // namespace attnscope::app
