#include "views/head_grid_view.h"

#include <algorithm>
#include <cmath>

#include <QContextMenuEvent>
#include <QFontInfo>
#include <QFontMetrics>
#include <QHeaderView>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>

#include "render/colormap.h"
#include "session/analysis_session.h"
#include "views/ablation_menu.h"
#include "views/head_grid_model.h"

namespace attnscope::app {

namespace {

const QColor kAblatedColor(220, 38, 38);
const QColor kChangedColor(255, 140, 0);
const QColor kMatchColor(0, 132, 199);
const QColor kScoreColor(46, 204, 113);

// An ablated head: its thumbnail dimmed and crossed out, with the kind written across the
// bottom when the cell has room for it.
void paintAblated(QPainter* p, const QRect& r, const QString& kind) {
    p->fillRect(r, QColor(0, 0, 0, 120));
    p->setRenderHint(QPainter::Antialiasing);
    QPen pen(kAblatedColor, std::max(2.0, r.width() / 12.0));
    pen.setCapStyle(Qt::RoundCap);
    p->setPen(pen);
    const int inset = std::max(2, r.width() / 10);
    const QRect x = r.adjusted(inset, inset, -inset, -inset);
    p->drawLine(x.topLeft(), x.bottomRight());
    p->drawLine(x.topRight(), x.bottomLeft());
    if (r.width() < 30) {
        return;  // the tool tip names the kind
    }
    QFont font = p->font();
    font.setPixelSize(std::clamp(r.height() / 5, 8, 13));
    font.setBold(true);
    p->setFont(font);
    const int h = QFontMetrics(font).height();
    const QRect label(r.left(), r.bottom() - h + 1, r.width(), h);
    p->fillRect(label, QColor(0, 0, 0, 190));
    p->setPen(Qt::white);
    p->drawText(label, Qt::AlignCenter, kind);
}

// A head whose map changed downstream of an ablation: an orange frame and corner whose size
// and opacity grow with the JS change (`mark` in (0, 1], log scale, HeadGridModel::JsMarkRole).
void paintChanged(QPainter* p, const QRect& r, double mark) {
    QColor c = kChangedColor;
    c.setAlphaF(static_cast<float>(0.3 + 0.7 * mark));
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(QPen(c, 1.0 + 2.0 * mark));
    p->setBrush(Qt::NoBrush);
    p->drawRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5));
    const double side = std::max(5.0, r.width() * (0.1 + 0.35 * mark));
    const QPointF corner = QRectF(r).topRight();
    const QPointF triangle[] = {corner, corner - QPointF(side, 0), corner + QPointF(0, side)};
    p->setPen(Qt::NoPen);
    p->setBrush(c);
    p->drawPolygon(triangle, 3);
}

// The survey label's tag in the top-left corner: light text on a dark, rounded, semi-opaque chip
// reads on every heatmap colour. A head in the label filter gets an accent chip. Elided to the
// cell; a dot where not even one letter and the ellipsis fit.
void paintTag(QPainter* p, const QRect& r, const QString& tag, bool matched) {
    p->setRenderHint(QPainter::Antialiasing);
    QFont font = p->font();
    font.setPixelSize(std::clamp(r.height() / 5, 9, 12));
    font.setBold(matched);
    const QFontMetrics fm(font);
    const int pad = 3;
    const QString text = fm.elidedText(tag, Qt::ElideRight, r.width() - 2 * pad - 2);
    if (text.size() < 2) {  // nothing or a lone "…": a dot says "labelled", the tip says how
        p->setPen(QPen(QColor(15, 15, 15, 200), 1.0));
        p->setBrush(matched ? kMatchColor : QColor(Qt::white));
        p->drawEllipse(QRectF(r.left() + 1.5, r.top() + 1.5, 5, 5));
        return;
    }
    const QRect chipRect(r.left() + 1, r.top() + 1, fm.horizontalAdvance(text) + 2 * pad,
                         fm.height());
    p->setFont(font);
    // A faint light rim sets the dark chip off the dark end of the colour maps too.
    p->setPen(QPen(QColor(255, 255, 255, 110), 1.0));
    p->setBrush(matched ? kMatchColor : QColor(15, 15, 15, 185));
    p->drawRoundedRect(QRectF(chipRect).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
    p->setPen(Qt::white);
    p->drawText(chipRect, Qt::AlignCenter, text);
}

// A head score (HeadGridModel::ScoreBarRole): a green bar on a dark track, as long as the
// score's share of the largest, in its own strip so that it hides nothing of the map. A signed
// score grows from the middle: right in the diverging map's red for a positive value, left in
// its blue for a negative one (the Logit attribution tab's colours), with a tick at zero.
void paintScoreBar(QPainter* p, const QRect& r, double share, bool isSigned) {
    p->fillRect(r, QColor(20, 20, 20, 200));
    if (!isSigned) {
        const int length =
            share > 0 ? std::max(1, static_cast<int>(std::lround(share * r.width()))) : 0;
        p->fillRect(QRect(r.left(), r.top(), length, r.height()), kScoreColor);
        return;
    }
    const int middle = r.left() + r.width() / 2;
    const int half = r.width() / 2;
    const int length =
        share != 0 ? std::max(1, static_cast<int>(std::lround(std::abs(share) * half))) : 0;
    const QColor color(render::colorAt(render::Colormap::Diverging, share > 0 ? 1.0 : 0.0));
    p->fillRect(share > 0 ? QRect(middle, r.top(), length, r.height())
                          : QRect(middle - length, r.top(), length, r.height()),
                color);
    p->fillRect(QRect(middle, r.top(), 1, r.height()), QColor(200, 200, 200));
}

}  // namespace

