#include "analyses/corpus/corpus_panel.h"

#include <utility>

#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "attnscope/base/error.h"
#include "render/figure_file.h"
#include "service/compute_service.h"
#include "service/corpus_job.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"

namespace attnscope::app {

CorpusPanel::CorpusPanel(AnalysisSession* session, ComputeService* service, CorpusJob& job,
                         const QString& name, Texts texts, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_service(service),
      m_job(job),
      m_name(name),
      m_texts(std::move(texts)) {
    setObjectName(childName("Panel"));
}

void CorpusPanel::preselectInDialog(const QString& dialogName) {
    m_dialogName = dialogName;
}

void CorpusPanel::setParts(QWidget* options, QWidget* results) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(options);
    layout->addWidget(results, 1);
}

void CorpusPanel::followJob(const corpus::ProgressTexts& texts) {
    corpus::followJob(
        m_job, this, m_progress, texts, [this](bool busy) { setBusy(busy); },
        [this](bool ok) { runEnded(ok); });
}

void CorpusPanel::offerLoadedTreebank() {
    connect(m_session, &AnalysisSession::treebankChanged, this, [this] {
        if (m_path->text().isEmpty() && m_session->treebank()) {
            m_path->setText(m_session->treebank()->path);
        }
    });
}

void CorpusPanel::addPathField(QWidget* box, const QString& placeholder) {
    m_path = new QLineEdit(box);
    m_path->setObjectName(childName("Path"));
    m_path->setPlaceholderText(placeholder);
    m_browse = new QPushButton(tr("Browse…"), box);
    m_browse->setObjectName(childName("Browse"));
    connect(m_browse, &QPushButton::clicked, this, &CorpusPanel::askForFile);
    connect(m_path, &QLineEdit::returnPressed, this, &CorpusPanel::runChosenFile);
}

void CorpusPanel::addRunButton(QWidget* box, const QString& text, const QString& objectName,
                               const QString& toolTip) {
    m_run = new QPushButton(text, box);
    m_run->setObjectName(objectName);
    m_run->setToolTip(toolTip);
    connect(m_run, &QPushButton::clicked, this, &CorpusPanel::runChosenFile);
}

void CorpusPanel::addProgress(QWidget* box) {
    m_progress = new QProgressBar(box);
    m_progress->setObjectName(childName("Progress"));
    m_cancel = new QPushButton(tr("Cancel"), box);
    m_cancel->setObjectName(childName("Cancel"));
    connect(m_cancel, &QPushButton::clicked, this, &CorpusPanel::cancelRun);
}

void CorpusPanel::layOutPath(QHBoxLayout* row, const QString& label, int stretch) {
    row->addWidget(new QLabel(label, m_path->parentWidget()));
    row->addWidget(m_path, stretch);
    row->addWidget(m_browse);
}

void CorpusPanel::layOutProgress(QHBoxLayout* row, int stretch) {
    row->addWidget(m_progress, stretch);
    row->addWidget(m_cancel);
}

HeatmapWidget* CorpusPanel::newHeatmap(QWidget* parent) {
    m_heatmap = new HeatmapWidget(parent);
    m_heatmap->setObjectName(childName("Heatmap"));
    m_heatmap->setTooltipFunction([this](int r, int c) { return heatmapTooltip(r, c); });
    return m_heatmap;
}

void CorpusPanel::showHeatmap(const Matrix& values, const render::ColorRange& range,
                              const QStringList& columns, const render::HeatmapStyle& style) {
    m_range = range;
    m_heatmap->setMap(render::heatmapImageInRange(values, nullptr, style, m_range), m_range,
                      layerLabels(static_cast<int>(values.rows())), columns, std::nullopt);
}

QCheckBox* CorpusPanel::addFixedRange(QWidget* parent) {
    m_fixedRange = new QCheckBox(tr("Fixed 0–1"), parent);
    m_fixedRange->setObjectName(childName("FixedRange"));
    m_fixedRange->setToolTip(
        tr("Colour 0 to 1 accuracy instead of the lowest to the highest head shown"));
    return m_fixedRange;
}

void CorpusPanel::setFixedRange(bool fixed) {
    m_fixedRange->setChecked(fixed);
}

void CorpusPanel::showAccuracy(const Matrix& accuracy, const QStringList& columns) {
    showHeatmap(accuracy, accuracyRange(accuracy, m_fixedRange->isChecked()), columns);
}

QString CorpusPanel::heatmapTooltip(int, int) const {
    return {};
}

void CorpusPanel::activateHead(HeadId head) {
    m_session->selectHead(head);
    emit headActivated(head);
}

void CorpusPanel::addHeadTable(QWidget* parent, QSortFilterProxyModel* sorted, int column,
                               int minimumWidth) {
    m_sorted = sorted;
    m_table = corpus::newSortedTable(parent, childName("Table"), sorted, column, minimumWidth);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (const auto head = headOfRow(m_sorted->mapToSource(index).row())) {
            activateHead(*head);
        }
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid() || m_syncingTable) {
                    return;
                }
                if (const auto head = headOfRow(m_sorted->mapToSource(current).row())) {
                    m_session->selectHead(*head);
                }
            });
}

