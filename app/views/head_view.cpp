#include "views/head_view.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "session/analysis_session.h"
#include "views/heatmap_widget.h"

namespace attnscope::app {

namespace {

QStringList labels(const analysis::SentenceAnalysis& a) {
    QStringList out;
    for (int i = 0; i < a.forward.nTokens; ++i) {
        out << QString::fromStdString(a.label(i));
    }
    return out;
}

}  // namespace

HeadView::HeadView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_layer(new QSpinBox(this)),
      m_head(new QSpinBox(this)),
      m_info(new QLabel(this)),
      m_heatmap(new HeatmapWidget(this)) {
    setObjectName(QStringLiteral("headView"));
    m_layer->setObjectName(QStringLiteral("headViewLayer"));
    m_head->setObjectName(QStringLiteral("headViewHead"));
    m_heatmap->setObjectName(QStringLiteral("headHeatmap"));
    m_info->setObjectName(QStringLiteral("headViewInfo"));
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Layer"), this));
    bar->addWidget(m_layer);
    bar->addWidget(new QLabel(tr("Head"), this));
    bar->addWidget(m_head);
    bar->addSpacing(12);
    bar->addWidget(m_info, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_heatmap, 1);
    m_heatmap->setTooltipFunction([this](int r, int c) { return tooltip(r, c); });
    connect(m_layer, &QSpinBox::valueChanged, this, [this](int v) {
        m_session->selectHead({v, m_session->selectedHead().head});
    });
    connect(m_head, &QSpinBox::valueChanged, this, [this](int v) {
        m_session->selectHead({m_session->selectedHead().layer, v});
    });
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, &HeadView::toggleMaskCell);
    connect(session, &AnalysisSession::resultChanged, this, &HeadView::refresh);
    connect(session, &AnalysisSession::selectedHeadChanged, this, &HeadView::refresh);
    connect(session, &AnalysisSession::heatmapStyleChanged, this, &HeadView::refresh);
    refresh();
}

void HeadView::refresh() {
    const auto result = m_session->result();
    const HeadId h = m_session->selectedHead();
    const QSignalBlocker b1(m_layer), b2(m_head);
    m_layer->setRange(0, std::max(0, m_session->layerCount() - 1));
    m_head->setRange(0, std::max(0, m_session->headCount() - 1));
    m_layer->setValue(h.layer);
    m_head->setValue(h.head);
    if (!result) {
        m_info->clear();
        m_heatmap->clear(m_session->model() ? tr("Type a sentence to see this head's attention.")
                                            : tr("Open a model to begin."));
        return;
    }
    const auto& f = result->forward;
    const auto& s = result->stats[static_cast<std::size_t>(h.layer * f.nHeads + h.head)];
    render::ColorRange range;
    const QImage img =
        render::heatmapImage(f.attention(h), &f.allowed, m_session->heatmapStyle(), &range);
    const QStringList tokens = labels(*result);
    m_heatmap->setMap(img, range, tokens, tokens, f.allowed);
    m_heatmap->setTitle(
        tr("Layer %1, head %2 (0-based) — rows: queries, columns: keys").arg(h.layer).arg(h.head));
    m_info->setText(tr("mean entropy %1 nats · max weight %2 · max |logit| %3 · scale %4 · mask %5")
                        .arg(s.meanEntropy, 0, 'f', 3)
                        .arg(s.maxWeight, 0, 'f', 3)
                        .arg(s.maxAbsLogit, 0, 'f', 2)
                        .arg(f.scales[static_cast<std::size_t>(h.layer)], 0, 'g', 4)
                        .arg(QString::fromStdString(f.maskKind)));
}

QString HeadView::tooltip(int row, int col) const {
    const auto result = m_session->result();
    if (!result) {
        return {};
    }
    const auto& f = result->forward;
    const HeadId h = m_session->selectedHead();
    const bool allowed = f.allowed(row, col) != 0;
    QString text = tr("query %1 “%2” → key %3 “%4”\n")
                       .arg(row)
                       .arg(QString::fromStdString(result->label(row)))
                       .arg(col)
                       .arg(QString::fromStdString(result->label(col)));
    if (!allowed) {
        return text + tr("masked (not attended)\nlogit before the mask %1")
                          .arg(f.logitsOf(h)(row, col), 0, 'f', 6);
    }
    return text + tr("weight %1\nlogit %2 (scaled, before softmax)")
                      .arg(f.attention(h)(row, col), 0, 'f', 6)
                      .arg(f.logitsOf(h)(row, col), 0, 'f', 6);
}

void HeadView::step(int dLayer, int dHead) {
    HeadId h = m_session->selectedHead();
    h.head += dHead;
    const int heads = m_session->headCount();
    if (heads > 0 && h.head >= heads) {  // wrap into the next layer
        h.head = 0;
        ++h.layer;
    } else if (h.head < 0) {
        h.head = heads - 1;
        --h.layer;
    }
    h.layer += dLayer;
    m_session->selectHead(h);
}

void HeadView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Left:
            step(0, -1);
            break;
        case Qt::Key_Right:
            step(0, 1);
            break;
        case Qt::Key_Up:
        case Qt::Key_PageUp:
            step(-1, 0);
            break;
        case Qt::Key_Down:
        case Qt::Key_PageDown:
            step(1, 0);
            break;
        default:
            QWidget::keyPressEvent(event);
            return;
    }
    event->accept();
}

void HeadView::toggleMaskCell(int row, int col) {
    forward::MaskChoice mask = m_session->mask();
    const auto result = m_session->result();
    if (mask.kind != forward::MaskKind::Custom || !result) {
        return;
    }
    const int n = result->forward.nTokens;
    if (!mask.custom || mask.custom->rows() != n) {
        mask.custom = result->forward.allowed;
    }
    (*mask.custom)(row, col) = (*mask.custom)(row, col) != 0 ? 0 : 1;
    m_session->setMask(mask);
}

}  // namespace attnscope::app
