#include "panels/prediction_panel.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QVBoxLayout>

#include "panels/token_pick_field.h"
#include "session/analysis_session.h"
#include "widgets/named.h"

namespace attnscope::app {

namespace {

constexpr int kTop = 5;
constexpr int kRowHeight = 24;

QString label(const std::string& piece) {
    return QString::fromStdString(analysis::tokenLabel(piece));
}

// A row of the bars: rank and token, bar, percentage. The token column gets half the width,
// at least enough for a short token and at most twelve wide letters; the bar never less than
// kMinBar, and the percentage always its widest text, so "3.3%" is never cut to "3".
constexpr int kMargin = 4;
constexpr int kGap = 6;
constexpr int kMinBar = 40;

struct BarColumns {
    int text;
    int bar;
    int percent;
};

int minTextWidth(const QFontMetrics& fm) {
    return fm.horizontalAdvance(QStringLiteral("5. ")) + 8 * fm.averageCharWidth();
}

BarColumns barColumns(const QFontMetrics& fm, int width) {
    const int percent = fm.horizontalAdvance(QStringLiteral("100.0%"));
    const int fixed = 2 * kMargin + 2 * kGap + percent;
    const int minText = minTextWidth(fm);
    const int maxText = std::max(minText, fm.horizontalAdvance(QLatin1Char('M')) * 12);
    int text = std::clamp(width / 2, minText, maxText);
    text = std::max(minText, std::min(text, width - fixed - kMinBar));
    return {text, std::max(kMinBar, width - fixed - text), percent};
}

QColor changeColor(double change, const QPalette& pal) {
    if (std::abs(change) < 0.0005) {  // under 0.05 pp: shown as no change
        return pal.color(QPalette::PlaceholderText);
    }
    return change < 0 ? QColor(210, 50, 50) : QColor(40, 150, 70);
}

// "−12.3 pp · #4": the change of probability in percentage points and the rank elsewhere.
PredictionBars::Note shiftNote(float here, const PredictionShift& other, bool hereIsAblated) {
    const double delta = hereIsAblated ? static_cast<double>(here) - other.otherProbability
                                       : static_cast<double>(other.otherProbability) - here;
    const bool withSign = std::abs(100.0 * delta) >= 0.05;  // else "0.0 pp", without a sign
    const QString sign = !withSign   ? QString()
                         : delta > 0 ? QStringLiteral("+")
                                     : QStringLiteral("−");
    return {QStringLiteral("%1%2 pp · #%3")
                .arg(sign)
                .arg(std::abs(100.0 * delta), 0, 'f', 1)
                .arg(other.otherRank),
            delta};
}

// The panel's note under the bars while it has nothing else to say.
QString usageNote() {
    return PredictionPanel::tr(
        "Click a row of the head view to predict at that token; click a token here to explain "
        "its logit (Ctrl+click: subtract it).");
}

}  // namespace

PredictionBars::PredictionBars(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("predictionBars"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMinimumHeight(sizeHint().height());  // a squeezed dock must not cut off the fifth row
    setToolTip(
        tr("Click a token to explain its logit in the Logit attribution and Logit lens "
           "tabs (framed); Ctrl+click to subtract its logit (dashed frame). Right-click "
           "for more."));
}

void PredictionBars::setPicked(const PickedTokens& picked) {
    if (picked != m_picked) {
        m_picked = picked;
        update();
    }
}

int PredictionBars::rowAt(QPoint pos) const {
    if (pos.y() < 2 || pos.x() < 0 || pos.x() >= width()) {
        return -1;
    }
    const int row = (pos.y() - 2) / rowHeight();
    return row < static_cast<int>(m_predictions.size()) ? row : -1;
}

QPoint PredictionBars::rowCenter(int row) const {
    return {width() / 2, 2 + row * rowHeight() + (kRowHeight - 4) / 2};
}

void PredictionBars::mouseReleaseEvent(QMouseEvent* event) {
    const int row = rowAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && row >= 0) {
        emit tokenClicked(row, event->modifiers());
    }
    QWidget::mouseReleaseEvent(event);
}

// The target's frame is the selection colour; the distractor's dashed in orange, a colour the
// bars do not use, so the two read apart at a glance.
void PredictionBars::paintPickedFrame(QPainter& p, int row) const {
    const std::int32_t id = m_predictions[static_cast<std::size_t>(row)].id;
    const bool target = m_picked.target == id;
    if (!target && m_picked.distractor != id) {
        return;
    }
    QPen pen(target ? palette().color(QPalette::Highlight) : QColor(230, 126, 34), 2);
    pen.setStyle(target ? Qt::SolidLine : Qt::DashLine);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    const int y = row * rowHeight() + 2;
    p.drawRoundedRect(QRectF(1, y - 1, width() - 2, rowHeight() - 2), 4, 4);
}

void PredictionBars::setPredictions(std::vector<forward::TokenPrediction> predictions,
                                    std::vector<Note> notes) {
    m_predictions = std::move(predictions);
    m_notes = std::move(notes);
    setMinimumHeight(sizeHint().height());
    updateGeometry();
    update();
}

// A row with a note has a second line for it under the bar, so that the list keeps the width
// of a plain one in a narrow dock.
int PredictionBars::rowHeight() const {
    return m_notes.empty() ? kRowHeight : kRowHeight + fontMetrics().height() - 4;
}

QSize PredictionBars::sizeHint() const {
    return {std::max(260, minimumSizeHint().width()), kTop * rowHeight() + 4};
}

QSize PredictionBars::minimumSizeHint() const {
    const BarColumns c = barColumns(fontMetrics(), 0);
    return {2 * kMargin + 2 * kGap + c.text + c.bar + c.percent, kTop * rowHeight() + 4};
}

void PredictionBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    const QFontMetrics fm(font());
    const BarColumns c = barColumns(fm, width());
    for (std::size_t i = 0; i < m_predictions.size(); ++i) {
        const forward::TokenPrediction& pr = m_predictions[i];
        const int y = static_cast<int>(i) * rowHeight() + 2;
        const QRect textRect(kMargin, y, c.text, kRowHeight - 4);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(QStringLiteral("%1. %2").arg(i + 1).arg(label(pr.token)),
                                 Qt::ElideRight, c.text));
        const int barLeft = kMargin + c.text + kGap;
        const int barMax = c.bar;
        const QRectF track(barLeft, y + 5, barMax, kRowHeight - 14);
        p.setPen(Qt::NoPen);
        p.setBrush(pal.color(QPalette::AlternateBase));
        p.drawRoundedRect(track, 3, 3);
        p.setBrush(pal.color(QPalette::Highlight));
        p.drawRoundedRect(QRectF(track.topLeft(),
                                 QSizeF(std::max(2.0, barMax * static_cast<double>(pr.probability)),
                                        track.height())),
                          3, 3);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(barLeft + barMax + kGap, y, c.percent, kRowHeight - 4),
                   Qt::AlignVCenter | Qt::AlignRight,
                   QString::number(100.0 * pr.probability, 'f', 1) + QLatin1Char('%'));
        if (i < m_notes.size()) {
            p.setPen(changeColor(m_notes[i].change, pal));
            p.drawText(QRect(barLeft, y + kRowHeight - 6, barMax + kGap + c.percent, fm.height()),
                       Qt::AlignVCenter | Qt::AlignRight, m_notes[i].text);
        }
        paintPickedFrame(p, static_cast<int>(i));
    }
}

