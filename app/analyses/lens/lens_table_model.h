// The logit lens as a Qt table model (issue 34): a row per stage ("embed", "L0", …, the last
// being the model's own output), a column per token of the sentence. A cell shows the stage's
// top token there, coloured by the target's rank (lens_colors.h); its tool tip lists the top-k
// with their probabilities, the target's probability and rank and the KL from the final stage.
// The column of the prediction position (the Logit attribution tab's) is bold. Keeps a shared
// pointer to an immutable run; GUI thread only.
#pragma once

#include <memory>

#include <QAbstractTableModel>

#include "analyses/lens/lens_document.h"

namespace attnscope::app {

class LensTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        TopIdRole = Qt::UserRole,  // int: the top token's id
        TargetRankRole,            // int: the target's rank (1 = the most probable)
    };

    explicit LensTableModel(QObject* parent = nullptr);

    // Null clears the table.
    void setRun(std::shared_ptr<const LensDocument::Run> run);

    // The column drawn bold; -1 for none.
    void setHighlight(int position);

    // "·the": a token id as the cells show it.
    QString tokenText(std::int32_t id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QString cellToolTip(int stage, int position) const;
    QString stageToolTip(int stage) const;

    std::shared_ptr<const LensDocument::Run> m_run;
    int m_highlight = -1;
};

}  // namespace attnscope::app
