#include "views/head_grid_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "render/head_colors.h"
#include "views/kv_groups.h"

namespace attnscope::app {

HeadGridModel::HeadGridModel(QObject* parent) : QAbstractTableModel(parent) {}

void HeadGridModel::setResult(std::shared_ptr<const analysis::SentenceAnalysis> result,
                              const render::HeatmapStyle& style,
                              std::shared_ptr<const analysis::AblationEffects> effects) {
    beginResetModel();
    m_result = std::move(result);
    m_effects = m_result && effects && effects->nLayers == m_result->forward.nLayers &&
                        effects->nHeads == m_result->forward.nHeads
                    ? std::move(effects)
                    : nullptr;
    m_thumbnails.clear();
    if (m_result) {
        const auto& f = m_result->forward;
        // The exported grid's rule: every head against one range (render/head_colors.h), from
        // its map or, without recorded maps, its pooled preview.
        const render::HeadColorRule rule(f, style);
        const render::ColorRange range = rule.rangeOfAllHeads();
        m_thumbnails.reserve(static_cast<std::size_t>(f.nLayers * f.nHeads));
        for (int layer = 0; layer < f.nLayers; ++layer) {
            for (int head = 0; head < f.nHeads; ++head) {
                m_thumbnails.push_back(rule.image({layer, head}, range));
            }
        }
    }
    rebuildOrder();
    endResetModel();
}

void HeadGridModel::setOrder(Order order) {
    if (order == m_order) {
        return;
    }
    beginResetModel();
    m_order = order;
    rebuildOrder();
    endResetModel();
}

const analysis::HeadStats& HeadGridModel::statsOf(HeadId head) const {
    return m_result->stats[static_cast<std::size_t>(headIndex(head, m_result->forward.nHeads))];
}

void HeadGridModel::rebuildOrder() {
    m_columnHead.clear();
    if (!m_result) {
        return;
    }
    const auto& f = m_result->forward;
    for (int layer = 0; layer < f.nLayers; ++layer) {
        std::vector<int> heads(static_cast<std::size_t>(f.nHeads));
        std::iota(heads.begin(), heads.end(), 0);
        const auto key = [&](int h) {
            const auto& s = statsOf({layer, h});
            return m_order == Order::ByEntropy ? s.meanEntropy : -s.maxAbsLogit;
        };
        if (m_order != Order::Model) {
            std::stable_sort(heads.begin(), heads.end(),
                             [&](int a, int b) { return key(a) < key(b); });
        }
        m_columnHead.push_back(std::move(heads));
    }
}

int HeadGridModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_result ? 0 : m_result->forward.nLayers;
}

int HeadGridModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_result ? 0 : m_result->forward.nHeads;
}

HeadId HeadGridModel::headAt(const QModelIndex& index) const {
    if (!index.isValid() || !m_result) {
        return {};
    }
    return {index.row(), m_columnHead[static_cast<std::size_t>(index.row())]
                                     [static_cast<std::size_t>(index.column())]};
}

QModelIndex HeadGridModel::indexOf(HeadId head) const {
    if (!m_result || head.layer < 0 || head.layer >= rowCount()) {
        return {};
    }
    const auto& row = m_columnHead[static_cast<std::size_t>(head.layer)];
    const auto it = std::find(row.begin(), row.end(), head.head);
    return it == row.end() ? QModelIndex() : index(head.layer, static_cast<int>(it - row.begin()));
}

