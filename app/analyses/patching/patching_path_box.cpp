#include "analyses/patching/patching_path_box.h"

#include <cmath>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "attnscope/base/error.h"
#include "widgets/named.h"

namespace attnscope::app {

namespace {

QTableWidgetItem* numberItem(double v) {
    auto* item = new QTableWidgetItem(std::isnan(v) ? QObject::tr("undefined")
                                                    : QString::asprintf("%+.4f", v));
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

}  // namespace

PatchingPathBox::PatchingPathBox(PatchingDocument& document, PathPatchingJob& job,
                                 RequestFn request, QWidget* parent)
    : QGroupBox(tr("Path patching"), parent),
      m_document(document),
      m_job(job),
      m_request(std::move(request)),
      m_field(named<QLineEdit>("patchingPathField", this)),
      m_patch(named<QPushButton>("patchingPathButton", tr("Patch path"), this)),
      m_error(named<QLabel>("patchingPathError", this)),
      m_results(named<QTableWidget>("patchingPathResults", 0, 3, this)) {
    setObjectName(QStringLiteral("patchingPathBox"));
    m_field->setPlaceholderText(tr("senders -> receivers:q|k|v, e.g. 0-1 -> 1-0:k"));
    m_field->setToolTip(
        tr("Wang et al.'s path patching: the senders' outputs from the other run reach only the "
           "receivers' queries, keys or values (every other head frozen). Heads as LAYER-HEAD, "
           "comma-separated; \"SENDERS -> logits\" for the senders' direct path."));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));  // the sentence field's error red
    m_error->hide();
    m_results->setHorizontalHeaderLabels({tr("Path"), tr("Metric"), tr("LD")});
    m_results->verticalHeader()->hide();
    m_results->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_results->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_results->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_results->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_results->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_results->verticalHeader()->setDefaultSectionSize(m_results->fontMetrics().height() + 6);
    auto* row = new QHBoxLayout;
    row->addWidget(m_field, 1);
    row->addWidget(m_patch);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 6);
    layout->setSpacing(4);
    layout->addLayout(row);
    layout->addWidget(m_error);
    layout->addWidget(m_results, 1);

    connect(m_field, &QLineEdit::textChanged, this, [this] {
        if (m_field->text().trimmed().isEmpty()) {
            m_error->hide();
        } else {
            parsed(analysis::PatchDirection::Noise);
        }
    });
    connect(m_field, &QLineEdit::returnPressed, this, &PatchingPathBox::patchPath);
    connect(m_patch, &QPushButton::clicked, this, &PatchingPathBox::patchPath);
    connect(&m_document, &PatchingDocument::pathsChanged, this, &PatchingPathBox::showPaths);
    connect(&m_job, &CorpusJob::started, this, [this] { m_patch->setEnabled(false); });
    connect(&m_job, &CorpusJob::finished, this, [this] { m_patch->setEnabled(true); });
    showPaths();
}

std::optional<analysis::PathSpec> PatchingPathBox::parsed(analysis::PatchDirection direction) {
    try {
        analysis::PathSpec spec = analysis::parsePathSpec(m_field->text().toStdString(), direction);
        m_error->hide();
        return spec;
    } catch (const Error& e) {
        m_error->setText(QString::fromStdString(e.what()));
        m_error->show();
        return std::nullopt;
    }
}

bool PatchingPathBox::patchPath() {
    analysis::PatchDirection direction = analysis::PatchDirection::Noise;
    std::optional<PatchingRequest> request = m_request(&direction);
    if (!request) {
        return false;
    }
    std::optional<analysis::PathSpec> spec = parsed(direction);
    if (!spec) {
        return false;
    }
    m_job.runPath(std::move(*request), std::move(*spec));
    return true;
}

void PatchingPathBox::showPaths() {
    const auto& paths = m_document.paths();
    m_results->setRowCount(static_cast<int>(paths.size()));
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const PatchingDocument::PathRow& p = paths[paths.size() - 1 - i];  // newest first
        const int row = static_cast<int>(i);
        auto* name = new QTableWidgetItem(QString::fromStdString(analysis::describe(p.spec)));
        name->setToolTip(tr("%1\nCorrupted prompt: %2\nLD clean %3, corrupted %4")
                             .arg(name->text(), QString::fromStdString(p.endpoints->corruptedText))
                             .arg(p.endpoints->base->ldClean, 0, 'f', 4)
                             .arg(p.endpoints->base->ldCorrupted, 0, 'f', 4));
        m_results->setItem(row, 0, name);
        m_results->setItem(row, 1, numberItem(p.result.metric));
        m_results->setItem(row, 2, numberItem(p.result.ld));
    }
}

}  // namespace attnscope::app
