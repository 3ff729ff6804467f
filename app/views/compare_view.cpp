#include "views/compare_view.h"

#include <cmath>

#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>

#include "attnscope/analysis/head_compare.h"
#include "session/analysis_session.h"
#include "views/head_record_status.h"
#include "views/heatmap_widget.h"

namespace attnscope::app {

namespace {

QSpinBox* spin(QWidget* parent, const char* name) {
    auto* s = new QSpinBox(parent);
    s->setObjectName(QString::fromLatin1(name));
    return s;
}

}  // namespace

CompareView::CompareView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_layerA(spin(this, "compareLayerA")),
      m_headA(spin(this, "compareHeadA")),
      m_layerB(spin(this, "compareLayerB")),
      m_headB(spin(this, "compareHeadB")),
      m_a(new HeatmapWidget(this)),
      m_b(new HeatmapWidget(this)),
      m_diff(new HeatmapWidget(this)),
      m_summary(new QLabel(this)),
      m_rows(new QTableWidget(this)) {
    setObjectName(QStringLiteral("compareView"));
    m_a->setObjectName(QStringLiteral("compareHeatmapA"));
    m_b->setObjectName(QStringLiteral("compareHeatmapB"));
    m_diff->setObjectName(QStringLiteral("compareDifference"));
    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_rows->setObjectName(QStringLiteral("compareRows"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Head A: layer"), this));
    bar->addWidget(m_layerA);
    bar->addWidget(new QLabel(tr("head"), this));
    bar->addWidget(m_headA);
    bar->addSpacing(24);
    bar->addWidget(new QLabel(tr("Head B: layer"), this));
    bar->addWidget(m_layerB);
    bar->addWidget(new QLabel(tr("head"), this));
    bar->addWidget(m_headB);
    bar->addSpacing(24);
    bar->addWidget(m_summary, 1);
    m_rows->setColumnCount(2);
    m_rows->setHorizontalHeaderLabels({tr("query token"), tr("JS divergence (nats)")});
    m_rows->horizontalHeader()->setStretchLastSection(true);
    m_rows->verticalHeader()->setVisible(false);
    m_rows->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // A 2 x 2 of equal cells: A and B on top, their difference and the per-row divergences
    // below. The table must not claim width from its contents, or A gets squeezed.
    auto* grid = new QGridLayout;
    grid->addWidget(m_a, 0, 0);
    grid->addWidget(m_b, 0, 1);
    grid->addWidget(m_diff, 1, 0);
    grid->addWidget(m_rows, 1, 1);
    for (int i = 0; i < 2; ++i) {
        grid->setColumnStretch(i, 1);
        grid->setRowStretch(i, 1);
    }
    m_rows->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addLayout(grid, 1);
    const auto select = [this] {
        m_session->selectHead({m_layerA->value(), m_headA->value()});
        m_session->setCompareHead({m_layerB->value(), m_headB->value()});
    };
    for (QSpinBox* s : {m_layerA, m_headA, m_layerB, m_headB}) {
        connect(s, &QSpinBox::valueChanged, this, select);
    }
    connect(session, &AnalysisSession::resultChanged, this, &CompareView::refresh);
    connect(session, &AnalysisSession::selectedHeadChanged, this, &CompareView::refresh);
    connect(session, &AnalysisSession::compareHeadChanged, this, &CompareView::refresh);
    connect(session, &AnalysisSession::heatmapStyleChanged, this, &CompareView::refresh);
    connect(session, &AnalysisSession::headRecordChanged, this, [this](HeadId h) {
        if (isWaitingFor(m_waiting, h)) {
            refresh();
        }
    });
    refresh();
}

void CompareView::refresh() {
    const HeadId a = m_session->selectedHead();
    const HeadId b = m_session->compareHead();
    const QSignalBlocker b1(m_layerA), b2(m_headA), b3(m_layerB), b4(m_headB);
    for (QSpinBox* s : {m_layerA, m_layerB}) {
        s->setRange(0, std::max(0, m_session->layerCount() - 1));
    }
    for (QSpinBox* s : {m_headA, m_headB}) {
        s->setRange(0, std::max(0, m_session->headCount() - 1));
    }
    m_layerA->setValue(a.layer);
    m_headA->setValue(a.head);
    m_layerB->setValue(b.layer);
    m_headB->setValue(b.head);
    m_waiting.clear();
    const auto result = m_session->result();
    if (!result) {
        showNothing(tr("Type a sentence, then pick two heads to compare."));
        return;
    }
    QStringList labels;
    for (int i = 0; i < result->forward.nTokens; ++i) {
        labels << QString::fromStdString(result->label(i));
    }
    const auto recordA = m_session->headRecord(a);
    const auto recordB = m_session->headRecord(b);
    if (showHeads(labels, recordA.get(), recordB.get())) {
        showComparison(labels, recordA->probs, recordB->probs);
    }
}

void CompareView::showNothing(const QString& placeholder) {
    for (HeatmapWidget* w : {m_a, m_b, m_diff}) {
        w->clear(placeholder);
    }
    m_summary->clear();
    m_rows->setRowCount(0);
    m_total = std::nan("");
}

bool CompareView::showHeads(const QStringList& labels, const forward::HeadRecord* a,
                            const forward::HeadRecord* b) {
    const auto& f = m_session->result()->forward;
    const HeadId heads[] = {m_session->selectedHead(), m_session->compareHead()};
    const forward::HeadRecord* records[] = {a, b};
    HeatmapWidget* widgets[] = {m_a, m_b};
    const QString titles[] = {tr("A: layer %1, head %2"), tr("B: layer %1, head %2")};
    for (int i = 0; i < 2; ++i) {
        if (!records[i]) {
            if (!isWaitingFor(m_waiting, heads[i])) {
                m_waiting.push_back(heads[i]);
            }
            // The difference below gives the reason once for both.
            widgets[i]->clear(headRecordPendingHeadline(*m_session, {heads[i]}));
            continue;
        }
        render::ColorRange range;
        widgets[i]->setMap(
            render::heatmapImage(records[i]->probs, &f.allowed, m_session->heatmapStyle(), &range),
            range, labels, labels, f.allowed);
        widgets[i]->setTitle(titles[i].arg(heads[i].layer).arg(heads[i].head));
    }
    if (m_waiting.empty()) {
        return true;
    }
    const QString pending = headRecordPendingText(*m_session, m_waiting);
    m_diff->clear(pending);
    // One line: a long error must not widen the bar (the widgets and the message bar have it).
    m_summary->setText(pending.section(QLatin1Char('\n'), 0, 0));
    m_rows->setRowCount(0);
    m_total = std::nan("");
    return false;
}

void CompareView::showComparison(const QStringList& labels, const Matrix& mapA,
                                 const Matrix& mapB) {
    const int n = m_session->result()->forward.nTokens;
    const analysis::HeadComparison c = analysis::compareHeads(mapA, mapB);
    render::ColorRange range;
    m_diff->setMap(render::differenceImage(c.difference, &range), range, labels, labels,
                   std::nullopt);
    m_diff->setTitle(tr("A − B"));
    m_total = c.totalDivergence;
    m_summary->setText(tr("Jensen–Shannon divergence: %1 nats in total, %2 per query row")
                           .arg(c.totalDivergence, 0, 'f', 4)
                           .arg(c.totalDivergence / std::max(1, n), 0, 'f', 4));
    m_rows->setRowCount(n);
    for (int q = 0; q < n; ++q) {
        m_rows->setItem(q, 0, new QTableWidgetItem(QStringLiteral("%1  %2").arg(q).arg(labels[q])));
        auto* value = new QTableWidgetItem(
            QString::number(c.rowDivergence[static_cast<std::size_t>(q)], 'f', 4));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_rows->setItem(q, 1, value);
    }
}

}  // namespace attnscope::app
