#include "analyses/offsets/offsets_view.h"

#include <algorithm>
#include <cmath>

#include <QLabel>
#include <QVBoxLayout>

#include "analyses/offsets/offset_chart.h"
#include "analyses/registry.h"
#include "session/analysis_session.h"
#include "session/head_record_watch.h"
#include "widgets/named.h"
#include "widgets/placeholder_stack.h"

namespace attnscope::app {

namespace {

// Whole percent, except that a share just short of all (or just above none) keeps a decimal:
// 511 of 512 queries must not read "100 %".
QString percent(double fraction) {
    const double value = 100.0 * fraction;
    const long whole = std::lround(value);
    QString text = QString::number(whole);
    if (whole == 100 && fraction < 1.0) {
        text = QString::number(std::floor(value * 10) / 10, 'f', 1);
    } else if (whole == 0 && fraction > 0.0) {
        text = QString::number(std::ceil(value * 10) / 10, 'f', 1);
    }
    return text + QStringLiteral("\u00a0%");
}

QString queryCount(std::int64_t n) {
    return n == 1 ? OffsetsView::tr("1 query") : OffsetsView::tr("%1 queries").arg(n);
}

}  // namespace

OffsetsView::OffsetsView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_stack(named<PlaceholderStack>("offsetsStack", this)),
      m_caption(named<QLabel>("offsetsVerdict", this)),
      m_chart(named<OffsetChart>("offsetChart", this)),
      m_records(new HeadRecordWatch(
          session, [this] { refresh(); }, this)) {
    setObjectName("offsetsView");
    m_stack->placeholder()->setObjectName("offsetsPlaceholder");

    m_caption->setWordWrap(true);
    m_caption->setTextFormat(Qt::RichText);
    m_caption->setContentsMargins(8, 6, 8, 2);
    m_chart->setMinimumHeight(240);

    auto* page = new QWidget(this);
    auto* pageLayout = new QVBoxLayout(page);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->setSpacing(0);
    pageLayout->addWidget(m_caption);
    pageLayout->addWidget(m_chart, 1);
    m_stack->setPage(page);

    // A new result covers a new sentence, mask or scale: the service recomputes and sets it.
    connect(m_session, &AnalysisSession::resultChanged, this, &OffsetsView::refresh);
    connect(m_session, &AnalysisSession::selectedHeadChanged, this, &OffsetsView::refresh);
    refresh();
}

bool OffsetsView::hasResult() const {
    return m_stack->showsPage();
}

void OffsetsView::refresh() {
    m_records->forget();
    const auto result = m_session->result();
    if (!result || result->forward.nTokens <= 0 || result->forward.nLayers <= 0) {
        showPlaceholder(
            tr("No result yet.\nOpen a model and enter a sentence to see how the selected "
               "head's attention depends on relative position."));
        return;
    }
    if (result->forward.isCross()) {
        showPlaceholder(
            tr("Relative positions are not for cross-attention: a source position minus a "
               "target position measures nothing. Choose encoder or decoder self-attention."));
        return;
    }
    const auto& forward = result->forward;
    // The session clamps to the model and a result is always from that model; be safe anyway.
    const HeadId selected = m_session->selectedHead();
    const HeadId head{std::clamp(selected.layer, 0, forward.nLayers - 1),
                      std::clamp(selected.head, 0, forward.nHeads - 1)};
    analysis::RelativePositionAccumulator acc;
    // The session's record: recomputed by the core when the maps did not fit the budget.
    const auto record = m_records->fetch(head);
    if (!record) {
        showPlaceholder(m_records->pendingText());
        return;
    }
    const auto cells = static_cast<std::size_t>(record->probs.size());
    const std::vector<std::uint8_t> special = analysis::specialFlags(result->tokens);
    acc.add({record->probs.data(), cells}, forward.nTokens, special,
            {forward.allowedFor(head.layer).data(), cells});
    m_verdict = acc.verdict();
    OffsetChart::Data profile;
    profile.head = head;
    profile.offsets = acc.offsets();
    if (m_verdict.queries > 0) {
        profile.bestOffset = m_verdict.bestOffset;
    }
    m_chart->setData(std::move(profile));
    m_caption->setText(captionText(acc));
    m_stack->showPage();
}

void OffsetsView::showPlaceholder(const QString& text) {
    m_verdict = {};
    m_chart->clearData();
    m_caption->clear();
    m_stack->showPlaceholder(text);
}

// "Positional: 93 % of queries attend most to offset −1 (the previous token)", then the rule,
// the confidence and what was counted, so a verdict on a short sentence is read as such.
QString OffsetsView::captionText(const analysis::RelativePositionAccumulator& acc) const {
    const analysis::PositionalVerdict& v = m_verdict;
    if (v.queries == 0) {
        return tr(
            "<b>No verdict:</b> no query row to count (every row is a special token or "
            "fully masked).");
    }
    const QString where =
        tr("offset %1 (%2)").arg(offsetText(v.bestOffset), offsetMeaning(v.bestOffset));
    QString headline =
        v.positional
            ? tr("<b>Positional:</b> %1 of queries attend most to %2.")
                  .arg(percent(v.frequency), where)
            : tr("<b>Not positional:</b> the most common place of the row maximum is %1, for %2 "
                 "of queries; Voita et al. call a head positional from %3.")
                  .arg(where, percent(v.frequency), percent(analysis::kVoitaPositionalThreshold));
    QStringList details;
    details << tr("confidence (mean row maximum) %1").arg(v.confidence, 0, 'f', 2);
    QString counted = queryCount(v.queries) + tr(" counted");
    if (acc.skippedQueries() > 0) {
        counted +=
            tr(", %1 left out (special tokens, fully masked rows)").arg(acc.skippedQueries());
    }
    details << counted;
    // Offsets some counted query has a key at, but the mask forbids for all of them (a causal
    // mask's positive side). Offsets only special queries reach are simply absent.
    const auto& shown = m_chart->shownOffsets();
    bool maskedBefore = false;
    bool maskedAfter = false;
    for (const analysis::OffsetValue& o : acc.offsets()) {
        if (o.queries > 0 && o.allowedQueries == 0 && !shown.empty()) {
            maskedBefore = maskedBefore || o.offset < shown.front().offset;
            maskedAfter = maskedAfter || o.offset > shown.back().offset;
        }
    }
    if (maskedAfter) {
        details << tr("offsets above %1 are hidden: the mask lets no query see them")
                       .arg(offsetText(shown.back().offset));
    }
    if (maskedBefore) {
        details << tr("offsets below %1 are hidden: the mask lets no query see them")
                       .arg(offsetText(shown.front().offset));
    }
    if (shown.size() > 60) {
        details << tr("drag across the chart to zoom in, double-click to see every offset");
    }
    return headline + QStringLiteral("<br><small>") + details.join(QStringLiteral(" · ")) +
           QStringLiteral("</small>");
}

// The Offsets tab: where each head looks, by relative position.
Analysis offsetsAnalysis() {
    return tabAnalysis<OffsetsView>("offsets", QT_TRANSLATE_NOOP("QObject", "Offsets"));
}

}  // namespace attnscope::app
