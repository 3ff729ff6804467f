#include "panels/mask_panel.h"

#include <cmath>
#include <initializer_list>
#include <utility>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "render/colormap.h"
#include "session/analysis_session.h"
#include "widgets/named.h"

namespace attnscope::app {

using forward::MaskKind;

namespace {

// 1/√dₖ of the heads shown: what most models scale by, not Gemma 2/3 (query_pre_attn_scalar) or
// T5 (unscaled).
float headWidthScale(const model::Model& stack) {
    return 1.0f / std::sqrt(static_cast<float>(stack.spec.headDimK));
}

// A titled group of the panel: each row a label and its field, or (no label) a line across.
// A narrow dock puts a field under its label rather than cutting either (issue 15).
void addGroup(QBoxLayout* into, const QString& title,
              std::initializer_list<std::pair<QString, QWidget*>> rows) {
    auto* box = new QGroupBox(title, into->parentWidget());
    auto* form = new QFormLayout(box);
    for (const auto& [label, field] : rows) {
        if (label.isEmpty()) {
            form->addRow(field);
        } else {
            form->addRow(label, field);
        }
    }
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    into->addWidget(box);
}

}  // namespace

MaskPanel::MaskPanel(AnalysisSession* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
    setObjectName(QStringLiteral("maskPanel"));
    auto* layout = new QVBoxLayout(this);
    addMaskGroup(layout);
    addScaleGroup(layout);
    addColourGroup(layout);
    addMemoryGroup(layout);
    layout->addStretch(1);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &MaskPanel::applyMask);
    connect(m_offset, &QSpinBox::valueChanged, this, &MaskPanel::applyMask);
    connect(m_padding, &QSpinBox::valueChanged, this, &MaskPanel::applyMask);
    connect(m_scaleMode, &QComboBox::currentIndexChanged, this, &MaskPanel::applyScale);
    connect(m_scale, &QLineEdit::editingFinished, this, &MaskPanel::applyScale);
    connect(m_colormap, &QComboBox::currentTextChanged, this, &MaskPanel::applyStyle);
    connect(m_scaling, &QComboBox::currentTextChanged, this, &MaskPanel::applyStyle);
    connect(m_budget, &QSpinBox::editingFinished, this, [this] {
        m_session->setMapBudgetBytes(static_cast<std::size_t>(m_budget->value()) << 20);
    });
    connect(m_truncate, &QCheckBox::toggled, m_session, &AnalysisSession::setTruncateLongInput);
    connect(session, &AnalysisSession::computeSettingsChanged, this, &MaskPanel::syncFromSession);
    connect(session, &AnalysisSession::heatmapStyleChanged, this, &MaskPanel::syncFromSession);
    connect(session, &AnalysisSession::modelChanged, this, &MaskPanel::syncFromSession);
    connect(session, &AnalysisSession::attentionKindChanged, this, &MaskPanel::syncFromSession);
    syncFromSession();
}

void MaskPanel::addMaskGroup(QBoxLayout* into) {
    m_kind = named<QComboBox>("maskKind", this);
    m_kind->addItem(tr("Model default"), static_cast<int>(MaskKind::ModelDefault));
    m_kind->addItem(tr("None (bidirectional)"), static_cast<int>(MaskKind::Bidirectional));
    m_kind->addItem(tr("Causal"), static_cast<int>(MaskKind::Causal));
    m_kind->addItem(tr("Custom (click cells)"), static_cast<int>(MaskKind::Custom));
    m_offset = named<QSpinBox>("causalOffset", this);
    m_offset->setRange(-512, 512);
    m_offset->setToolTip(tr("Bottom-right aligned: query i sees key j iff j ≤ i + offset"));
    m_padding = named<QSpinBox>("paddingTokens", this);
    m_padding->setRange(0, 64);
    m_padding->setToolTip(tr("Append this many pad tokens and mask them as keys"));
    m_maskHelp = noteLabel(this);
    addGroup(into, tr("Mask"),
             {{tr("Kind"), m_kind},
              {tr("Causal offset"), m_offset},
              {tr("Padding tokens"), m_padding},
              {QString(), m_maskHelp}});
}

