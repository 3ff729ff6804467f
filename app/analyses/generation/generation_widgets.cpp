#include "analyses/generation/generation_widgets.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include "analyses/generation/generation_figure.h"

namespace attnscope::app {

namespace {

constexpr double kChipGap = 4;
constexpr double kChipPad = 5;

QColor mixed(const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

}  // namespace

TokenChips::TokenChips(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void TokenChips::setRun(std::shared_ptr<const GenerationDocument::Run> run, int step) {
    m_run = std::move(run);
    m_step = step;
    emit heightWanted(layOut(width(), &m_rects));
    updateGeometry();
    update();
}

QString TokenChips::chipText(int index) const {
    return QString::fromStdString(m_run->labels[static_cast<std::size_t>(index)]);
}

// A chip: the token, and under a generated one its probability.
int TokenChips::layOut(int width, std::vector<QRectF>* rects) const {
    rects->clear();
    if (!m_run) {
        return 0;
    }
    const QFontMetricsF fm(font());
    const double line = 2 * fm.height() + 2 * kChipPad;
    double x = 0;
    double y = 0;
    for (int i = 0; i < static_cast<int>(m_run->labels.size()); ++i) {
        const double w = std::max(fm.horizontalAdvance(chipText(i)),
                                  fm.horizontalAdvance(QStringLiteral("0.000"))) +
                         2 * kChipPad;
        if (x > 0 && x + w > width) {
            x = 0;
            y += line + kChipGap;
        }
        rects->emplace_back(x, y, w, line);
        x += w + kChipGap;
    }
    return static_cast<int>(y + line) + 2;
}

int TokenChips::heightForWidth(int width) const {
    std::vector<QRectF> rects;
    return std::max(40, layOut(width, &rects));
}

QSize TokenChips::sizeHint() const {
    return {600, heightForWidth(std::max(width(), 200))};
}

QRectF TokenChips::chipRect(int index) const {
    return index >= 0 && index < static_cast<int>(m_rects.size())
               ? m_rects[static_cast<std::size_t>(index)]
               : QRectF();
}

void TokenChips::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    emit heightWanted(layOut(width(), &m_rects));
}

void TokenChips::paintEvent(QPaintEvent*) {
    if (!m_run) {
        return;
    }
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF fm(font());
    const QColor base = palette().color(QPalette::Base);
    const QColor text = palette().color(QPalette::Text);
    const QColor accent(230, 130, 40);
    const int prompt = m_run->promptLength();
    const int chosen = prompt + m_step;  // the token this step chose
    for (int i = 0; i < static_cast<int>(m_rects.size()); ++i) {
        const QRectF r = m_rects[static_cast<std::size_t>(i)].adjusted(0.5, 0.5, -0.5, -0.5);
        const bool generated = i >= prompt;
        const bool future = i > chosen;
        QColor fill = generated ? mixed(base, accent, 0.35) : base;
        QColor ink = text;
        if (future) {
            fill = mixed(base, fill, 0.4);
            ink = mixed(base, text, 0.45);
        }
        p.setBrush(fill);
        p.setPen(i == chosen ? QPen(text, 2.5) : QPen(mixed(base, text, 0.3), 1));
        p.drawRoundedRect(r, 4, 4);
        QFont f = font();
        f.setBold(i == chosen);
        p.setFont(f);
        p.setPen(ink);
        p.drawText(QRectF(r.left(), r.top() + kChipPad, r.width(), fm.height()), Qt::AlignHCenter,
                   chipText(i));
        p.setFont(font());
        if (generated) {
            const auto& s = m_run->generation.steps[static_cast<std::size_t>(i - prompt)];
            p.drawText(QRectF(r.left(), r.top() + kChipPad + fm.height(), r.width(), fm.height()),
                       Qt::AlignHCenter,
                       QString::number(static_cast<double>(s.probability), 'f', 3));
        }
    }
}

void TokenChips::mousePressEvent(QMouseEvent* event) {
    if (!m_run || event->button() != Qt::LeftButton) {
        return;
    }
    for (int i = m_run->promptLength(); i < static_cast<int>(m_rects.size()); ++i) {
        if (m_rects[static_cast<std::size_t>(i)].contains(event->position())) {
            emit stepClicked(i - m_run->promptLength());
            return;
        }
    }
}

RowStrip::RowStrip(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
}

void RowStrip::setRow(std::shared_ptr<const GenerationDocument::Run> run, int step, HeadId head,
                      int focusKey) {
    m_run = std::move(run);
    m_step = step;
    m_head = head;
    m_focus = focusKey;
    update();
}

int RowStrip::keyAt(double x) const {
    if (!m_run || m_run->steps() == 0) {
        return -1;
    }
    const QRectF bars = rowStripBars(QRectF(rect()).adjusted(4, 4, -4, -4), *m_run, m_step);
    const int keys = m_run->generation.steps[static_cast<std::size_t>(m_step)].keys;
    const double at = (x - bars.left()) / bars.width() * keys;
    return at < 0 || at >= keys ? -1 : static_cast<int>(at);
}

bool RowStrip::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_run) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int key = keyAt(help->pos().x());
        if (key >= 0) {
            QToolTip::showText(
                help->globalPos(),
                tr("Key %1 “%2”: weight %3\nClick to see every head's weight on it")
                    .arg(key)
                    .arg(QString::fromStdString(m_run->labels[static_cast<std::size_t>(key)]))
                    .arg(static_cast<double>(stepRow(*m_run, m_step, m_head)[key]), 0, 'f', 4),
                this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

void RowStrip::paintEvent(QPaintEvent*) {
    if (!m_run || m_run->steps() == 0) {
        return;
    }
    QPainter p(this);
    RowStripStyle style;
    style.text = palette().color(QPalette::Text);
    style.grid = palette().color(QPalette::Mid);
    style.focus = palette().color(QPalette::Text);
    paintRowStrip(p, QRectF(rect()).adjusted(4, 4, -4, -4), *m_run, m_step, m_head, m_focus, style);
}

void RowStrip::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        if (const int key = keyAt(event->position().x()); key >= 0) {
            emit keyClicked(key);
        }
    }
}

}  // namespace attnscope::app