PredictionPanel::PredictionPanel(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_heading(named<QLabel>("predictionHeading", this)),
      m_positions(named<QComboBox>("predictionPosition", this)),
      m_columns(new QWidget(this)),
      m_columnLayout(new QBoxLayout(QBoxLayout::LeftToRight, m_columns)),
      m_cleanTitle(named<QLabel>("cleanPredictionTitle", m_columns)),
      m_ablatedTitle(named<QLabel>("ablatedPredictionTitle", m_columns)),
      m_cleanBars(named<PredictionBars>("cleanPredictionBars", m_columns)),
      m_bars(new PredictionBars(m_columns)),
      m_note(noteLabel(this, usageNote())),
      m_pick(new TokenPickField(session, this)) {
    setObjectName(QStringLiteral("predictionPanel"));
    m_heading->setWordWrap(true);
    m_positions->setToolTip(tr("Token position to predict at"));
    m_cleanTitle->setText(tr("<b>Clean</b> · Δp and rank after the ablation"));
    m_columnLayout->setContentsMargins(0, 0, 0, 0);
    for (const auto& [title, bars] :
         {std::pair{m_cleanTitle, m_cleanBars}, std::pair{m_ablatedTitle, m_bars}}) {
        title->setWordWrap(true);
        auto* column = new QVBoxLayout;
        column->addWidget(title);
        column->addWidget(bars);
        m_columnLayout->addLayout(column, 1);
    }
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_heading);
    auto* row = new QHBoxLayout;  // the field beside the position: the dock grows no taller
    row->addWidget(m_positions, 1);
    row->addWidget(m_pick, 1);
    layout->addLayout(row);
    layout->addWidget(m_columns);
    layout->addWidget(m_note);
    layout->addStretch(1);
    connect(m_positions, &QComboBox::activated, this,
            [this](int index) { m_session->selectToken(index); });
    followPicks(m_bars);
    followPicks(m_cleanBars);
    connect(session, &AnalysisSession::pickedTokensChanged, this, &PredictionPanel::showPicked);
    // The note line says how to pick, or what is picked (and why a typed token was not).
    connect(m_pick, &TokenPickField::statusChanged, this, [this](const QString& status) {
        m_note->setText(status.isEmpty() ? usageNote() : status);
    });
    connect(session, &AnalysisSession::resultChanged, this, &PredictionPanel::refresh);
    connect(session, &AnalysisSession::selectedTokenChanged, this, &PredictionPanel::refresh);
    connect(session, &AnalysisSession::predictionsChanged, this, &PredictionPanel::showPredictions);
    showPicked();
    refresh();
}

