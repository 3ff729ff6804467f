#include "analyses/circuits/head_card.h"

#include <algorithm>
#include <cmath>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QLabel>
#include <QVBoxLayout>
#include <QValueAxis>

#include "analyses/circuits/circuits_graph.h"
#include "analyses/circuits/circuits_text.h"
#include "widgets/chart_axis.h"
#include "widgets/chart_palette.h"
#include "widgets/named.h"
#include "widgets/themed_chart_view.h"

namespace attnscope::app {

// The two spectra as bars: σ1, σ2, … of W_QK beside those of W_OV.
class SpectrumChart : public ThemedChartView {
public:
    explicit SpectrumChart(QWidget* parent) : ThemedChartView(parent) {
        setObjectName(QStringLiteral("circuitsSpectrum"));
        setMinimumHeight(130);
        chart()->legend()->setAlignment(Qt::AlignTop);
        applyTheme();
    }

    void setSpectra(const std::vector<double>& qk, const std::vector<double>& ov) {
        chart()->removeAllSeries();
        for (QAbstractAxis* axis : chart()->axes()) {
            chart()->removeAxis(axis);
            delete axis;
        }
        m_qk = qk;
        m_ov = ov;
        const auto n = static_cast<int>(std::max(qk.size(), ov.size()));
        auto* series = new QBarSeries();
        auto* qkSet = new QBarSet(tr("W_QK"));
        auto* ovSet = new QBarSet(tr("W_OV"));
        QStringList categories;
        double top = 0;
        for (int i = 0; i < n; ++i) {
            const auto at = static_cast<std::size_t>(i);
            *qkSet << (at < qk.size() ? qk[at] : 0.0);
            *ovSet << (at < ov.size() ? ov[at] : 0.0);
            top = std::max({top, at < qk.size() ? qk[at] : 0.0, at < ov.size() ? ov[at] : 0.0});
            categories << QStringLiteral("σ%1").arg(i + 1);
        }
        series->append(qkSet);
        series->append(ovSet);
        chart()->addSeries(series);
        auto* x = new QBarCategoryAxis();
        x->append(categories);
        auto* y = new QValueAxis();
        y->setLabelFormat(QStringLiteral("%.2g"));
        setValueRange(y, top);
        chart()->addAxis(x, Qt::AlignBottom);
        chart()->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        applyTheme();
    }

    const std::vector<double>& values(int set) const { return set == 0 ? m_qk : m_ov; }

protected:
    void colourSeries(const QPalette& palette, const QColor&) override {
        const auto all = chart()->series();
        if (all.isEmpty()) {
            return;
        }
        const auto sets = static_cast<QBarSeries*>(all.front())->barSets();
        for (int i = 0; i < sets.size(); ++i) {
            const QColor fill = okabeIto(i == 0 ? 3 : 4);  // purple, orange: not the edges'
            sets[i]->setColor(fill);
            sets[i]->setBorderColor(outlineColor(fill, palette));
        }
    }

private:
    std::vector<double> m_qk;
    std::vector<double> m_ov;
};

HeadCard::HeadCard(QWidget* parent)
    : QWidget(parent),
      m_title(named<QLabel>("circuitsCardTitle", this)),
      m_chart(new SpectrumChart(this)),
      m_scores(named<QLabel>("circuitsCardScores", this)),
      m_partners(named<QLabel>("circuitsCardPartners", this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_title->setWordWrap(true);  // the hint is wider than the card may be at 1024 pixels
    m_scores->setToolTip(
        tr("OV copying score: Σλ / Σ|λ| over the eigenvalues of W_E W_OV W_U; +1: the head "
           "copies the token it attends to.\nPositional previous-token score: the mean "
           "attention to the previous position from the learned position embeddings alone."));
    m_partners->setToolTip(
        tr("The strongest Q-, K- and V-composition scores with earlier "
           "heads (reads) and later ones (writes): score (minus the "
           "baseline 1/√d_model)"));
    for (QLabel* label : {m_scores, m_partners}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::RichText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    layout->addWidget(m_title);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_scores);
    layout->addWidget(m_partners);
    showHead(nullptr, std::nullopt);
}

std::vector<double> HeadCard::bars(int set) const {
    return m_chart->values(set);
}

namespace {

std::vector<double> top(const std::vector<double>& values, int count) {
    return {values.begin(),
            values.begin() + std::min(values.size(), static_cast<std::size_t>(count))};
}

QString partnerLines(const analysis::WeightCircuits& w, int head, bool reads) {
    const auto partners = strongestPartners(w, head, reads, 3);
    if (partners.empty()) {
        return reads ? QObject::tr("none: no earlier layer") : QObject::tr("none: no later layer");
    }
    QStringList lines;
    for (const CompositionEdge& e : partners) {
        lines << partnerText(w, e, reads).toHtmlEscaped();
    }
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace

void HeadCard::showHead(std::shared_ptr<const CircuitsDocument::Run> run,
                        std::optional<HeadId> head) {
    if (!run || !head || head->layer < 0 || head->head < 0 ||
        head->layer >= run->circuits.nLayers || head->head >= run->circuits.nHeads) {
        m_head.reset();
        m_title->setText(tr("Click a head in the graph or the table to see its card."));
        m_chart->setSpectra({}, {});
        m_chart->hide();
        m_scores->clear();
        m_partners->clear();
        return;
    }
    m_head = head;
    const analysis::WeightCircuits& w = run->circuits;
    const int flat = flatIndex(w, *head);
    const analysis::HeadWeights& h = w.heads[static_cast<std::size_t>(flat)];
    m_title->setText(tr("Head %1: top singular values").arg(headName(*head)));
    m_chart->setSpectra(top(h.qkSingular, kSpectrum), top(h.ovSingular, kSpectrum));
    m_chart->show();
    const QString copying = std::isnan(h.copying) ? copyingUndefined() : scoreText(h.copying, true);
    const QString positional =
        std::isnan(h.positionalPrevious) ? positionalUndefined() : scoreText(h.positionalPrevious);
    m_scores->setText(tr("<b>OV copying score</b> %1<br><b>Positional previous-token score</b> %2")
                          .arg(copying, positional));
    m_partners->setText(tr("<table cellspacing=0 cellpadding=0><tr><td><b>Reads from</b><br>%1</td>"
                           "<td width=18></td><td><b>Writes into</b><br>%2</td></tr></table>")
                            .arg(partnerLines(w, flat, true), partnerLines(w, flat, false)));
}

}  // namespace attnscope::app
