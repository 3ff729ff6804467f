#include "panels/prediction_panel.h"

#include <algorithm>

#include <QComboBox>
#include <QLabel>
#include <QPainter>
#include <QPointer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

constexpr int kTop = 5;
constexpr int kRowHeight = 24;

QString label(const std::string& piece) {
    return QString::fromStdString(analysis::tokenLabel(piece));
}

}  // namespace

PredictionBars::PredictionBars(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("predictionBars"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMinimumHeight(sizeHint().height());  // a squeezed dock must not cut off the fifth row
}

void PredictionBars::setPredictions(std::vector<forward::TokenPrediction> predictions) {
    m_predictions = std::move(predictions);
    updateGeometry();
    update();
}

QSize PredictionBars::sizeHint() const {
    return {260, kTop * kRowHeight + 4};
}

void PredictionBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    const QFontMetrics fm(font());
    const int textWidth = std::min(width() / 2, fm.horizontalAdvance(QLatin1Char('M')) * 12);
    const int percentWidth = fm.horizontalAdvance(QStringLiteral("100.0%")) + 6;
    for (std::size_t i = 0; i < m_predictions.size(); ++i) {
        const forward::TokenPrediction& pr = m_predictions[i];
        const int y = static_cast<int>(i) * kRowHeight + 2;
        const QRect textRect(4, y, textWidth, kRowHeight - 4);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(QStringLiteral("%1. %2").arg(i + 1).arg(label(pr.token)),
                                 Qt::ElideRight, textWidth));
        const int barLeft = textRect.right() + 6;
        const int barMax = std::max(10, width() - barLeft - percentWidth - 4);
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
        p.drawText(QRect(barLeft + barMax + 4, y, percentWidth, kRowHeight - 4),
                   Qt::AlignVCenter | Qt::AlignRight,
                   QString::number(100.0 * pr.probability, 'f', 1) + QLatin1Char('%'));
    }
}

PredictionPanel::PredictionPanel(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_heading(new QLabel(this)),
      m_positions(new QComboBox(this)),
      m_bars(new PredictionBars(this)),
      m_note(new QLabel(this)) {
    setObjectName(QStringLiteral("predictionPanel"));
    m_heading->setObjectName(QStringLiteral("predictionHeading"));
    m_positions->setObjectName(QStringLiteral("predictionPosition"));
    m_heading->setWordWrap(true);
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->setText(tr("Click a row of the head view to predict at that token."));
    m_positions->setToolTip(tr("Token position to predict at"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_heading);
    layout->addWidget(m_positions);
    layout->addWidget(m_bars);
    layout->addWidget(m_note);
    layout->addStretch(1);
    connect(m_positions, &QComboBox::activated, this,
            [this](int index) { m_session->selectToken(index); });
    connect(session, &AnalysisSession::resultChanged, this, &PredictionPanel::refresh);
    connect(session, &AnalysisSession::selectedTokenChanged, this, &PredictionPanel::refresh);
    refresh();
}

int PredictionPanel::defaultPosition() const {
    const auto result = m_session->result();
    const auto model = m_session->model();
    if (!result || !model || result->forward.nTokens == 0) {
        return -1;
    }
    if (model->spec.prediction == model::PredictionKind::CausalLm) {
        return result->forward.nTokens - 1;
    }
    const std::vector<int> masks = forward::maskTokenPositions(*model, result->forward.tokenIds);
    return masks.empty() ? -1 : masks.front();
}

void PredictionPanel::fillPositions() {
    const auto result = m_session->result();
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
    ++m_generation;
    m_position = m_session->selectedToken() >= 0 ? m_session->selectedToken() : defaultPosition();
    fillPositions();
    m_bars->setPredictions({});
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
    const quint64 generation = m_generation;
    const int position = m_position;
    auto* watcher = new QFutureWatcher<std::vector<forward::TokenPrediction>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        try {
            showResult(generation, watcher->result());
        } catch (const std::exception& e) {
            m_session->reportError(tr("Predictions: %1").arg(QString::fromUtf8(e.what())));
        }
    });
    // The vocabulary projection is a [vocab x hidden] product: tens of milliseconds on big
    // models, so it runs off the GUI thread like every other core computation.
    watcher->setFuture(QtConcurrent::run([model, result, position] {
        return forward::topPredictions(*model, result->forward, position, kTop);
    }));
}

void PredictionPanel::showResult(quint64 generation,
                                 std::vector<forward::TokenPrediction> predictions) {
    if (generation != m_generation) {
        return;  // a newer sentence or position is already on its way
    }
    m_bars->setPredictions(std::move(predictions));
    emit predictionsShown();
}

}  // namespace attnscope::app