QVariant HeadGridModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_result) {
        return {};
    }
    const HeadId h = headAt(index);
    const auto& s = statsOf(h);
    switch (role) {
        case Qt::DisplayRole:
            return QStringLiteral("%1-%2").arg(h.layer).arg(h.head);
        case Qt::DecorationRole:
            return m_thumbnails[static_cast<std::size_t>(headIndex(h, m_result->forward.nHeads))];
        case Qt::ToolTipRole:
            return toolTip(h);
        case KvHeadRole:
            return m_result->forward.kvHeadOf(h.head);
        case KvGroupStartRole:
            return m_order == Order::Model && startsKvGroup(m_result->forward, h.head);
        case HeadLayerRole:
            return h.layer;
        case HeadIndexRole:
            return h.head;
        case MeanEntropyRole:
            return static_cast<double>(s.meanEntropy);
        case MaxWeightRole:
            return static_cast<double>(s.maxWeight);
        case MaxAbsLogitRole:
            return static_cast<double>(s.maxAbsLogit);
        case NormalizedEntropyRole:
            return static_cast<double>(s.meanNormalizedEntropy);
        case AblationKindRole: {
            const auto kind = m_result->forward.ablationOf(h);
            return kind ? QString::fromStdString(forward::ablationKindName(*kind)) : QString();
        }
        case JsChangeRole:
            return std::isnan(jsOf(h)) ? QVariant() : QVariant(jsOf(h));
        case JsMarkRole: {
            // Log scale: 1e-4 nats is the faintest mark, 0.1 nats and more the strongest.
            const double js = jsOf(h);
            if (std::isnan(js) || js < kJsMarkThreshold) {
                return 0.0;
            }
            return std::clamp(0.15 + 0.85 * std::log10(js / kJsMarkThreshold) / 3.0, 0.15, 1.0);
        }
        case LabelTagRole: {
            const auto& labels = labelsOf(h);
            return labels.empty() ? QString() : QString::fromStdString(labels.front().tag);
        }
        case LabelsRole:
            return labelTags(labelsOf(h));
        case LabelHighlightRole:
            return highlightOf(h);
        case ScoreRole:
            return std::isnan(m_scores.of(h)) ? QVariant() : QVariant(m_scores.of(h));
        case ScoreBarRole: {
            const double score = m_scores.of(h);
            if (std::isnan(score)) {
                return {};
            }
            const double low = m_scores.signedValues ? -1.0 : 0.0;
            return m_largestScore > 0 ? std::clamp(score / m_largestScore, low, 1.0) : 0.0;
        }
        case ScoreSignedRole:
            return m_scores.signedValues;
        default:
            return {};
    }
}

QString HeadGridModel::toolTip(HeadId h) const {
    const auto& s = statsOf(h);
    QString tip = tr("Layer %1, head %2\nmean entropy %3 nats (%4 of uniform)\n"
                     "max weight %5, max |logit| %6")
                      .arg(h.layer)
                      .arg(h.head)
                      .arg(s.meanEntropy, 0, 'f', 3)
                      .arg(QString::number(100.0 * s.meanNormalizedEntropy, 'f', 0) + "%")
                      .arg(s.maxWeight, 0, 'f', 3)
                      .arg(s.maxAbsLogit, 0, 'f', 2);
    const QString kv = kvSharingText(m_result->forward, h.head);
    if (!kv.isEmpty()) {
        tip += "\n" + kv;
    }
    tip += ablationTip(h);
    tip += scoreTip(h);
    const QString hint = tr(
        "Click: select · double-click: open · Ctrl+click or middle-click: compare with this head "
        "(B)");
    if (m_labels.empty()) {
        return tip + "\n" + hint;
    }
    // labelTooltip is rich text, so the whole tip becomes rich text (<qt> makes Qt read it so
    // whatever the first line holds).
    const auto& labels = labelsOf(h);
    const QString section =
        labels.empty() ? tr("none: no rule L1–L10 fits this head") : labelTooltip(labels);
    return QStringLiteral("<qt>%1<br><br><b>%2</b><br>%3<br><br>%4</qt>")
        .arg(tip.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")),
             tr("Labels (corpus survey)"), section, hint.toHtmlEscaped());
}

const std::vector<analysis::HeadLabel>& HeadGridModel::labelsOf(HeadId h) const {
    return m_labels.of(h);
}

int HeadGridModel::highlightOf(HeadId h) const {
    if (m_inFilter.empty()) {
        return -1;
    }
    if (h.layer < 0 || h.layer >= m_labels.nLayers() || h.head < 0 || h.head >= m_labels.nHeads()) {
        return 0;
    }
    return m_inFilter[static_cast<std::size_t>(headIndex(h, m_labels.nHeads()))];
}

