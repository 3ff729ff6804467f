// The model grid as a table: rows are layers, columns are heads. Each cell offers the head's
// thumbnail (DecorationRole, a one-pixel-per-cell heatmap), a tooltip with its statistics,
// and its HeadId and statistics under custom roles. Heads within a layer can be shown in model
// order or sorted by a statistic; the cell then still carries the real HeadId.
#pragma once

#include <memory>
#include <vector>

#include <QAbstractTableModel>
#include <QImage>

#include "attnscope/analysis/sentence_analysis.h"
#include "render/heatmap_image.h"

namespace attnscope::app {

class HeadGridModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        HeadLayerRole = Qt::UserRole + 1,  // int
        HeadIndexRole,                     // int
        MeanEntropyRole,                   // double, nats
        MaxWeightRole,                     // double
        MaxAbsLogitRole,                   // double
        NormalizedEntropyRole,             // double in [0, 1]
        KvHeadRole,                        // int: the key/value head the query head reads
        KvGroupStartRole,                  // bool: first head of a GQA group (model order)
    };

    enum class Order { Model, ByEntropy, ByMaxLogit };

    explicit HeadGridModel(QObject* parent = nullptr);

    void setResult(std::shared_ptr<const analysis::SentenceAnalysis> result,
                   const render::HeatmapStyle& style);
    void setOrder(Order order);

    Order order() const { return m_order; }

    // Where a head sits in the grid under the current order.
    QModelIndex indexOf(HeadId head) const;
    HeadId headAt(const QModelIndex& index) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void rebuildOrder();
    const analysis::HeadStats& statsOf(HeadId head) const;

    std::shared_ptr<const analysis::SentenceAnalysis> m_result;
    std::vector<QImage> m_thumbnails;            // [headIndex(head, nHeads)]
    std::vector<std::vector<int>> m_columnHead;  // [layer][column] -> head
    Order m_order = Order::Model;
};

}  // namespace attnscope::app