void HeadThumbnailDelegate::paint(QPainter* p, const QStyleOptionViewItem& option,
                                  const QModelIndex& index) const {
    const QImage thumb = index.data(Qt::DecorationRole).value<QImage>();
    const QRect cell = option.rect.adjusted(2, 2, -2, -2);
    const int strip = std::max(3, cell.height() / 12);
    const QVariant score = index.data(HeadGridModel::ScoreBarRole);
    const int scoreStrip = score.isValid() ? std::max(3, cell.height() / 8) + 1 : 0;
    const QRect imageRect = cell.adjusted(0, 0, 0, -strip - 1 - scoreStrip);
    p->save();
    p->setRenderHint(QPainter::SmoothPixmapTransform, false);
    if (!thumb.isNull()) {
        p->drawImage(imageRect, thumb);
    }
    if (score.isValid()) {
        paintScoreBar(p, QRect(cell.left(), imageRect.bottom() + 2, cell.width(), scoreStrip - 1),
                      score.toDouble(), index.data(HeadGridModel::ScoreSignedRole).toBool());
    }
    const double h = index.data(HeadGridModel::NormalizedEntropyRole).toDouble();
    p->fillRect(QRect(cell.left(), cell.bottom() - strip + 1, cell.width(), strip),
                QColor(render::colorAt(render::Colormap::Magma, h)));
    const bool selected = option.state & QStyle::State_Selected;
    p->setPen(QPen(
        selected ? option.palette.color(QPalette::Highlight) : option.palette.color(QPalette::Mid),
        selected ? 3 : 1));
    p->drawRect(option.rect.adjusted(1, 1, -2, -2));
    if (const double mark = index.data(HeadGridModel::JsMarkRole).toDouble(); mark > 0) {
        paintChanged(p, imageRect, mark);
    }
    if (const QString kind = index.data(HeadGridModel::AblationKindRole).toString();
        !kind.isEmpty()) {
        paintAblated(p, imageRect, kind);
    }
    if (index.data(HeadGridModel::KvGroupStartRole).toBool()) {
        // Grouped-query attention: a bar on the left edge where a new key/value head begins.
        p->fillRect(QRect(option.rect.left(), option.rect.top(), 2, option.rect.height()),
                    option.palette.color(QPalette::Text));
    }
    const int highlight = index.data(HeadGridModel::LabelHighlightRole).toInt();
    if (const QString tag = index.data(HeadGridModel::LabelTagRole).toString(); !tag.isEmpty()) {
        paintTag(p, imageRect, tag, highlight == 1);
    }
    if (highlight == 0) {
        // Outside the label filter: washed towards the background over every mark, so the
        // heads in it stand out and nothing drawn here is lost.
        QColor wash = option.palette.color(QPalette::Base);
        wash.setAlpha(190);
        p->fillRect(cell, wash);
    } else if (highlight == 1) {
        p->setRenderHint(QPainter::Antialiasing, false);
        p->setPen(QPen(kMatchColor, 2));
        p->setBrush(Qt::NoBrush);
        p->drawRect(cell.adjusted(0, 0, -1, -1));
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
           "or right-click ▸ Compare with this head makes it head B of the Compare tab; "
           "right-click ▸ Ablate removes it from the model; after a survey, right-click ▸ Show "
           "heads labelled … keeps the heads with that label bright"));
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
    // Labels belong to the model's heads, not to a sentence: they outlive results and orders.
    model->setLabels(session->overlays().labels());
    model->setLabelFilter(session->overlays().labelFilter());
    connect(&session->overlays(), &HeadOverlays::labelsChanged, this,
            [this] { m_model->setLabels(m_session->overlays().labels()); });
    connect(&session->overlays(), &HeadOverlays::labelFilterChanged, model,
            &HeadGridModel::setLabelFilter);
    // Head scores too: an analysis's number per head, drawn as a bar under the thumbnail.
    model->setScores(session->overlays().headScores());
    connect(&session->overlays(), &HeadOverlays::headScoresChanged, this,
            [this] { m_model->setScores(m_session->overlays().headScores()); });
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
    contextMenuFor(m_model->headAt(index))->exec(event->globalPos());
}

