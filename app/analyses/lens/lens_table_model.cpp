#include "analyses/lens/lens_table_model.h"

#include <QBrush>
#include <QFont>

#include "analyses/lens/lens_colors.h"
#include "analyses/lens/lens_table.h"
#include "attnscope/forward/prediction.h"

namespace attnscope::app {

LensTableModel::LensTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void LensTableModel::setRun(std::shared_ptr<const LensDocument::Run> run) {
    beginResetModel();
    m_run = std::move(run);
    endResetModel();
}

void LensTableModel::setHighlight(int position) {
    if (position == m_highlight) {
        return;
    }
    m_highlight = position;
    if (columnCount() > 0) {
        emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::FontRole});
    }
}

QString LensTableModel::tokenText(std::int32_t id) const {
    return m_run ? QString::fromStdString(
                       analysis::tokenLabel(forward::tokenPiece(*m_run->model, id)))
                 : QString();
}

int LensTableModel::rowCount(const QModelIndex& parent) const {
    return m_run && !parent.isValid() ? m_run->lens.nStages : 0;
}

int LensTableModel::columnCount(const QModelIndex& parent) const {
    return m_run && !parent.isValid() ? m_run->lens.nTokens : 0;
}

QVariant LensTableModel::data(const QModelIndex& index, int role) const {
    if (!m_run || !index.isValid() || index.row() >= rowCount() ||
        index.column() >= columnCount()) {
        return {};
    }
    const analysis::LensCell& c = m_run->lens.at(index.row(), index.column());
    switch (role) {
        case Qt::DisplayRole:
            return c.top.empty() ? QString() : tokenText(c.top.front().id);
        case Qt::ToolTipRole:
            return cellToolTip(index.row(), index.column());
        case Qt::BackgroundRole:
            if (const auto color = rankBackground(c.targetRank)) {
                return QBrush(*color);
            }
            return {};
        case Qt::ForegroundRole:
            if (const auto color = rankText(c.targetRank)) {
                return QBrush(*color);
            }
            return {};
        case Qt::FontRole:
            if (index.column() == m_highlight) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            return {};
        case Qt::TextAlignmentRole:
            return QVariant(Qt::AlignCenter);
        case TopIdRole:
            return c.top.empty() ? QVariant() : QVariant(c.top.front().id);
        case TargetRankRole:
            return c.targetRank;
        default:
            return {};
    }
}

QString LensTableModel::cellToolTip(int stage, int position) const {
    const analysis::LensCell& c = m_run->lens.at(stage, position);
    QString tip =
        tr("<b>%1</b> at position %2 (“%3”)<br>")
            .arg(QString::fromStdString(lensStageName(stage)))
            .arg(position)
            .arg(QString::fromStdString(m_run->tokenLabels.at(static_cast<std::size_t>(position)))
                     .toHtmlEscaped());
    tip += QStringLiteral("<table>");
    for (std::size_t k = 0; k < c.top.size(); ++k) {
        tip += QStringLiteral("<tr><td>%1.</td><td>%2</td><td align=right>%3</td></tr>")
                   .arg(k + 1)
                   .arg(tokenText(c.top[k].id).toHtmlEscaped())
                   .arg(QString::number(static_cast<double>(c.top[k].probability), 'f', 4));
    }
    tip += QStringLiteral("</table>");
    tip += tr("target “%1”: p = %2, rank %3<br>KL(final ‖ this stage) = %4 nats")
               .arg(tokenText(c.target).toHtmlEscaped())
               .arg(QString::number(static_cast<double>(c.targetProbability), 'f', 4))
               .arg(c.targetRank)
               .arg(QString::number(c.klFromFinal, 'f', 4));
    return tip + tr("<br>Click to explain this position");
}

QString LensTableModel::stageToolTip(int stage) const {
    if (stage == 0) {
        return tr("The residual stream entering layer 0 (the embeddings)");
    }
    if (stage + 1 == rowCount()) {
        return tr("After the last layer: the model's own output");
    }
    return tr("The residual stream after layer %1").arg(stage - 1);
}

QVariant LensTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (!m_run) {
        return {};
    }
    if (orientation == Qt::Vertical) {
        if (role == Qt::DisplayRole) {
            return QString::fromStdString(lensStageLabel(section, rowCount()));
        }
        return role == Qt::ToolTipRole ? QVariant(stageToolTip(section)) : QVariant();
    }
    if (section < 0 || section >= columnCount()) {
        return {};
    }
    const QString token =
        QString::fromStdString(m_run->tokenLabels.at(static_cast<std::size_t>(section)));
    switch (role) {
        case Qt::DisplayRole:
            return QStringLiteral("%1 · %2").arg(section).arg(token);
        case Qt::ToolTipRole:
            return tr("Position %1: “%2”").arg(section).arg(token);
        case Qt::FontRole:
            if (section == m_highlight) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            return {};
        default:
            return {};
    }
}

}  // namespace attnscope::app
