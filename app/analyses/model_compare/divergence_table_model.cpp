#include "analyses/model_compare/divergence_table_model.h"

#include <cmath>
#include <iterator>

namespace attnscope::app {

namespace {

const ResultsTableModel::ColumnText kColumns[] = {
    {"Rank", "1: the head whose attention moved most between the two models"},
    {"Layer", nullptr},
    {"Head", nullptr},
    {"JS / row",
     "Jensen–Shannon divergence of the head's maps in A and B, per query row (nats, "
     "natural log: 0 … ln 2 ≈ 0.693)"},
    {"JS total", "The divergences of all query rows summed (nats)"},
    {"Max row", "The divergence of the query row that moved most (nats)"},
    {"At query", "That query row: its position and token"},
};
static_assert(std::size(kColumns) == DivergenceTableModel::ColumnCount);

}  // namespace

QString divergenceText(double nats) {
    if (!std::isfinite(nats)) {
        return QStringLiteral("–");
    }
    if (nats == 0.0) {
        return QStringLiteral("0");
    }
    return std::abs(nats) >= 1e-3 ? QString::number(nats, 'f', 4) : QString::number(nats, 'e', 2);
}

DivergenceTableModel::DivergenceTableModel(QObject* parent) : ResultsTableModel(kColumns, parent) {}

void DivergenceTableModel::setComparison(
    std::shared_ptr<const ModelCompareDocument::Comparison> comparison) {
    beginResetModel();
    m_comparison = std::move(comparison);
    m_ranks.clear();
    if (m_comparison) {
        const analysis::ModelComparison& c = m_comparison->heads;
        m_ranks.assign(c.heads.size(), 0);
        const std::vector<analysis::HeadDivergence> ranked = c.ranked();
        for (std::size_t r = 0; r < ranked.size(); ++r) {
            m_ranks[static_cast<std::size_t>(headIndex(ranked[r].head, c.nHeads))] =
                static_cast<int>(r + 1);
        }
    }
    endResetModel();
}

const analysis::HeadDivergence& DivergenceTableModel::at(int row) const {
    return m_comparison->heads.heads.at(static_cast<std::size_t>(row));
}

HeadId DivergenceTableModel::headOf(int row) const {
    return at(row).head;
}

int DivergenceTableModel::rowOf(HeadId head) const {
    if (!m_comparison) {
        return -1;
    }
    const analysis::ModelComparison& c = m_comparison->heads;
    const auto row = headIndex(head, c.nHeads);
    return row >= 0 && row < static_cast<std::ptrdiff_t>(c.heads.size()) ? static_cast<int>(row)
                                                                         : -1;
}

int DivergenceTableModel::rankOf(HeadId head) const {
    const int row = rowOf(head);
    return row < 0 ? 0 : m_ranks.at(static_cast<std::size_t>(row));
}

int DivergenceTableModel::rows() const {
    return m_comparison ? static_cast<int>(m_comparison->heads.heads.size()) : 0;
}

QVariant DivergenceTableModel::sortValue(int row, int column) const {
    const analysis::HeadDivergence& d = at(row);
    switch (column) {
        case Rank:
            return m_ranks.at(static_cast<std::size_t>(row));
        case Layer:
        case Head:
            return row;  // model order: by layer, then head
        case Mean:
            return static_cast<double>(d.mean);
        case Total:
            return static_cast<double>(d.total);
        case MaxRow:
            return static_cast<double>(d.maxRow);
        case MaxQuery:
            return d.maxRowIndex;
        default:
            return {};
    }
}

QVariant DivergenceTableModel::text(int row, int column) const {
    const analysis::HeadDivergence& d = at(row);
    switch (column) {
        case Rank:
            return QString::number(m_ranks.at(static_cast<std::size_t>(row)));
        case Layer:
            return QString::number(d.head.layer);
        case Head:
            return QString::number(d.head.head);
        case Mean:
            return divergenceText(d.mean);
        case Total:
            return divergenceText(d.total);
        case MaxRow:
            return divergenceText(d.maxRow);
        case MaxQuery:
            return QStringLiteral("%1 %2")
                .arg(d.maxRowIndex)
                .arg(QString::fromStdString(m_comparison->a->label(d.maxRowIndex)));
        default:
            return {};
    }
}

QVariant DivergenceTableModel::toolTip(int row, int) const {
    const analysis::HeadDivergence& d = at(row);
    return tr("Layer %1, head %2: Jensen–Shannon divergence %3 nats per query row, %4 in all; "
              "query %5 moved most (%6). Click to select the head; double-click to see it in "
              "both models side by side (Compare tab).")
        .arg(d.head.layer)
        .arg(d.head.head)
        .arg(divergenceText(d.mean), divergenceText(d.total))
        .arg(d.maxRowIndex)
        .arg(divergenceText(d.maxRow));
}

}  // namespace attnscope::app