std::unique_ptr<QMenu> HeadGridView::contextMenuFor(HeadId head) {
    auto menu = std::make_unique<QMenu>(this);
    menu->addAction(tr("Select (head A)"), this, [this, head] { m_session->selectHead(head); });
    menu->addAction(tr("Compare with this head (head B)"), this,
                    [this, head] { m_session->setCompareHead(head); });
    menu->addAction(tr("Open"), this, [this, head] { emit headActivated(head); });
    menu->addSeparator();
    addAblationActions(menu.get(), m_session, head);
    addLabelActions(menu.get(), head);
    return menu;
}

void HeadGridView::addLabelActions(QMenu* menu, HeadId head) {
    const HeadLabels labels = m_session->overlays().labels();
    const QString current = m_session->overlays().labelFilter();
    if (labels.empty() && current.isEmpty()) {
        return;
    }
    menu->addSeparator();
    // The head's tags, then the families they belong to ("pos+1" -> every "pos±k").
    QStringList tags;
    QStringList families;
    for (const auto& label : labels.of(head)) {
        const QString tag = QString::fromStdString(label.tag);
        tags << tag;
        const qsizetype cut = tag.indexOf(QRegularExpression(QStringLiteral("[+\\-:]")));
        if (cut > 0 && !families.contains(tag.left(cut))) {
            families << tag.left(cut);
        }
    }
    const auto add = [&](const QString& tag, const QString& text) {
        QAction* action =
            menu->addAction(text, this, [this, tag] { m_session->overlays().setLabelFilter(tag); });
        action->setObjectName(QStringLiteral("showLabel:") + tag);
        action->setCheckable(true);
        action->setChecked(tag == current);
    };
    for (const QString& tag : tags) {
        add(tag, tr("Show heads labelled %1").arg(QString(tag).replace('&', "&&")));
    }
    for (const QString& family : families) {
        add(family,
            tr("Show heads labelled %1 (any %2)")
                .arg(family, family == QLatin1String("pos") ? tr("offset") : tr("relation")));
    }
    QAction* clear = menu->addAction(
        current.isEmpty() ? tr("Clear label filter") : tr("Clear label filter (%1)").arg(current),
        this, [this] { m_session->overlays().setLabelFilter({}); });
    clear->setObjectName(QStringLiteral("clearLabelFilter"));
    clear->setEnabled(!current.isEmpty());
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
    fitColumnLabels(side);
}

// Column headers that fit their cells, so that 12 heads in a narrow dock do not run "H10" into
// "H11": "H11" in the header's usual font where it fits, else the bare number in the largest
// font down to 7 px that fits (cells are never narrower than 12 px, which two digits at 7 px
// fit). Text is not elided: a label may use the section's margins, never its neighbour's room.
void HeadGridView::fitColumnLabels(int side) {
    constexpr int kSmallestPixels = 7;
    const int room = side - 2;
    const int last = std::max(0, m_model->columnCount() - 1);
    QFont labels = font();
    const bool prefixed =
        QFontMetrics(labels).horizontalAdvance(m_model->columnLabel(last, true)) <= room;
    if (!prefixed) {
        const QString widest = m_model->columnLabel(last, false);
        int pixels = QFontInfo(labels).pixelSize();
        while (pixels > kSmallestPixels && QFontMetrics(labels).horizontalAdvance(widest) > room) {
            labels.setPixelSize(--pixels);
        }
    }
    horizontalHeader()->setTextElideMode(Qt::ElideNone);
    horizontalHeader()->setFont(labels);
    m_model->setPrefixedColumns(prefixed);
}

}  // namespace attnscope::app