void HeadGridModel::setLabels(HeadLabels labels) {
    if (labels == m_labels) {
        return;
    }
    m_labels = std::move(labels);
    rebuildFilter();
    emitForAllCells({LabelTagRole, LabelsRole, LabelHighlightRole, Qt::ToolTipRole});
}

void HeadGridModel::setLabelFilter(const QString& tag) {
    if (tag == m_labelFilter) {
        return;
    }
    m_labelFilter = tag;
    rebuildFilter();
    emitForAllCells({LabelHighlightRole});
}

// The filter is only active while there are labels to filter: without a survey no head is
// dimmed for a label nobody computed.
void HeadGridModel::rebuildFilter() {
    m_inFilter.clear();
    if (m_labels.empty() || m_labelFilter.isEmpty() || m_labels.nLayers() < 1 ||
        m_labels.nHeads() < 1) {
        return;
    }
    m_inFilter.assign(static_cast<std::size_t>(m_labels.nLayers() * m_labels.nHeads()), 0);
    for (const HeadId h :
         analysis::headsWithLabel(m_labels.all(), m_labelFilter.toStdString(), m_labels.nHeads())) {
        const auto k = static_cast<std::size_t>(headIndex(h, m_labels.nHeads()));
        if (k < m_inFilter.size()) {
            m_inFilter[k] = 1;
        }
    }
}

void HeadGridModel::setScores(HeadScores scores) {
    if (scores == m_scores) {
        return;
    }
    m_scores = std::move(scores);
    m_largestScore = m_scores.largest();
    emitForAllCells({ScoreRole, ScoreBarRole, ScoreSignedRole, Qt::ToolTipRole});
}

QString HeadGridModel::scoreTip(HeadId h) const {
    const double score = m_scores.of(h);
    if (std::isnan(score)) {
        return {};
    }
    // Small scores (a quantized model's heads move by 1e-5) keep three significant digits.
    const QString value = std::abs(score) >= 1e-3 || score == 0.0 ? QString::number(score, 'f', 4)
                                                                  : QString::number(score, 'e', 2);
    return QStringLiteral("\n%1: %2").arg(m_scores.name, value);
}

void HeadGridModel::emitForAllCells(const QList<int>& roles) {
    if (rowCount() > 0 && columnCount() > 0) {
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), roles);
    }
}

double HeadGridModel::jsOf(HeadId h) const {
    return m_effects ? m_effects->jsOf(h) : std::nan("");
}

QString HeadGridModel::ablationTip(HeadId h) const {
    QString tip;
    if (const auto kind = m_result->forward.ablationOf(h)) {
        tip += tr("\nAblated (%1)").arg(QString::fromStdString(forward::ablationKindName(*kind)));
    }
    const double js = jsOf(h);
    if (!std::isnan(js) && js >= kJsMarkThreshold) {
        tip += tr("\nJS change %1 nats").arg(js, 0, 'f', 4);
    } else if (js == 0.0) {
        tip += tr("\nUnchanged by the ablation");
    } else if (!std::isnan(js)) {
        tip += tr("\nJS change below %1 nats").arg(kJsMarkThreshold);
    }
    return tip;
}

QVariant HeadGridModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role == Qt::ToolTipRole && orientation == Qt::Horizontal && m_result &&
        m_order == Order::Model) {
        const QString kv = kvSharingText(m_result->forward, section);
        return kv.isEmpty() ? QVariant() : QVariant(tr("Head %1: %2").arg(section).arg(kv));
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    if (orientation == Qt::Vertical) {
        return tr("L%1").arg(section);
    }
    return columnLabel(section, m_prefixedColumns);
}

QString HeadGridModel::columnLabel(int section, bool prefixed) const {
    const int number = m_order == Order::Model ? section : section + 1;
    if (!prefixed) {
        return QString::number(number);
    }
    return m_order == Order::Model ? tr("H%1").arg(number) : tr("#%1").arg(number);
}

void HeadGridModel::setPrefixedColumns(bool prefixed) {
    if (prefixed == m_prefixedColumns) {
        return;
    }
    m_prefixedColumns = prefixed;
    if (columnCount() > 0) {
        emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
    }
}

}  // namespace attnscope::app
