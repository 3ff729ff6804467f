#include "analyses/importance/importance_table_model.h"

#include <cmath>
#include <iterator>

namespace attnscope::app {

namespace {

const ResultsTableModel::ColumnText kColumns[] = {
    {"Rank", "1: the head whose ablation alone raises the loss most"},
    {"Layer", nullptr},
    {"Head", nullptr},  // "Group" for key/value groups
    {"Δ loss", "Loss with this head ablated alone − the clean loss (mean −log p of the targets)"},
    {"Ablated loss", "Loss with this head ablated alone"},
    {"Accuracy", "Share of targets still predicted first with this head ablated"},
};
static_assert(std::size(kColumns) == ImportanceTableModel::ColumnCount);

QString number(double value, int decimals) {
    return std::isfinite(value) ? QString::number(value, 'f', decimals) : QStringLiteral("–");
}

}  // namespace

ImportanceTableModel::ImportanceTableModel(QObject* parent) : ResultsTableModel(kColumns, parent) {}

void ImportanceTableModel::setRun(std::shared_ptr<const ImportanceRun> run) {
    beginResetModel();
    m_run = std::move(run);
    m_ranks = m_run ? importanceRanks(m_run->result) : std::vector<int>{};
    endResetModel();
}

int ImportanceTableModel::layerOf(int row) const {
    return m_run && m_run->result.nUnits > 0 ? row / m_run->result.nUnits : 0;
}

int ImportanceTableModel::unitOf(int row) const {
    return m_run && m_run->result.nUnits > 0 ? row % m_run->result.nUnits : 0;
}

int ImportanceTableModel::rows() const {
    return m_run ? static_cast<int>(m_run->result.deltaLoss.size()) : 0;
}

QVariant ImportanceTableModel::sortValue(int row, int column) const {
    const analysis::ImportanceResult& r = m_run->result;
    const auto i = static_cast<std::size_t>(row);
    switch (column) {
        case Rank:
            return m_ranks.at(i);
        case Layer:
            return layerOf(row) * r.nUnits + unitOf(row);  // ties in a layer keep head order
        case Unit:
            return unitOf(row) * r.nLayers + layerOf(row);
        case DeltaLoss:
            return r.deltaLoss.at(i);
        case AblatedLoss:
            return r.ablatedLoss.at(i);
        case Accuracy:
            return r.ablatedAccuracy.at(i);
        default:
            return {};
    }
}

QVariant ImportanceTableModel::text(int row, int column) const {
    const analysis::ImportanceResult& r = m_run->result;
    const auto i = static_cast<std::size_t>(row);
    switch (column) {
        case Rank:
            return QString::number(m_ranks.at(i));
        case Layer:
            return QString::number(layerOf(row));
        case Unit:
            return r.kvGroups ? QStringLiteral("g%1").arg(unitOf(row))
                              : QString::number(unitOf(row));
        case DeltaLoss: {
            const double d = r.deltaLoss.at(i);
            return (d > 0 ? QStringLiteral("+") : QString()) + number(d, 4);
        }
        case AblatedLoss:
            return number(r.ablatedLoss.at(i), 4);
        case Accuracy:
            return number(100.0 * r.ablatedAccuracy.at(i), 1) + QStringLiteral(" %");
        default:
            return {};
    }
}

QVariant ImportanceTableModel::toolTip(int row, int) const {
    return tr("%1: loss %2 with it ablated alone (clean %3); double-click to open it")
        .arg(unitName(m_run->result, layerOf(row), unitOf(row)))
        .arg(number(m_run->result.ablatedLoss.at(static_cast<std::size_t>(row)), 4))
        .arg(number(m_run->result.cleanLoss, 4));
}

QVariant ImportanceTableModel::title(int column) const {
    return column == Unit && m_run ? unitTitle(m_run->result) : ResultsTableModel::title(column);
}

}  // namespace attnscope::app