void PredictionPanel::followPicks(PredictionBars* bars) {
    bars->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(bars, &QWidget::customContextMenuRequested, this,
            [this, bars](QPoint pos) { showPickMenu(bars, pos); });
    connect(bars, &PredictionBars::tokenClicked, this,
            [this, bars](int row, Qt::KeyboardModifiers modifiers) {
                const std::int32_t id = bars->predictions()[static_cast<std::size_t>(row)].id;
                if (!(modifiers & Qt::ControlModifier)) {
                    m_session->pickTarget(id);
                } else if (m_session->pickedTokens().distractor == id) {
                    m_session->pickDistractor(std::nullopt);  // Ctrl+click again: none
                } else {
                    m_session->pickDistractor(id);
                }
            });
}

// Not modal (popup, never exec): the menu deletes itself once closed.
void PredictionPanel::showPickMenu(PredictionBars* bars, QPoint pos) {
    const int row = bars->rowAt(pos);
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("predictionPickMenu"));
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const PickedTokens& picked = m_session->pickedTokens();
    if (row >= 0) {
        const forward::TokenPrediction& t = bars->predictions()[static_cast<std::size_t>(row)];
        const QString name = label(t.token);
        menu->addAction(tr("Explain “%1” (target)").arg(name), this,
                        [this, id = t.id] { m_session->pickTarget(id); });
        menu->addAction(tr("Subtract “%1” (distractor)").arg(name), this,
                        [this, id = t.id] { m_session->pickDistractor(id); });
        menu->addSeparator();
    }
    menu->addAction(tr("Target: the top prediction"), this,
                    [this] { m_session->pickTarget(std::nullopt); })
        ->setEnabled(picked.target.has_value());
    menu->addAction(tr("No distractor"), this, [this] { m_session->pickDistractor(std::nullopt); })
        ->setEnabled(picked.distractor.has_value());
    menu->popup(bars->mapToGlobal(pos));
}

void PredictionPanel::showPicked() {
    m_bars->setPicked(m_session->pickedTokens());
    m_cleanBars->setPicked(m_session->pickedTokens());
}

void PredictionPanel::fillPositions() {
    const auto result = m_session->predictionRows();  // an encoder-decoder's: the decoder's
    const QSignalBlocker block(m_positions);
    m_positions->clear();
    for (int i = 0; result && i < result->forward.nTokens; ++i) {
        m_positions->addItem(
            QStringLiteral("%1 · %2").arg(i).arg(QString::fromStdString(result->label(i))));
    }
    m_positions->setCurrentIndex(m_position);
}

