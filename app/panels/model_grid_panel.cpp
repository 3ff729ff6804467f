#include "panels/model_grid_panel.h"

#include <QComboBox>
#include <QVBoxLayout>

#include "session/analysis_session.h"
#include "views/head_grid_model.h"
#include "views/head_grid_view.h"
#include "widgets/attention_kind_combo.h"

namespace attnscope::app {

ModelGridPanel::ModelGridPanel(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_model(new HeadGridModel(this)),
      m_grid(new HeadGridView(session, m_model, this)) {
    auto* order = new QComboBox(this);
    order->setObjectName(QStringLiteral("gridOrder"));
    order->addItems({tr("Heads in model order"), tr("Sorted by mean entropy (focused first)"),
                     tr("Sorted by max |logit|")});
    // The longest choice would otherwise set the dock's minimum width; the list shows it whole.
    order->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    order->setMinimumContentsLength(16);
    // Four thumbnails of a readable size and the layer labels; larger models scroll.
    m_grid->setMinimumSize(190, 160);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* kind = new AttentionKindCombo(session, this);
    kind->setObjectName(QStringLiteral("gridKind"));
    layout->addWidget(kind);  // encoder-decoder models: which kind the thumbnails show
    layout->addWidget(order);
    layout->addWidget(m_grid, 1);
    connect(order, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_model->setOrder(static_cast<HeadGridModel::Order>(i)); });
    connect(session, &AnalysisSession::resultChanged, this, &ModelGridPanel::showResult);
    connect(session, &AnalysisSession::heatmapStyleChanged, this, &ModelGridPanel::showResult);
}

void ModelGridPanel::showResult() {
    m_model->setResult(m_session->result(), m_session->heatmapStyle(),
                       m_session->ablationEffects());
}

}  // namespace attnscope::app
