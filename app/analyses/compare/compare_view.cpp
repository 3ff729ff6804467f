#include "analyses/compare/compare_view.h"

#include <cmath>

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>

#include "analyses/registry.h"
#include "attnscope/analysis/head_compare.h"
#include "session/analysis_session.h"
#include "session/head_record_watch.h"
#include "views/heatmap_widget.h"
#include "widgets/attention_kind_combo.h"
#include "widgets/control_row.h"
#include "widgets/named.h"

namespace attnscope::app {

CompareView::CompareView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_mode(named<QComboBox>("compareMode", this)),
      m_bControls(named<QWidget>("compareHeadBControls", this)),
      m_layerA(named<QSpinBox>("compareLayerA", this)),
      m_headA(named<QSpinBox>("compareHeadA", this)),
      m_layerB(named<QSpinBox>("compareLayerB", this)),
      m_headB(named<QSpinBox>("compareHeadB", this)),
      m_a(named<HeatmapWidget>("compareHeatmapA", this)),
      m_b(named<HeatmapWidget>("compareHeatmapB", this)),
      m_diff(named<HeatmapWidget>("compareDifference", this)),
      m_summary(named<QLabel>("compareSummary", this)),
      m_rows(named<QTableWidget>("compareRows", this)),
      m_records(new HeadRecordWatch(
          session, [this] { refresh(); }, this)) {
    setObjectName(QStringLiteral("compareView"));
    QHBoxLayout* bar = buildBar();
    // On a line of its own, wrapped: the divergence with its range must not widen the window.
    m_summary->setWordWrap(true);
    m_rows->setColumnCount(2);
    // Short headers: the bottom-right cell is narrow on a laptop; the tool tip gives the range.
    m_rows->setHorizontalHeaderLabels({tr("query"), tr("JS (nats)")});
    m_rows->horizontalHeaderItem(1)->setToolTip(
        tr("Jensen–Shannon divergence of the query's rows in A and B, natural log: 0 … ln 2 ≈ "
           "0.693"));
    m_rows->horizontalHeader()->setStretchLastSection(true);
    m_rows->verticalHeader()->setVisible(false);
    m_rows->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // A 2 x 2 of equal cells that takes all the height below the bar and the summary: A and B
    // on top, their difference and the per-row divergences below. The table must not claim
    // width from its contents, or A gets squeezed.
    m_rows->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    auto* grid = new QGridLayout;
    grid->addWidget(m_a, 0, 0);
    grid->addWidget(m_b, 0, 1);
    grid->addWidget(m_diff, 1, 0);
    grid->addWidget(m_rows, 1, 1);
    for (int i = 0; i < 2; ++i) {
        grid->setColumnStretch(i, 1);
        grid->setRowStretch(i, 1);
    }
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_summary);
    layout->addLayout(grid, 1);
    for (HeatmapWidget* w : {m_a, m_b, m_diff}) {
        // Two rows of maps: at a single map's minimum the tabs would claim 510 px of height and
        // push a 1024 × 700 window off the screen once a bottom dock opens. They zoom and pan.
        w->setMinimumSize(160, 130);
        w->setTooltipFunction([this](int r, int c) { return tooltip(r, c); });
    }
    wire();
    refresh();
}

QHBoxLayout* CompareView::buildBar() {
    QHBoxLayout* headB =
        controlRow(m_bControls, {tr("Head B: layer"), m_layerB, tr("head"), m_headB});
    headB->setContentsMargins(0, 0, 0, 0);
    m_bControls->setLayout(headB);
    // Short items: the row must fit a 1024 px window with its docks; the tool tip explains.
    m_mode->addItems({tr("Two heads"), tr("Two models")});
    m_mode->setToolTip(
        tr("Two heads: the selected head (A) against head B of the same model. Two models: the "
           "selected head in the model open (A) against the same head in the second model of "
           "the Compare models tab (B)"));
    return controlRow(this, {m_mode, RowItem::spacing(8), tr("Head A: layer"), m_layerA, tr("head"),
                             m_headA, RowItem::spacing(24), m_bControls, RowItem::stretch()});
}

void CompareView::wire() {
    // A's spin boxes move A (and a B that follows it); B's pick B, which then stays put.
    const auto selectA = [this] { m_session->selectHead({m_layerA->value(), m_headA->value()}); };
    const auto selectB = [this] {
        m_session->setCompareHead({m_layerB->value(), m_headB->value()});
    };
    for (QSpinBox* s : {m_layerA, m_headA}) {
        connect(s, &QSpinBox::valueChanged, this, selectA);
    }
    for (QSpinBox* s : {m_layerB, m_headB}) {
        connect(s, &QSpinBox::valueChanged, this, selectB);
    }
    connect(m_session, &AnalysisSession::resultChanged, this, &CompareView::refresh);
    connect(m_session, &AnalysisSession::selectedHeadChanged, this, &CompareView::refresh);
    connect(m_session, &AnalysisSession::compareHeadChanged, this, &CompareView::refresh);
    connect(m_session, &AnalysisSession::heatmapStyleChanged, this, &CompareView::refresh);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &CompareView::refresh);
    connect(&m_session->overlays(), &HeadOverlays::counterpartChanged, this,
            &CompareView::followCounterpart);
    // Another model drops the second one: back to two heads, and the next second model, even
    // one of the same name, turns the tab to it again.
    connect(m_session, &AnalysisSession::modelChanged, this, [this] {
        m_counterpartName.clear();
        setMode(Mode::Heads);
    });
}