void PredictionPanel::refresh() {
    const auto result = m_session->result();
    const auto model = m_session->model();
    m_position = m_session->predictionPosition();
    m_note->setText(usageNote());
    fillPositions();
    m_bars->setPredictions({});
    m_cleanBars->setPredictions({});
    const bool compare = result && m_session->cleanResult() != result;
    m_cleanTitle->setVisible(compare);
    m_ablatedTitle->setVisible(compare);
    m_cleanBars->setVisible(compare);
    if (!model || !result) {
        m_heading->setText(tr("Open a model and type a sentence to see its predictions."));
        return;
    }
    if (!forward::hasPredictionHead(*model)) {
        m_heading->setText(
            tr("This checkpoint has no prediction head (no MLM or LM head "
               "tensors), so it cannot predict tokens."));
        return;
    }
    const bool causal = model->spec.prediction == model::PredictionKind::CausalLm;
    if (const auto seq2seq = m_session->seq2seq(); seq2seq && m_position >= 0) {
        m_heading->setText(
            tr("<b>Next target token</b> at decoder row %1 (reading “%2”); the target's own "
               "token is marked")
                .arg(m_position)
                .arg(QString::fromStdString(seq2seq->decoder.label(m_position)).toHtmlEscaped()));
        showPredictions();
        return;
    }
    if (m_position < 0) {
        m_heading->setText(
            tr("Masked LM: put [MASK] (or <mask>) in the sentence, or click a "
               "row, to see what the model fills in."));
        return;
    }
    const QString token = QString::fromStdString(result->label(m_position));
    m_heading->setText(causal ? tr("<b>Next token</b> after “%1” (position %2)")
                                    .arg(token.toHtmlEscaped())
                                    .arg(m_position)
                              : tr("<b>Token at</b> “%1” (position %2), masked LM")
                                    .arg(token.toHtmlEscaped())
                                    .arg(m_position));
    showPredictions();  // the service computes them (ComputeService::schedulePredictions)
}

void PredictionPanel::showPredictions() {
    const Predictions& p = m_session->predictions();
    if (!p.result || p.position != m_position) {
        return;  // still on their way
    }
    const bool compare = !p.cleanTop.empty();
    m_cleanTitle->setVisible(compare);
    m_ablatedTitle->setVisible(compare);
    m_cleanBars->setVisible(compare);
    if (!compare) {
        m_cleanBars->setPredictions({});
        m_bars->setPredictions(p.top, targetNotes(p));
        emit predictionsShown();
        return;
    }
    std::vector<PredictionBars::Note> cleanNotes;
    for (std::size_t i = 0; i < p.cleanTop.size() && i < p.cleanTopInAblated.size(); ++i) {
        cleanNotes.push_back(shiftNote(p.cleanTop[i].probability, p.cleanTopInAblated[i], false));
    }
    std::vector<PredictionBars::Note> ablatedNotes;
    for (std::size_t i = 0; i < p.top.size() && i < p.topInClean.size(); ++i) {
        ablatedNotes.push_back(shiftNote(p.top[i].probability, p.topInClean[i], true));
    }
    const auto& ablated = p.result->forward.ablated;
    const auto n = std::count_if(ablated.begin(), ablated.end(),
                                 [](const auto& kind) { return kind.has_value(); });
    m_ablatedTitle->setText(n == 1 ? tr("<b>Ablated</b> (1 head) · Δp and rank before")
                                   : tr("<b>Ablated</b> (%1 heads) · Δp and rank before").arg(n));
    m_cleanBars->setPredictions(p.cleanTop, std::move(cleanNotes));
    m_bars->setPredictions(p.top, std::move(ablatedNotes));
    fitColumns();
    emit predictionsShown();
}

// Encoder-decoder models: the target token the row produces under teacher forcing, marked in
// the list and, wherever it ranks, named in the note below it.
std::vector<PredictionBars::Note> PredictionPanel::targetNotes(const Predictions& p) {
    if (!m_session->seq2seq()) {
        return {};
    }
    if (p.targetId < 0) {
        m_note->setText(tr("Past the target's last token: no target token to compare with."));
        return {};
    }
    m_note->setText(tr("Target token here: “%1”, p = %2%, rank %3. Click a row of the head view "
                       "(decoder or cross-attention) to predict at another.")
                        .arg(p.targetLabel)
                        .arg(100.0 * p.targetStanding.otherProbability, 0, 'f', 1)
                        .arg(p.targetStanding.otherRank));
    std::vector<PredictionBars::Note> notes;
    for (const forward::TokenPrediction& t : p.top) {
        notes.push_back(t.id == p.targetId ? PredictionBars::Note{tr("← target"), 1.0}
                                           : PredictionBars::Note{});
    }
    return notes;
}

bool PredictionPanel::comparing() const {
    return !m_cleanBars->isHidden() && !m_cleanBars->predictions().empty();
}

void PredictionPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitColumns();
}

// Side by side when both lists fit at their minimum width, else one above the other.
void PredictionPanel::fitColumns() {
    const int need = m_cleanBars->minimumSizeHint().width() + m_bars->minimumSizeHint().width() +
                     m_columnLayout->spacing();
    const bool wide = width() - 20 >= need;
    m_columnLayout->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
}

}  // namespace attnscope::app
