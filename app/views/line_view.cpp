#include "views/line_view.h"

#include <algorithm>

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QScrollArea>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "session/analysis_session.h"
#include "session/head_record_watch.h"
#include "views/line_canvas.h"
#include "widgets/chart_palette.h"
#include "widgets/control_row.h"
#include "widgets/named.h"

namespace attnscope::app {

namespace {

QString headName(HeadId h) {
    return QStringLiteral("L%1 H%2").arg(h.layer).arg(h.head);
}

QIcon swatch(const QColor& color) {
    QPixmap pixmap(12, 12);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(color);
    p.setPen(color.darker(140));
    p.drawRoundedRect(QRectF(0.5, 0.5, 11, 11), 2, 2);
    return QIcon(pixmap);
}

bool inResult(const analysis::SentenceAnalysis& r, HeadId h) {
    return h.layer >= 0 && h.head >= 0 && h.layer < r.forward.nLayers && h.head < r.forward.nHeads;
}

}  // namespace

LineView::LineView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_follow(named<QCheckBox>("followSelectedCheck", tr("Selected head"), this)),
      m_layerSpin(named<QSpinBox>("overlayLayerSpin", this)),
      m_headSpin(named<QSpinBox>("overlayHeadSpin", this)),
      m_add(named<QToolButton>("addOverlayButton", this)),
      m_clear(named<QToolButton>("clearOverlayButton", this)),
      m_legend(new QHBoxLayout),
      m_note(named<QLabel>("lineViewNote", this)),
      m_scroll(named<QScrollArea>("lineViewScroll", this)),
      m_canvas(named<LineCanvas>("lineCanvas")),
      m_records(new HeadRecordWatch(
          session, [this] { refresh(); }, this)) {
    setObjectName("lineView");

    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Draw the head selected in the other views"));
    m_layerSpin->setPrefix(tr("L "));
    m_headSpin->setPrefix(tr("H "));
    m_layerSpin->setToolTip(tr("Layer of the head to overlay (0-based)"));
    m_headSpin->setToolTip(tr("Head to overlay (0-based)"));
    m_add->setText(tr("+ Add"));
    m_add->setToolTip(tr("Overlay this head in its own colour"));
    m_clear->setText(tr("Clear"));
    m_clear->setToolTip(tr("Remove all overlaid heads"));
    m_note->setForegroundRole(QPalette::PlaceholderText);

    QHBoxLayout* controls =
        controlRow(this, {m_follow, RowItem::spacing(12), tr("Overlay:"), m_layerSpin, m_headSpin,
                          m_add, m_clear, RowItem::stretch(), m_note});
    m_legend->setSpacing(4);

    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->addLayout(controls);
    layout->addLayout(m_legend);
    layout->addWidget(m_scroll, 1);

    connect(m_follow, &QCheckBox::toggled, this, &LineView::refresh);
    connect(m_add, &QToolButton::clicked, this, &LineView::addHeadFromSpins);
    connect(m_clear, &QToolButton::clicked, this, [this] { setOverlayHeads({}); });
    connect(m_session, &AnalysisSession::resultChanged, this, [this] {
        updateSpinRanges();
        refresh();
    });
    connect(m_session, &AnalysisSession::selectedHeadChanged, this, &LineView::refresh);
    updateSpinRanges();
    refresh();
}

void LineView::setOverlayHeads(std::vector<HeadId> heads) {
    std::vector<HeadId> unique;
    for (const HeadId h : heads) {
        if (std::find(unique.begin(), unique.end(), h) == unique.end() &&
            static_cast<int>(unique.size()) < kMaxOverlaySlots - 1) {
            unique.push_back(h);
        }
    }
    if (unique == m_extra) {
        return;
    }
    m_extra = std::move(unique);
    refresh();
    emit overlayHeadsChanged();
}

void LineView::setFollowSelected(bool follow) {
    m_follow->setChecked(follow);
}

bool LineView::followsSelected() const {
    return m_follow->isChecked();
}

int LineView::lineCount() const {
    return m_canvas->lineCount();
}

std::vector<HeadId> LineView::drawnHeads() const {
    std::vector<HeadId> heads;
    const auto result = m_session->result();
    if (!result) {
        return heads;
    }
    if (followsSelected() && inResult(*result, m_session->selectedHead())) {
        heads.push_back(m_session->selectedHead());
    }
    for (const HeadId h : m_extra) {
        if (inResult(*result, h) && std::find(heads.begin(), heads.end(), h) == heads.end()) {
            heads.push_back(h);
        }
    }
    return heads;
}

void LineView::addHeadFromSpins() {
    std::vector<HeadId> heads = m_extra;
    heads.push_back({m_layerSpin->value(), m_headSpin->value()});
    setOverlayHeads(std::move(heads));
}

void LineView::updateSpinRanges() {
    const auto result = m_session->result();
    const int layers = result ? result->forward.nLayers : 0;
    const int heads = result ? result->forward.nHeads : 0;
    m_layerSpin->setRange(0, std::max(0, layers - 1));
    m_headSpin->setRange(0, std::max(0, heads - 1));
}

void LineView::refresh() {
    const auto result = m_session->result();
    const std::vector<HeadId> heads = drawnHeads();
    m_add->setEnabled(result != nullptr && static_cast<int>(m_extra.size()) < kMaxOverlaySlots - 1);
    m_clear->setEnabled(!m_extra.empty());
    m_records->forget();
    if (!result) {
        m_canvas->clear(
            tr("No result yet.\nOpen a model and enter a sentence to see which "
               "tokens each query attends to."));
        m_note->clear();
        rebuildLegend({});
        return;
    }
    if (result->forward.isCross()) {
        // Both ends of a line are the same sentence's tokens; cross-attention joins two.
        m_canvas->clear(
            tr("The line view is not for cross-attention: its lines join a sentence's tokens to "
               "the same sentence's. Choose encoder or decoder self-attention, or see "
               "cross-attention in the Head and Compare tabs."));
        m_note->clear();
        rebuildLegend({});
        return;
    }
    // Colours stay with their head: the selected head is slot 0, an added head keeps the slot
    // of its place in the overlay list while other heads come and go.
    std::vector<OverlayHead> overlay;
    const auto records = m_records->fetch(heads);
    for (std::size_t i = 0; i < heads.size(); ++i) {
        const HeadId h = heads[i];
        const bool selected = followsSelected() && h == m_session->selectedHead();
        const auto it = std::find(m_extra.begin(), m_extra.end(), h);
        const int slot = selected ? 0 : 1 + static_cast<int>(it - m_extra.begin());
        if (records[i]) {
            overlay.push_back({h, overlayColor(slot, palette()), records[i]->probs});
        }
    }
    if (m_records->isWaiting()) {
        m_canvas->clear(m_records->pendingText());
        m_note->clear();
        rebuildLegend(heads);
        return;
    }
    const bool many = result->forward.nTokens > kManyTokens;
    m_canvas->setData(result, overlay, many ? kManyTokensMinWeight : 0.0f);
    const int lines = m_canvas->lineCount();
    QString note = lines == 1 ? tr("1 line") : tr("%1 lines").arg(lines);
    if (many) {
        note += tr(" · weights below %1 not drawn").arg(kManyTokensMinWeight);
    }
    m_note->setText(note);
    rebuildLegend(heads);
}

void LineView::rebuildLegend(const std::vector<HeadId>& heads) {
    // Old chips may be the sender of the click that got us here: detach now, delete later.
    while (QLayoutItem* item = m_legend->takeAt(0)) {
        if (QWidget* w = item->widget()) {
            w->hide();
            w->setObjectName(QString());
            w->deleteLater();
        }
        delete item;
    }
    const auto result = m_session->result();
    for (const HeadId h : heads) {
        const bool selected = followsSelected() && h == m_session->selectedHead();
        const auto it = std::find(m_extra.begin(), m_extra.end(), h);
        const int slot = selected ? 0 : 1 + static_cast<int>(it - m_extra.begin());
        auto* chip = new QToolButton(this);
        chip->setObjectName(QStringLiteral("legendChip_L%1H%2").arg(h.layer).arg(h.head));
        chip->setAutoRaise(true);
        chip->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        chip->setIcon(swatch(overlayColor(slot, palette())));
        if (selected) {
            chip->setText(headName(h) + tr(" (selected)"));
            chip->setToolTip(tr("The selected head; untick “Selected head” to hide it"));
        } else {
            chip->setText(headName(h) + QStringLiteral("  ✕"));
            chip->setToolTip(tr("Remove %1 from the overlay").arg(headName(h)));
            connect(chip, &QToolButton::clicked, this, [this, h] {
                std::vector<HeadId> rest = m_extra;
                rest.erase(std::remove(rest.begin(), rest.end(), h), rest.end());
                setOverlayHeads(std::move(rest));
            });
        }
        m_legend->addWidget(chip);
        chip->show();  // now, not from the event loop, so the layout settles at once
    }
    m_legend->addStretch(1);
}

void LineView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        refresh();  // overlay colours depend on light or dark
    }
    QWidget::changeEvent(event);
}

}  // namespace attnscope::app