std::optional<HeadId> CorpusPanel::headOfRow(int) const {
    return std::nullopt;
}

void CorpusPanel::showCurrentRow(const QModelIndex& row) {
    m_syncingTable = true;
    m_table->setCurrentIndex(row);
    m_table->scrollTo(row);
    m_syncingTable = false;
}

QString CorpusPanel::childName(const char* suffix) const {
    return m_name + QLatin1String(suffix);
}

void CorpusPanel::start(const QString& path) {
    if (!m_session->model()) {
        m_session->reportError(m_texts.noModel);
        runEnded(false);
        return;
    }
    if (m_path) {
        m_path->setText(path);
    }
    launch(path);
}

void CorpusPanel::runChosenFile() {
    const QString path = m_path ? m_path->text().trimmed() : QString();
    if (path.isEmpty()) {
        askForFile();
    } else {
        start(path);
    }
}

void CorpusPanel::askForFile() {
    const QString current = m_path ? m_path->text() : QString();
    corpus::askForOpenFile(
        this, m_texts.dialogTitle, m_path ? QFileInfo(current).path() : QString(),
        m_texts.dialogFilter,
        [this](const QString& path) {
            if (m_path) {
                m_path->setText(path);  // kept when the run cannot start
            }
            start(path);
        },
        m_dialogName, m_dialogName.isEmpty() ? QString() : current);
}

void CorpusPanel::cancelRun() {
    m_job.cancel();
}

bool CorpusPanel::isRunning() const {
    return m_job.isRunning();
}

void CorpusPanel::setBusy(bool busy) {
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_run->setEnabled(!busy);
    if (m_browse) {
        m_browse->setEnabled(!busy);
    }
    m_export->setEnabled(!busy && hasResults());
}

bool CorpusPanel::canExport(bool something) const {
    if (!something) {
        m_session->reportError(m_texts.nothingYet);
    }
    return something;
}

bool CorpusPanel::exportInBackground(const QString& path, const std::function<FileWrite()>& write) {
    if (!canExport()) {
        return false;
    }
    m_service->exportFile(path, write());
    return true;
}

bool CorpusPanel::writeFigure(const QString& path, const render::FigurePage& page,
                              const std::function<void(QPainter&)>& paint) const {
    try {
        render::writeFigureFile(path, page, paint);
        return true;
    } catch (const Error& e) {
        return exported(false, QString::fromStdString(e.what()));
    }
}

bool CorpusPanel::exported(bool written, const QString& error) const {
    if (!written) {
        m_session->reportError(tr("Export failed: %1").arg(error));
    }
    return written;
}

}  // namespace attnscope::app
