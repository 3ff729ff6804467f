#include "analyses/patching/patching_table_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>

#include "analyses/patching/patching_figure.h"

namespace attnscope::app {

namespace {

const ResultsTableModel::ColumnText kColumns[] = {
    {"Rank", "1: the patch with the largest |normalised metric|"},
    {"Site",
     "L3H7: layer 3's head 7 (@4: at position 4 only); L3 @4: the layer's activation at "
     "position 4"},
    {"Token", "The clean prompt's token at the site's position"},
    {"Metric",
     "(LD patched − LD corrupted) / (LD clean − LD corrupted): 1 restores the clean "
     "run's logit difference, 0 leaves the corrupted one"},
    {"LD", "The patched run's logit difference (target − distractor)"},
};
static_assert(std::size(kColumns) == PatchingTableModel::ColumnCount);

// |metric|, undefined ones below every defined one.
double size(double metric) {
    return std::isnan(metric) ? -1.0 : std::abs(metric);
}

}  // namespace

PatchingTableModel::PatchingTableModel(QObject* parent) : ResultsTableModel(kColumns, parent) {}

void PatchingTableModel::setSweep(std::shared_ptr<const PatchingDocument::Sweep> sweep) {
    beginResetModel();
    m_sweep = std::move(sweep);
    m_ranks.clear();
    if (m_sweep) {
        const std::vector<double>& metric = m_sweep->grid.metric;
        std::vector<int> order(metric.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&metric](int a, int b) {
            return size(metric[static_cast<std::size_t>(a)]) >
                   size(metric[static_cast<std::size_t>(b)]);
        });
        m_ranks.resize(metric.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            m_ranks[static_cast<std::size_t>(order[i])] = static_cast<int>(i) + 1;
        }
    }
    endResetModel();
}

PatchingTableModel::Cell PatchingTableModel::cellOf(int row) const {
    const analysis::PatchingGrid& g = m_sweep->grid;
    return {row / (g.nUnits * g.nPositions), (row / g.nPositions) % g.nUnits, row % g.nPositions};
}

std::optional<HeadId> PatchingTableModel::headOf(int row) const {
    if (!m_sweep || row < 0 || row >= rows() || !sweepsHeads(m_sweep->grid.sweep)) {
        return std::nullopt;
    }
    const Cell c = cellOf(row);
    return HeadId{c.layer, c.unit};
}

int PatchingTableModel::rows() const {
    return m_sweep ? static_cast<int>(m_sweep->grid.metric.size()) : 0;
}

QString PatchingTableModel::siteName(const Cell& c) const {
    switch (m_sweep->grid.sweep) {
        case analysis::PatchSweep::Head:
            return QStringLiteral("L%1H%2").arg(c.layer).arg(c.unit);
        case analysis::PatchSweep::HeadPosition:
            return QStringLiteral("L%1H%2 @%3").arg(c.layer).arg(c.unit).arg(c.position);
        default:
            return QStringLiteral("L%1 @%2").arg(c.layer).arg(c.unit);
    }
}

QVariant PatchingTableModel::text(int row, int column) const {
    const Cell c = cellOf(row);
    const auto i = static_cast<std::size_t>(row);
    const analysis::PatchSweep sweep = m_sweep->grid.sweep;
    switch (column) {
        case Rank:
            return QString::number(m_ranks.at(i));
        case Site:
            return siteName(c);
        case Token: {
            if (sweep == analysis::PatchSweep::Head) {
                return QString();
            }
            const int p = sweep == analysis::PatchSweep::HeadPosition ? c.position : c.unit;
            return QString::fromStdString(
                m_sweep->endpoints->cleanLabels.at(static_cast<std::size_t>(p)));
        }
        case Metric: {
            const double v = m_sweep->grid.metric[i];
            return std::isnan(v) ? tr("undefined") : QString::asprintf("%+.4f", v);
        }
        case Ld:
            return QString::asprintf("%+.4f", m_sweep->grid.ld[i]);
        default:
            return {};
    }
}

QVariant PatchingTableModel::sortValue(int row, int column) const {
    const auto i = static_cast<std::size_t>(row);
    switch (column) {
        case Rank:
            return m_ranks.at(i);
        case Site:
        case Token:
            return row;  // the core's order
        case Metric: {
            const double v = m_sweep->grid.metric[i];
            return std::isnan(v) ? -1e300 : v;
        }
        case Ld:
            return m_sweep->grid.ld[i];
        default:
            return {};
    }
}

QVariant PatchingTableModel::toolTip(int row, int column) const {
    if (column == Site) {
        if (const auto head = headOf(row)) {
            return tr("Click to open head %1-%2 in the Head view").arg(head->layer).arg(head->head);
        }
    }
    return {};
}

QVariant PatchingTableModel::alignment(int, int column) const {
    return column == Site || column == Token ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                             : QVariant(Qt::AlignRight | Qt::AlignVCenter);
}

}  // namespace attnscope::app
