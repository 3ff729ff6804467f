// The shape of a corpus panel's results table (dependencies, coreference, importance, survey): a
// flat, read-only table model whose subclass says how many rows it has, what each cell shows,
// sorts by and explains, and — unless its columns are fixed, given as a table of texts — how
// many columns there are and what each is called. Every role of every cell outside the table,
// and of the vertical header, is empty. GUI thread only.
#pragma once

#include <span>

#include <QAbstractTableModel>

namespace attnscope::app {

class ResultsTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    // The number a QSortFilterProxyModel sorts by (the display text's, not the text).
    static constexpr int SortRole = Qt::UserRole;

    // A fixed column's header and its tool tip (null: none), translated as the subclass's own.
    struct ColumnText {
        const char* title;
        const char* toolTip;
    };

    explicit ResultsTableModel(std::span<const ColumnText> columns, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const final;
    int columnCount(const QModelIndex& parent = {}) const final;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const final;

protected:
    virtual int rows() const = 0;
    // By default, the fixed columns'.
    virtual int columns() const;

    // A cell's roles, for cells in the table: DisplayRole, SortRole (none unless overridden),
    // ToolTipRole (none), TextAlignmentRole (right, vertically centred) and any other (none).
    virtual QVariant text(int row, int column) const = 0;
    virtual QVariant sortValue(int row, int column) const;
    virtual QVariant toolTip(int row, int column) const;
    virtual QVariant alignment(int row, int column) const;
    virtual QVariant otherRole(int row, int column, int role) const;

    // A column's header and its tool tip; by default, the fixed column's.
    virtual QVariant title(int column) const;
    virtual QVariant titleToolTip(int column) const;

private:
    QVariant translated(const char* text) const;

    std::span<const ColumnText> m_columns;
};

}  // namespace attnscope::app
