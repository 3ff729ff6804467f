#include "analyses/importance/importance_table_model.h"

#include <cmath>

namespace attnscope::app {

namespace {

QString number(double value, int decimals) {
    return std::isfinite(value) ? QString::number(value, 'f', decimals) : QStringLiteral("–");
}

}  // namespace

ImportanceTableModel::ImportanceTableModel(QObject* parent) : QAbstractTableModel(parent) {}

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

int ImportanceTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_run) {
        return 0;
    }
    return static_cast<int>(m_run->result.deltaLoss.size());
}

int ImportanceTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
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

QString ImportanceTableModel::cellText(int row, int column) const {
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

QVariant ImportanceTableModel::data(const QModelIndex& index, int role) const {
    if (!m_run || !index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    switch (role) {
        case Qt::DisplayRole:
            return cellText(index.row(), index.column());
        case SortRole:
            return sortValue(index.row(), index.column());
        case Qt::TextAlignmentRole:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::ToolTipRole:
            return tr("%1: loss %2 with it ablated alone (clean %3); double-click to open it")
                .arg(unitName(m_run->result, layerOf(index.row()), unitOf(index.row())))
                .arg(number(m_run->result.ablatedLoss.at(static_cast<std::size_t>(index.row())), 4))
                .arg(number(m_run->result.cleanLoss, 4));
        default:
            return {};
    }
}

QVariant ImportanceTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
            case Rank:
                return tr("Rank");
            case Layer:
                return tr("Layer");
            case Unit:
                return m_run ? unitTitle(m_run->result) : tr("Head");
            case DeltaLoss:
                return tr("Δ loss");
            case AblatedLoss:
                return tr("Ablated loss");
            case Accuracy:
                return tr("Accuracy");
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case Rank:
                return tr("1: the head whose ablation alone raises the loss most");
            case DeltaLoss:
                return tr(
                    "Loss with this head ablated alone − the clean loss (mean −log p of "
                    "the targets)");
            case AblatedLoss:
                return tr("Loss with this head ablated alone");
            case Accuracy:
                return tr("Share of targets still predicted first with this head ablated");
            default:
                return {};
        }
    }
    return {};
}

}  // namespace attnscope::app
