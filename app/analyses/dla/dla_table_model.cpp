#include "analyses/dla/dla_table_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>

#include "analyses/dla/dla_terms.h"

namespace attnscope::app {

namespace {

const ResultsTableModel::ColumnText kColumns[] = {
    {"Rank", "1: the term with the largest |value|"},
    {"Term", "L3H7: layer 3's head 7; L3mlp: its MLP; L3attn_bias: its attention output bias"},
    {"Value", "What the term adds to the logit (of the target minus the distractor)"},
    {"Kind", nullptr},
};
static_assert(std::size(kColumns) == DlaTableModel::ColumnCount);

}  // namespace

DlaTableModel::DlaTableModel(QObject* parent) : ResultsTableModel(kColumns, parent) {}

void DlaTableModel::setRun(std::shared_ptr<const DlaDocument::Run> run) {
    beginResetModel();
    m_run = std::move(run);
    m_ranks.clear();
    if (m_run) {
        const std::vector<analysis::DlaTerm>& terms = m_run->attribution.terms;
        std::vector<int> order(terms.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&terms](int a, int b) {
            return std::abs(terms[static_cast<std::size_t>(a)].value) >
                   std::abs(terms[static_cast<std::size_t>(b)].value);
        });
        m_ranks.resize(terms.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            m_ranks[static_cast<std::size_t>(order[i])] = static_cast<int>(i) + 1;
        }
    }
    endResetModel();
}

const analysis::DlaTerm& DlaTableModel::termOf(int row) const {
    return m_run->attribution.terms.at(static_cast<std::size_t>(row));
}

std::optional<HeadId> DlaTableModel::headOf(int row) const {
    if (!m_run || row < 0 || row >= rows()) {
        return std::nullopt;
    }
    const analysis::DlaTerm& t = termOf(row);
    if (t.kind != analysis::DlaTermKind::Head) {
        return std::nullopt;
    }
    return HeadId{t.layer, t.head};
}

int DlaTableModel::rows() const {
    return m_run ? static_cast<int>(m_run->attribution.terms.size()) : 0;
}

QVariant DlaTableModel::text(int row, int column) const {
    const analysis::DlaTerm& t = termOf(row);
    switch (column) {
        case Rank:
            return QString::number(m_ranks.at(static_cast<std::size_t>(row)));
        case Term:
            return QString::fromStdString(t.name());
        case Kind:
            return QString::fromStdString(dlaKindName(t.kind));
        case Value:
            return QString::asprintf("%+.4f", t.value);
        default:
            return {};
    }
}

QVariant DlaTableModel::sortValue(int row, int column) const {
    const analysis::DlaTerm& t = termOf(row);
    switch (column) {
        case Rank:
            return m_ranks.at(static_cast<std::size_t>(row));
        case Term:
            return row;  // the model's order
        case Kind:
            return QString::fromStdString(dlaKindName(t.kind));
        case Value:
            return t.value;
        default:
            return {};
    }
}

QVariant DlaTableModel::toolTip(int row, int column) const {
    const analysis::DlaTerm& t = termOf(row);
    if (column == Term && t.kind == analysis::DlaTermKind::Head) {
        return tr("Click to open head %1-%2 in the Head view").arg(t.layer).arg(t.head);
    }
    return {};
}

QVariant DlaTableModel::alignment(int, int column) const {
    return column == Term || column == Kind ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
}

}  // namespace attnscope::app
