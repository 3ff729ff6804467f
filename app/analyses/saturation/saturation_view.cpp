#include "analyses/saturation/saturation_view.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "analyses/saturation/saturation_document.h"
#include "analyses/saturation/saturation_scatter.h"
#include "attnscope/base/error.h"
#include "session/analysis_session.h"
#include "widgets/named.h"
#include "widgets/placeholder_stack.h"

namespace attnscope::app {

namespace {

using analysis::HeadSaturation;
using forward::QkNormChoice;

// A head counts as collapsed when at least half its rows put >= 0.99 on one key.
constexpr float kCollapsedShare = 0.5f;

float stageValue(const HeadSaturation& h, SaturationView::Stage stage) {
    switch (stage) {
        case SaturationView::Stage::BeforeCap:
            return h.maxAbsScaled;
        case SaturationView::Stage::BeforeQkNorm:
            return h.maxAbsUnnormed;
        case SaturationView::Stage::Softmax:
            break;
    }
    return h.maxAbsLogit;
}

QString tooltipOf(const HeadSaturation& h) {
    QString text = SaturationView::tr("entropy %1 nats · max |logit| %2")
                       .arg(h.meanEntropy, 0, 'f', 3)
                       .arg(h.maxAbsLogit, 0, 'g', 4);
    if (h.maxAbsScaled != h.maxAbsLogit) {
        text += SaturationView::tr(" (before the cap %1)").arg(h.maxAbsScaled, 0, 'g', 4);
    }
    if (std::isfinite(h.maxAbsUnnormed) && h.maxAbsUnnormed != h.maxAbsScaled) {
        text += SaturationView::tr("<br>before QK-norm %1").arg(h.maxAbsUnnormed, 0, 'g', 4);
    }
    return text + QStringLiteral("<br>") +
           SaturationView::tr("one-hot rows: %1 of %2").arg(h.oneHotRows).arg(h.rows);
}

std::vector<SaturationPoint> pointsOf(const std::vector<HeadSaturation>& heads,
                                      SaturationView::Stage stage) {
    std::vector<SaturationPoint> out;
    for (const HeadSaturation& h : heads) {
        out.push_back({h.head, stageValue(h, stage), h.meanEntropy, tooltipOf(h)});
    }
    return out;
}

int collapsed(const std::vector<HeadSaturation>& heads) {
    return static_cast<int>(std::count_if(heads.begin(), heads.end(), [](const auto& h) {
        return h.oneHotShare >= kCollapsedShare;
    }));
}

const HeadSaturation* largest(const std::vector<HeadSaturation>& heads) {
    const auto it = std::max_element(heads.begin(), heads.end(), [](const auto& a, const auto& b) {
        return a.maxAbsLogit < b.maxAbsLogit;
    });
    return it == heads.end() ? nullptr : &*it;
}

}  // namespace

SaturationView::SaturationView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_stack(named<PlaceholderStack>("saturationStack", this)),
      m_caption(named<QLabel>("saturationCaption", this)),
      m_scatter(new SaturationScatter(this)) {
    setObjectName(QStringLiteral("saturationView"));
    m_stack->placeholder()->setObjectName(QStringLiteral("saturationPlaceholder"));
    m_caption->setWordWrap(true);
    m_caption->setTextFormat(Qt::RichText);
    m_caption->setContentsMargins(8, 4, 8, 2);
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(makeControls());
    layout->addWidget(m_caption);
    layout->addWidget(m_scatter, 1);
    m_stack->setPage(page);

    auto& document = session->document<SaturationDocument>();
    connect(session, &AnalysisSession::resultChanged, this, &SaturationView::refresh);
    connect(&document, &SaturationDocument::baselineChanged, this, &SaturationView::refresh);
    connect(session, &AnalysisSession::computeSettingsChanged, this, &SaturationView::syncControls);
    connect(session, &AnalysisSession::modelChanged, this, &SaturationView::syncControls);
    connect(session, &AnalysisSession::selectedHeadChanged, m_scatter,
            &SaturationScatter::setSelected);
    connect(m_scatter, &SaturationScatter::headClicked, this, [this](HeadId head) {
        m_session->selectHead(head);
        emit headActivated(head);
    });
    syncControls();
    refresh();
}

bool SaturationView::hasResult() const {
    return m_stack->showsPage();
}

QWidget* SaturationView::makeControls() {
    auto* bar = new QWidget(this);
    // Two rows of combos that may shrink: the tab must fit the window's narrowest layout.
    auto* rows = new QVBoxLayout(bar);
    rows->setContentsMargins(8, 6, 8, 2);
    rows->setSpacing(4);
    auto* row = new QHBoxLayout;
    auto* second = new QHBoxLayout;
    rows->addLayout(row);
    rows->addLayout(second);
    m_qkNorm = named<QComboBox>("whatIfQkNorm", bar);
    m_qkNorm->addItems({tr("Model's own"), tr("Off"), tr("Unit weights (ViT-22B)")});
    m_qkNorm->setToolTip(
        tr("Every layer's QK-norm: the model's own, none (the raw projections), or an RMSNorm "
           "of each head's q and k with weight 1 before RoPE — the repair ViT-22B trained with, "
           "applied to a model that was not."));
    m_softcap = named<QComboBox>("whatIfSoftcap", bar);
    m_softcap->addItems({tr("Model's own"), tr("Off"), tr("Typed")});
    m_softcap->setToolTip(tr("tanh(s / c) · c on every head's scaled scores, before the mask"));
    m_cap = named<QLineEdit>("whatIfCap", bar);
    m_cap->setValidator(new QDoubleValidator(1e-3, 1e6, 4, m_cap));
    m_cap->setPlaceholderText(tr("e.g. 5"));
    m_cap->setMaximumWidth(80);
    m_cap->setMinimumWidth(56);
    m_stage = named<QComboBox>("saturationStage", bar);
    m_stage->addItems(
        {tr("as the softmax sees it"), tr("before the soft-cap"), tr("before QK-norm")});
    m_reset = named<QPushButton>("whatIfReset", tr("Model as is"), bar);
    m_reset->setToolTip(tr("Switch every what-if off, the scale included"));
    row->addWidget(new QLabel(tr("QK-norm"), bar));
    row->addWidget(m_qkNorm);
    row->addSpacing(8);
    row->addWidget(new QLabel(tr("Soft-cap"), bar));
    row->addWidget(m_softcap);
    row->addWidget(m_cap);
    row->addStretch(1);
    row->addWidget(m_reset);
    second->addWidget(new QLabel(tr("x axis: the largest |logit|"), bar));
    second->addWidget(m_stage);
    second->addStretch(1);
    for (const auto& [box, chars] : {std::pair{m_qkNorm, 11}, {m_softcap, 13}, {m_stage, 20}}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(chars);
    }
    connect(m_qkNorm, &QComboBox::currentIndexChanged, this, &SaturationView::applyQkNorm);
    connect(m_softcap, &QComboBox::currentIndexChanged, this, &SaturationView::applySoftcap);
    connect(m_cap, &QLineEdit::editingFinished, this, &SaturationView::applySoftcap);
    connect(m_stage, &QComboBox::currentIndexChanged, this, &SaturationView::refresh);
    connect(m_reset, &QPushButton::clicked, this, [this] {
        m_session->setAttentionWhatIf({});
        m_session->setScale(std::nullopt);
    });
    return bar;
}

void SaturationView::syncControls() {
    const forward::AttentionWhatIf& w = m_session->attentionWhatIf();
    const QSignalBlocker b1(m_qkNorm), b2(m_softcap), b3(m_cap);
    m_qkNorm->setCurrentIndex(static_cast<int>(w.qkNorm));
    const int cap = !w.softcap ? 0 : *w.softcap > 0.0f ? 2 : 1;
    m_softcap->setCurrentIndex(cap);
    if (cap == 2) {
        m_cap->setText(QString::number(*w.softcap, 'g', 6));
    }
    m_cap->setEnabled(cap == 2);
    const model::Model* m = m_session->shownStack();
    const model::ModelSpec* spec = m ? &m->spec : nullptr;
    m_qkNorm->setItemText(0, !spec || spec->qkNorm == model::QkNorm::None ? tr("Model's own (none)")
                                                                          : tr("Model's own"));
    m_softcap->setItemText(0, !spec || spec->attnSoftcap <= 0.0f
                                  ? tr("Model's own (none)")
                                  : tr("Model's own (%1)").arg(spec->attnSoftcap, 0, 'g', 4));
    m_reset->setEnabled(!m_session->showsModelAsIs());
}

void SaturationView::applyQkNorm() {
    forward::AttentionWhatIf w = m_session->attentionWhatIf();
    w.qkNorm = static_cast<QkNormChoice>(m_qkNorm->currentIndex());
    m_session->setAttentionWhatIf(w);
}

void SaturationView::applySoftcap() {
    forward::AttentionWhatIf w = m_session->attentionWhatIf();
    const int mode = m_softcap->currentIndex();
    m_cap->setEnabled(mode == 2);
    if (mode == 0) {
        w.softcap.reset();
    } else if (mode == 1) {
        w.softcap = 0.0f;
    } else {
        if (m_cap->text().isEmpty()) {
            // Start from the model's cap, or one that bites on logits of a few units.
            const model::Model* m = m_session->shownStack();
            const float own = m ? m->spec.attnSoftcap : 0.0f;
            m_cap->setText(QString::number(own > 0.0f ? own : 5.0f, 'g', 6));
        }
        bool ok = false;
        const float value = m_cap->text().toFloat(&ok);
        if (!ok || !(value > 0.0f) || !std::isfinite(value)) {
            m_cap->setFocus();
            return;
        }
        w.softcap = value;
    }
    m_session->setAttentionWhatIf(w);
}

void SaturationView::refresh() {
    // The pass without the user's ablations: an ablated head's zero map is no saturation.
    const auto result = m_session->cleanResult();
    if (!result || m_session->seq2seq() || result->forward.nLayers <= 0) {
        m_shown.clear();
        m_baseline.clear();
        m_stack->showPlaceholder(
            m_session->seq2seq()
                ? tr("The saturation lab is for one-stack models (encoder or decoder); this "
                     "model is an encoder-decoder.")
                : tr("No result yet.\nOpen a model and enter a sentence to see how large each "
                     "head's attention logits grow and how often its rows collapse onto one "
                     "key."));
        return;
    }
    try {
        m_shown = analysis::saturationStats(result->forward);
    } catch (const Error& e) {
        m_shown.clear();
        m_baseline.clear();
        m_stack->showPlaceholder(QString::fromUtf8(e.what()));
        return;
    }
    const auto baseline = m_session->document<SaturationDocument>().currentBaseline();
    m_baseline = baseline ? baseline->heads : std::vector<HeadSaturation>{};
    const auto stage = static_cast<Stage>(m_stage->currentIndex());
    m_scatter->setPoints(pointsOf(m_shown, stage), pointsOf(m_baseline, stage),
                         result->forward.nLayers,
                         tr("largest |logit| of the head, %1").arg(m_stage->currentText()));
    m_scatter->setSelected(m_session->selectedHead());
    m_caption->setText(captionText());
    m_stack->showPage();
}

QString SaturationView::captionText() const {
    const int total = static_cast<int>(m_shown.size());
    QString text = tr("<b>%1 of %2 heads</b> put ≥ 0.99 on one key in at least half their rows")
                       .arg(collapsed(m_shown))
                       .arg(total);
    if (const HeadSaturation* top = largest(m_shown)) {
        text += tr("; the largest |logit| is %1 (head %2)")
                    .arg(top->maxAbsLogit, 0, 'g', 4)
                    .arg(QString::fromStdString(top->head.toString()));
    }
    if (m_session->showsModelAsIs()) {
        return text + QStringLiteral(". ") + tr("Switch QK-norm or the soft-cap to compare.");
    }
    if (m_baseline.empty()) {
        return text + QStringLiteral(". ") + tr("Computing the model as it is…");
    }
    text +=
        QStringLiteral(". ") + tr("Model as is (grey rings): %1 heads").arg(collapsed(m_baseline));
    if (const HeadSaturation* top = largest(m_baseline)) {
        text += tr(", largest |logit| %1").arg(top->maxAbsLogit, 0, 'g', 4);
    }
    return text + QStringLiteral(".");
}

}  // namespace attnscope::app
