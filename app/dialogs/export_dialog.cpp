#include "dialogs/export_dialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "attnscope/base/error.h"
#include "render/figure.h"
#include "session/analysis_session.h"
#include "widgets/attention_kind_combo.h"

namespace attnscope::app {

namespace {

constexpr int kPreviewWidth = 420;

// The figure names a cross-attention map's rows as the head view does ("→ piece", the token
// each decoder row produces); other maps keep the analysis's own tokens.
void setRowLabels(render::FigureOptions& o, const AnalysisSession& session) {
    if (session.seq2seq() && session.attentionKind() == forward::AttentionKind::Cross) {
        o.rowLabels = queryLabels(session);
    }
}

QSpinBox* spin(QWidget* parent, const char* name, int lo, int hi, int value) {
    auto* s = new QSpinBox(parent);
    s->setObjectName(QString::fromLatin1(name));
    s->setRange(lo, hi);
    s->setValue(value);
    return s;
}

}  // namespace

ExportDialog::ExportDialog(AnalysisSession* session, QWidget* parent)
    : QDialog(parent),
      m_session(session),
      m_selected(new QRadioButton(tr("The selected head"), this)),
      m_list(new QRadioButton(tr("These heads:"), this)),
      m_grid(new QRadioButton(tr("The whole model (layers × heads grid)"), this)),
      m_heads(new QLineEdit(this)),
      m_width(spin(this, "exportWidth", 200, 12000, 1600)),
      m_height(spin(this, "exportHeight", 200, 12000, 1400)),
      m_dpi(spin(this, "exportDpi", 50, 1200, 200)),
      m_preview(new QLabel(this)) {
    setObjectName(QStringLiteral("exportDialog"));
    setWindowTitle(tr("Export figure"));
    m_heads->setObjectName(QStringLiteral("exportHeads"));
    m_heads->setPlaceholderText(tr("LAYER-HEAD pairs, e.g. 0-1, 3-7"));
    m_preview->setObjectName(QStringLiteral("exportPreview"));
    m_preview->setMinimumSize(kPreviewWidth, kPreviewWidth * 7 / 8);
    m_preview->setAlignment(Qt::AlignCenter);
    m_preview->setWordWrap(true);
    m_selected->setChecked(true);
    auto* heads = new QHBoxLayout;
    heads->addWidget(m_list);
    heads->addWidget(m_heads, 1);
    auto* size = new QHBoxLayout;
    size->addWidget(m_width);
    size->addWidget(new QLabel(QStringLiteral("×"), this));
    size->addWidget(m_height);
    size->addWidget(new QLabel(tr("pixels at"), this));
    size->addWidget(m_dpi);
    size->addWidget(new QLabel(tr("dpi"), this));
    auto* form = new QFormLayout;
    form->addRow(tr("Draw"), m_selected);
    form->addRow(QString(), heads);
    form->addRow(QString(), m_grid);
    form->addRow(tr("Size"), size);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* save = buttons->addButton(tr("Save as PNG, SVG or PDF…"), QDialogButtonBox::AcceptRole);
    save->setObjectName(QStringLiteral("exportSave"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(save, &QPushButton::clicked, this, &ExportDialog::askForFile);
    for (QRadioButton* r : {m_selected, m_list, m_grid}) {
        connect(r, &QRadioButton::toggled, this, &ExportDialog::updatePreview);
    }
    connect(m_heads, &QLineEdit::textChanged, this, [this] {
        m_list->setChecked(true);
        updatePreview();
    });
    for (QSpinBox* s : {m_width, m_height}) {
        connect(s, &QSpinBox::valueChanged, this, &ExportDialog::updatePreview);
    }
    connect(session, &AnalysisSession::resultChanged, this, &ExportDialog::updatePreview);
    connect(session, &AnalysisSession::selectedHeadChanged, this, &ExportDialog::updatePreview);
    updatePreview();
}

void ExportDialog::setChoice(Choice choice, const QString& heads) {
    m_heads->setText(heads);
    (choice == Choice::SelectedHead ? m_selected
     : choice == Choice::HeadList   ? m_list
                                    : m_grid)
        ->setChecked(true);
    updatePreview();
}

void ExportDialog::setPixelSize(int width, int height, int dpi) {
    m_width->setValue(width);
    m_height->setValue(height);
    m_dpi->setValue(dpi);
}

std::optional<std::vector<HeadId>> ExportDialog::heads() const {
    if (m_grid->isChecked()) {
        return std::vector<HeadId>{};
    }
    if (m_selected->isChecked()) {
        return std::vector<HeadId>{m_session->selectedHead()};
    }
    try {
        return parseHeadList(m_heads->text().toStdString());
    } catch (const InvalidArgument&) {
        return std::nullopt;
    }
}

void ExportDialog::updatePreview() {
    const auto result = m_session->result();
    const auto chosen = heads();
    if (!result || !chosen) {
        m_preview->setPixmap({});
        m_preview->setText(!result ? tr("Type a sentence first: there is nothing to draw yet.")
                                   : tr("Write heads as LAYER-HEAD pairs, e.g. 0-1, 3-7."));
        return;
    }
    render::FigureOptions o;
    o.pixelSize = QSize(m_width->value(), m_height->value());
    o.style = m_session->heatmapStyle();
    o.modelName = QFileInfo(m_session->modelPath()).fileName();
    setRowLabels(o, *m_session);
    try {
        render::checkFigureHeads(*result, *chosen);
    } catch (const Error& e) {
        m_preview->setPixmap({});
        m_preview->setText(QString::fromStdString(e.what()));
        return;
    }
    const double scale = static_cast<double>(kPreviewWidth) / o.pixelSize.width();
    QImage img((o.pixelSize * scale).expandedTo(QSize(1, 1)), QImage::Format_RGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(scale, scale);
    render::paintHeadsFigure(p, *result, *chosen, o);
    p.end();
    m_preview->setPixmap(QPixmap::fromImage(img));
}

bool ExportDialog::exportTo(const QString& path) {
    const auto result = m_session->result();
    const auto chosen = heads();
    if (!result || !chosen) {
        m_session->reportError(tr("Export failed: %1").arg(m_preview->text()));
        return false;
    }
    render::FigureOptions o;
    o.pixelSize = QSize(m_width->value(), m_height->value());
    o.dpi = m_dpi->value();
    o.style = m_session->heatmapStyle();
    o.modelName = QFileInfo(m_session->modelPath()).fileName();
    setRowLabels(o, *m_session);
    try {
        if (m_selected->isChecked()) {
            render::saveHeadFigure(path, *result, m_session->selectedHead(), o);
        } else {
            render::saveHeadsFigure(path, *result, *chosen, o);
        }
        return true;
    } catch (const Error& e) {
        m_session->reportError(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
}

void ExportDialog::askForFile() {
    auto* dialog = new QFileDialog(this, tr("Save figure"), QString(),
                                   tr("PNG image (*.png);;SVG vector image (*.svg);;PDF (*.pdf)"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("png"));
    connect(dialog, &QFileDialog::fileSelected, this, &ExportDialog::exportTo);
    dialog->open();
}

}  // namespace attnscope::app
