#include "analyses/dependencies/dependency_table_model.h"

#include <cmath>

#include <QBrush>
#include <QFont>
#include <QPalette>

namespace attnscope::app {

DependencyTableModel::DependencyTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void DependencyTableModel::setResults(
    std::shared_ptr<const analysis::DependencyAccumulator> results, std::int64_t minCount) {
    beginResetModel();
    m_results = std::move(results);
    m_minCount = minCount;
    m_table = m_results ? m_results->relationTable(minCount) : analysis::RelationTable{};
    endResetModel();
}

std::optional<analysis::RelationRow> DependencyTableModel::rowAt(int row) const {
    const int main = static_cast<int>(m_table.rows.size());
    if (row >= 0 && row < main) {
        return m_table.rows[static_cast<std::size_t>(row)];
    }
    const int rare = row - main - 1;  // after the separator
    if (hasSeparator() && rare >= 0 && rare < static_cast<int>(m_table.rare.size())) {
        return m_table.rare[static_cast<std::size_t>(rare)];
    }
    return std::nullopt;
}

int DependencyTableModel::rowOf(const std::string& relation) const {
    for (int r = 0; r < rowCount(); ++r) {
        if (const auto row = rowAt(r); row && row->relation == relation) {
            return r;
        }
    }
    return -1;
}

bool DependencyTableModel::isRare(int row) const {
    return hasSeparator() && row > static_cast<int>(m_table.rows.size()) && row < rowCount();
}

int DependencyTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid()) {
        return 0;
    }
    return static_cast<int>(m_table.rows.size()) +
           (hasSeparator() ? 1 + static_cast<int>(m_table.rare.size()) : 0);
}

int DependencyTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString DependencyTableModel::directionText(analysis::Direction d) {
    return d == analysis::Direction::DepToHead ? tr("dep→head") : tr("head→dep");
}

QString DependencyTableModel::baselineText(const analysis::BestOffset& b) {
    QString offset = QString::number(b.offset);
    if (b.offset > 0) {
        offset.prepend(QLatin1Char('+'));
    }
    return QStringLiteral("%1: %2").arg(offset, percent(b.counts));
}

QVariant DependencyTableModel::display(const analysis::RelationRow& r, int column) const {
    switch (column) {
        case Relation:
            return QString::fromStdString(r.relation);
        case Words:
            return QVariant::fromValue<qlonglong>(r.count);
        case BestHead:
            return headText(r.best.head);
        case Direction:
            return directionText(r.best.direction);
        case Accuracy:
            return percent(r.best.counts);
        case Baseline:
            return baselineText(r.baseline);
        default:
            return {};
    }
}

QVariant DependencyTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) {
        return {};
    }
    const auto row = rowAt(index.row());
    if (!row) {  // the separator
        if (role == Qt::DisplayRole && index.column() == Relation) {
            return tr("rare (< %1 words)").arg(m_minCount);
        }
        if (role == Qt::ForegroundRole) {
            return QBrush(QPalette().color(QPalette::PlaceholderText));
        }
        return {};
    }
    switch (role) {
        case Qt::DisplayRole:
            return display(*row, index.column());
        case Qt::TextAlignmentRole:
            return index.column() == Relation ? QVariant()
                                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::ForegroundRole:
            return isRare(index.row())
                       ? QVariant(QBrush(QPalette().color(QPalette::PlaceholderText)))
                       : QVariant();
        case Qt::FontRole:
            if (row->relation == analysis::kAllRelations) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            return {};
        case Qt::ToolTipRole:
            return tr("%1: %2 of %3 words correct for head %4 (%5, Clark's “%6”)%7%8")
                .arg(QString::fromStdString(row->relation))
                .arg(row->best.counts.correct)
                .arg(row->best.counts.predicted())
                .arg(headText(row->best.head), directionText(row->best.direction),
                     QString::fromUtf8(analysis::directionName(row->best.direction).data()),
                     noPredictionText(row->best.counts),
                     isRare(index.row()) ? tr("\nrare: fewer than %1 words").arg(m_minCount)
                                         : QString());
        default:
            return {};
    }
}

QVariant DependencyTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    if (role == Qt::DisplayRole) {
        static const char* const names[] = {"Relation",  "Words",    "Best head",
                                            "Direction", "Accuracy", "Best offset"};
        return tr(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case BestHead:
                return tr("Layer-head of the most accurate head, 0-based");
            case Baseline:
                return tr("Best fixed-offset baseline: predict the word at this offset");
            default:
                return {};
        }
    }
    return {};
}

Qt::ItemFlags DependencyTableModel::flags(const QModelIndex& index) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) {
        return Qt::NoItemFlags;
    }
    if (!rowAt(index.row())) {
        return Qt::NoItemFlags;
    }
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

}  // namespace attnscope::app
