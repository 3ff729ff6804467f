#include "analyses/dependencies/dependency_table_model.h"

#include <cmath>
#include <iterator>

#include <QBrush>
#include <QFont>
#include <QPalette>

namespace attnscope::app {

namespace {

const ResultsTableModel::ColumnText kColumns[] = {
    {"Relation", nullptr},
    {"Words", nullptr},
    {"Best head", "Layer-head of the most accurate head, 0-based"},
    {"Direction", nullptr},
    {"Accuracy", nullptr},
    {"Best offset", "Best fixed-offset baseline: predict the word at this offset"},
};
static_assert(std::size(kColumns) == DependencyTableModel::ColumnCount);

QBrush placeholderBrush() {
    return QBrush(QPalette().color(QPalette::PlaceholderText));
}

}  // namespace

DependencyTableModel::DependencyTableModel(QObject* parent) : ResultsTableModel(kColumns, parent) {}

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

int DependencyTableModel::rows() const {
    return static_cast<int>(m_table.rows.size()) +
           (hasSeparator() ? 1 + static_cast<int>(m_table.rare.size()) : 0);
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

QVariant DependencyTableModel::text(int row, int column) const {
    const auto r = rowAt(row);
    if (!r) {
        return column == Relation ? QVariant(tr("rare (< %1 words)").arg(m_minCount)) : QVariant();
    }
    switch (column) {
        case Relation:
            return QString::fromStdString(r->relation);
        case Words:
            return QVariant::fromValue<qlonglong>(r->count);
        case BestHead:
            return headText(r->best.head);
        case Direction:
            return directionText(r->best.direction);
        case Accuracy:
            return percent(r->best.counts);
        case Baseline:
            return baselineText(r->baseline);
        default:
            return {};
    }
}

QVariant DependencyTableModel::toolTip(int row, int) const {
    const auto r = rowAt(row);
    if (!r) {
        return {};
    }
    return tr("%1: %2 of %3 words correct for head %4 (%5, Clark's “%6”)%7%8")
        .arg(QString::fromStdString(r->relation))
        .arg(r->best.counts.correct)
        .arg(r->best.counts.predicted())
        .arg(headText(r->best.head), directionText(r->best.direction),
             QString::fromUtf8(analysis::directionName(r->best.direction).data()),
             noPredictionText(r->best.counts),
             isRare(row) ? tr("\nrare: fewer than %1 words").arg(m_minCount) : QString());
}

QVariant DependencyTableModel::alignment(int row, int column) const {
    if (!rowAt(row) || column == Relation) {
        return {};
    }
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
}

QVariant DependencyTableModel::otherRole(int row, int, int role) const {
    const auto r = rowAt(row);
    if (role == Qt::ForegroundRole) {
        return !r || isRare(row) ? QVariant(placeholderBrush()) : QVariant();
    }
    if (role == Qt::FontRole && r && r->relation == analysis::kAllRelations) {
        QFont bold;
        bold.setBold(true);
        return bold;
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
