#include "views/head_grid_view.h"

#include <algorithm>

#include <QContextMenuEvent>
#include <QHeaderView>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>

#include "models/head_grid_model.h"
#include "render/colormap.h"
#include "session/analysis_session.h"

namespace attnscope::app {

void HeadThumbnailDelegate::paint(QPainter* p, const QStyleOptionViewItem& option,
                                  const QModelIndex& index) const {
    const QImage thumb = index.data(Qt::DecorationRole).value<QImage>();
    const QRect cell = option.rect.adjusted(2, 2, -2, -2);
    const int strip = std::max(3, cell.height() / 12);
    const QRect imageRect = cell.adjusted(0, 0, 0, -strip - 1);
    p->save();
    p->setRenderHint(QPainter::SmoothPixmapTransform, false);
    if (!thumb.isNull()) {
        p->drawImage(imageRect, thumb);
    }
    const double h = index.data(HeadGridModel::NormalizedEntropyRole).toDouble();
    p->fillRect(QRect(cell.left(), cell.bottom() - strip + 1, cell.width(), strip),
                QColor(render::colorAt(render::Colormap::Magma, h)));
    const bool selected = option.state & QStyle::State_Selected;
    p->setPen(QPen(
        selected ? option.palette.color(QPalette::Highlight) : option.palette.color(QPalette::Mid),
        selected ? 3 : 1));
    p->drawRect(option.rect.adjusted(1, 1, -2, -2));
    if (index.data(HeadGridModel::KvGroupStartRole).toBool()) {
        // Grouped-query attention: a bar on the left edge where a new key/value head begins.
        p->fillRect(QRect(option.rect.left(), option.rect.top(), 2, option.rect.height()),
                    option.palette.color(QPalette::Text));
    }
    p->restore();
}

HeadGridView::HeadGridView(AnalysisSession* session, HeadGridModel* model, QWidget* parent)
    : QTableView(parent), m_session(session), m_model(model) {
    setObjectName(QStringLiteral("headGrid"));
    setModel(model);
    setItemDelegate(new HeadThumbnailDelegate(this));
    setSelectionMode(QAbstractItemView::SingleSelection);
    setSelectionBehavior(QAbstractItemView::SelectItems);
    setShowGrid(false);
    setMouseTracking(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    horizontalHeader()->setMinimumSectionSize(12);
    verticalHeader()->setMinimumSectionSize(12);
    setToolTip(
        tr("Click a head to select it, double-click to open it; Ctrl+click, middle-click "
           "or right-click ▸ Compare with this head makes it head B of the Compare tab"));
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        fitCells();
        syncSelection();
    });
    connect(selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) {
                    m_session->selectHead(m_model->headAt(current));
                }
            });
    connect(this, &QAbstractItemView::activated, this,
            [this](const QModelIndex& index) { emit headActivated(m_model->headAt(index)); });
    connect(session, &AnalysisSession::selectedHeadChanged, this, [this] { syncSelection(); });
}

QRect HeadGridView::headRect(HeadId head) const {
    return visualRect(m_model->indexOf(head));
}

void HeadGridView::syncSelection() {
    const QModelIndex index = m_model->indexOf(m_session->selectedHead());
    if (index.isValid() && index != currentIndex()) {
        selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
    }
}

// Ctrl+click and middle-click pick the Compare tab's head B; they must not also select the
// head, which would make A and B the same.
void HeadGridView::mousePressEvent(QMouseEvent* event) {
    const QModelIndex index = indexAt(event->position().toPoint());
    const bool pickB =
        event->button() == Qt::MiddleButton ||
        (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier) != 0);
    if (pickB && index.isValid()) {
        m_session->setCompareHead(m_model->headAt(index));
        event->accept();
        return;
    }
    QTableView::mousePressEvent(event);
}

void HeadGridView::contextMenuEvent(QContextMenuEvent* event) {
    const QModelIndex index = indexAt(event->pos());
    if (!index.isValid()) {
        return;
    }
    const HeadId head = m_model->headAt(index);
    QMenu menu(this);
    menu.addAction(tr("Select (head A)"), this, [this, head] { m_session->selectHead(head); });
    menu.addAction(tr("Compare with this head (head B)"), this,
                   [this, head] { m_session->setCompareHead(head); });
    menu.addAction(tr("Open"), this, [this, head] { emit headActivated(head); });
    menu.exec(event->globalPos());
}

void HeadGridView::resizeEvent(QResizeEvent* event) {
    QTableView::resizeEvent(event);
    fitCells();
}

// Square cells sized so the whole model fits, but never smaller than is useful to look at.
void HeadGridView::fitCells() {
    const int rows = std::max(1, m_model->rowCount());
    const int cols = std::max(1, m_model->columnCount());
    const int w = viewport()->width() / cols;
    const int h = viewport()->height() / rows;
    const int side = std::clamp(std::min(w, h), 12, 160);
    horizontalHeader()->setDefaultSectionSize(side);
    verticalHeader()->setDefaultSectionSize(side);
}

}  // namespace attnscope::app