void MaskPanel::addScaleGroup(QBoxLayout* into) {
    m_scaleMode = named<QComboBox>("scaleMode", this);
    m_scaleMode->addItem(tr("Model (1/√dₖ)"));
    m_scaleMode->addItem(tr("Custom"));
    m_scaleMode->addItem(tr("1/√dₖ"));
    m_scale = named<QLineEdit>("scaleEdit", this);
    m_scale->setValidator(new QDoubleValidator(1e-6, 1e6, 6, m_scale));
    m_scale->setPlaceholderText(tr("e.g. 1.0"));
    m_scaleHelp = noteLabel(this);
    addGroup(into, tr("Logit scale"),
             {{tr("Scale"), m_scaleMode}, {tr("Value"), m_scale}, {QString(), m_scaleHelp}});
}

void MaskPanel::addColourGroup(QBoxLayout* into) {
    m_colormap = named<QComboBox>("colormap", this);
    m_colormap->addItems(render::sequentialColormapNames());
    m_scaling = named<QComboBox>("scaling", this);
    m_scaling->addItems(
        {QStringLiteral("linear"), QStringLiteral("log"), QStringLiteral("per-row")});
    addGroup(into, tr("Colours"), {{tr("Colour map"), m_colormap}, {tr("Scaling"), m_scaling}});
}

void MaskPanel::addMemoryGroup(QBoxLayout* into) {
    m_budget = named<QSpinBox>("mapBudget", this);
    m_budget->setRange(0, 1 << 20);
    m_budget->setSingleStep(256);
    m_budget->setSuffix(tr(" MiB"));
    m_budget->setToolTip(
        tr("Every head's full map is kept while a sentence's maps fit in this much memory. "
           "Above it only per-head summaries and small previews are kept, and the head you look "
           "at is recomputed exactly from its layer's input."));
    m_truncate = named<QCheckBox>("truncateLongInput", tr("Truncate long input"), this);
    m_truncate->setToolTip(
        tr("Text with more tokens than the model has positions is cut after the last token that "
           "fits (the tokenizer's special tokens kept); off, such text is refused."));
    addGroup(into, tr("Memory"), {{tr("Keep maps up to"), m_budget}, {QString(), m_truncate}});
}