CompareView::Mode CompareView::mode() const {
    return m_mode->currentIndex() == 1 ? Mode::Models : Mode::Heads;
}

void CompareView::setMode(Mode mode) {
    m_mode->setCurrentIndex(mode == Mode::Models ? 1 : 0);
}

void CompareView::refresh() {
    m_shown.reset();
    syncSpinBoxes();
    m_records->forget();
    m_bControls->setVisible(mode() == Mode::Heads);
    if (mode() == Mode::Models) {
        showModels();
        return;
    }
    const HeadId a = m_session->selectedHead();
    const HeadId b = m_session->compareHead();
    const auto result = m_session->result();
    if (!result) {
        showNothing(tr("Type a sentence, then pick two heads to compare."));
        return;
    }
    // Cross-attention's maps are [target, source]: rows and columns are labelled apart.
    const QStringList labels = queryLabels(*m_session);
    m_keyLabels = keyLabels(*m_session);
    const auto records = m_records->fetch(std::vector<HeadId>{a, b});
    const auto& recordA = records[0];
    const auto& recordB = records[1];
    if (showHeads(labels, recordA.get(), recordB.get())) {
        const QString head = tr("layer %1, head %2");
        // A local and a global head: a cell counts where either head may attend (the local
        // one's 0 there is a difference too).
        const BoolMatrix either =
            result->forward.allowedFor(a.layer).cwiseMax(result->forward.allowedFor(b.layer));
        showComparison(labels, recordA->probs, recordB->probs, either,
                       head.arg(a.layer).arg(a.head), head.arg(b.layer).arg(b.head));
    }
}

void CompareView::syncSpinBoxes() {
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
            // The difference below gives the reason once for both.
            widgets[i]->clear(m_records->pendingHeadline(heads[i]));
            continue;
        }
        render::ColorRange range;
        widgets[i]->setMap(render::heatmapImage(records[i]->probs, &f.allowedFor(heads[i].layer),
                                                m_session->heatmapStyle(), &range),
                           range, labels, m_keyLabels, f.allowedFor(heads[i].layer));
        widgets[i]->setTitle(titles[i].arg(heads[i].layer).arg(heads[i].head));
    }
    if (!m_records->isWaiting()) {
        return true;
    }
    const QString pending = m_records->pendingText();
    m_diff->clear(pending);
    // One line: a long error must not widen the bar (the widgets and the message bar have it).
    m_summary->setText(pending.section(QLatin1Char('\n'), 0, 0));
    m_rows->setRowCount(0);
    m_total = std::nan("");
    return false;
}

void CompareView::showComparison(const QStringList& labels, const Matrix& mapA, const Matrix& mapB,
                                 const BoolMatrix& allowed, const QString& nameA,
                                 const QString& nameB) {
    const auto n = static_cast<int>(mapA.rows());
    const analysis::HeadComparison c = analysis::compareHeads(mapA, mapB);
    render::ColorRange range;
    m_diff->setMap(render::differenceImage(c.difference, &range), range, labels, m_keyLabels,
                   std::nullopt);
    m_diff->setTitle(tr("A − B"));
    m_total = c.totalDivergence;
    m_shown = Shown{labels, mapA, mapB, c.difference, allowed, nameA, nameB};
    // What head_compare.h computes: per row, JS = ½ KL(p‖m) + ½ KL(q‖m) with the natural log
    // (no square root), so each row lies in [0, ln 2] and the sum over n rows in [0, n ln 2].
    m_summary->setText(tr("Jensen–Shannon divergence (natural log, nats; 0 … ln 2 ≈ 0.693 per "
                          "query row): %1 summed over %2 rows (at most %3), %4 per row")
                           .arg(c.totalDivergence, 0, 'f', 4)
                           .arg(n)
                           .arg(n * std::log(2.0), 0, 'f', 3)
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

// The same text over A, B and the difference: the pair of tokens and all three values.
QString CompareView::tooltip(int row, int col) const {
    if (!m_shown || row >= m_shown->a.rows() || col >= m_shown->a.cols()) {
        return {};
    }
    QString text = tr("query %1 “%2” → key %3 “%4”\n")
                       .arg(row)
                       .arg(m_shown->labels.value(row))
                       .arg(col)
                       .arg(m_keyLabels.value(col));
    const BoolMatrix& allowed = m_shown->allowed;
    if (row < allowed.rows() && col < allowed.cols() && allowed(row, col) == 0) {
        return text + tr("masked (not attended) in both maps");
    }
    return text + tr("A (%1): %2\nB (%3): %4\nA − B: %5")
                      .arg(m_shown->nameA)
                      .arg(m_shown->a(row, col), 0, 'f', 6)
                      .arg(m_shown->nameB)
                      .arg(m_shown->b(row, col), 0, 'f', 6)
                      .arg(m_shown->difference(row, col), 0, 'f', 6);
}

// The Compare tab: two heads side by side (A, the selected head, and B).
Analysis compareAnalysis() {
    return tabAnalysis<CompareView>("compare", QT_TRANSLATE_NOOP("QObject", "Compare"));
}

}  // namespace attnscope::app