void MaskPanel::syncFromSession() {
    const forward::MaskChoice mask = m_session->mask();
    const QSignalBlocker b1(m_kind), b2(m_offset), b3(m_padding), b4(m_scaleMode), b5(m_scale),
        b6(m_colormap), b7(m_scaling);
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(mask.kind)));
    {
        const QSignalBlocker b(m_budget), b8(m_truncate);
        m_budget->setValue(static_cast<int>(m_session->mapBudgetBytes() >> 20));
        m_truncate->setChecked(m_session->truncateLongInput());
    }
    m_offset->setValue(mask.causalOffset);
    m_offset->setEnabled(mask.kind == MaskKind::Causal);
    m_padding->setValue(mask.paddingTokens);
    const auto model = m_session->model();
    const bool causalDefault = model && model->spec.defaultMask == model::DefaultMask::Causal;
    const bool seq2seq = m_session->isEncoderDecoder();
    // One sequence's mask: an encoder-decoder's custom mask and padding would need two.
    if (auto* items = qobject_cast<QStandardItemModel*>(m_kind->model())) {
        items->item(m_kind->findData(static_cast<int>(MaskKind::Custom)))->setEnabled(!seq2seq);
    }
    m_padding->setEnabled(!seq2seq);
    if (!model) {
        m_maskHelp->setText(tr("Open a model: its own mask is the default."));
    } else if (seq2seq) {
        m_maskHelp->setText(
            tr("Applies to the decoder's self-attention (causal by default); the encoder and "
               "cross-attention see every source token. Custom masks and padding are not "
               "available for encoder-decoder models."));
    } else if (mask.kind == MaskKind::Custom) {
        m_maskHelp->setText(tr("Click cells in the head view to forbid or allow them."));
    } else {
        m_maskHelp->setText(tr("The model was trained with: %1.")
                                .arg(causalDefault ? tr("causal") : tr("none (bidirectional)")));
    }
    if (m_session->scale() || !model) {
        // "1/√dₖ" stays chosen while the scale is that value; any other is a custom one.
        const bool headWidth = m_scaleMode->currentIndex() == 2 && model &&
                               m_session->scale() == headWidthScale(*m_session->shownStack());
        m_scaleMode->setCurrentIndex(!m_session->scale() ? 0 : headWidth ? 2 : 1);
    }
    m_scale->setEnabled(m_scaleMode->currentIndex() == 1);
    if (m_session->scale()) {
        m_scale->setText(QString::number(*m_session->scale(), 'g', 6));
    }
    // The heads shown: an encoder-decoder's encoder and decoder may differ in head width.
    const model::Model* stack = m_session->shownStack();
    const bool unscaled = stack && !stack->spec.scaleAttention;  // T5: no 1/√dₖ
    // Gemma 2/3 scale by query_pre_attn_scalar^-0.5, not by the head width.
    const bool ownScalar = stack && stack->spec.queryPreAttnScalar.has_value();
    m_scaleMode->setItemText(0, unscaled    ? tr("Model (1, unscaled)")
                                : ownScalar ? tr("Model (Gemma's scalar)")
                                            : tr("Model (1/√dₖ)"));
    const float modelScale = stack ? stack->spec.defaultScale(0) : 0.0f;
    m_scaleHelp->setText(
        stack ? tr("Model scale: %1%2. Try 1.0 to see saturation; the Saturation tab switches "
                   "QK-norm and soft-caps.")
                    .arg(modelScale, 0, 'g', 5)
                    .arg(seq2seq ? tr(" (%1)").arg(QString::fromStdString(
                                       forward::attentionKindTitle(m_session->attentionKind())))
                                 : QString())
              : QString());
    const render::HeatmapStyle style = m_session->heatmapStyle();
    m_colormap->setCurrentText(render::colormapName(style.colormap));
    m_scaling->setCurrentText(render::scalingName(style.scaling));
}

void MaskPanel::applyMask() {
    forward::MaskChoice mask = m_session->mask();
    mask.kind = static_cast<MaskKind>(m_kind->currentData().toInt());
    mask.causalOffset = m_offset->value();
    mask.paddingTokens = m_padding->value();
    if (mask.kind == MaskKind::Custom && !mask.custom) {
        if (const auto result = m_session->result()) {
            mask.custom = result->forward.allowed;  // start from what is shown now
        }
    }
    m_session->setMask(mask);
}

void MaskPanel::applyScale() {
    if (m_scaleMode->currentIndex() == 0) {
        m_session->setScale(std::nullopt);
        return;
    }
    if (m_scaleMode->currentIndex() == 2) {
        m_scale->setEnabled(false);
        if (const model::Model* stack = m_session->shownStack()) {
            m_session->setScale(headWidthScale(*stack));
        }
        return;
    }
    m_scale->setEnabled(true);
    if (m_scale->text().isEmpty() && m_session->model()) {
        // Start from the model's own scale, so switching to "Custom" changes no number yet.
        m_scale->setText(QString::number(m_session->model()->spec.defaultScale(0), 'g', 6));
    }
    bool ok = false;
    const float value = m_scale->text().toFloat(&ok);
    if (ok && value > 0 && std::isfinite(value)) {
        m_session->setScale(value);
    } else {
        m_scale->setFocus();
    }
}

void MaskPanel::applyStyle() {
    render::HeatmapStyle style = m_session->heatmapStyle();
    render::colormapFromName(m_colormap->currentText(), &style.colormap);
    render::scalingFromName(m_scaling->currentText(), &style.scaling);
    m_session->setHeatmapStyle(style);
}

}  // namespace attnscope::app
