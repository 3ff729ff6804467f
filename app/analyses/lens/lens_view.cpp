#include "analyses/lens/lens_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/corpus/corpus_widgets.h"
#include "analyses/lens/lens_colors.h"
#include "analyses/lens/lens_figure.h"
#include "analyses/lens/lens_table.h"
#include "analyses/lens/lens_table_model.h"
#include "render/figure_file.h"
#include "session/analysis_session.h"
#include "session/reporting_export.h"
#include "widgets/named.h"

namespace attnscope::app {

LensView::LensView(AnalysisSession* session, QWidget* parent)
    : PlaceholderView("lens", settingViewed(session->document<LensDocument>()), parent),
      m_session(session),
      m_document(session->document<LensDocument>()),
      m_caption(named<QLabel>("lensCaption", this)),
      m_model(new LensTableModel(this)),
      m_table(named<QTableView>("lensTable", this)) {
    m_caption->setWordWrap(true);
    m_caption->setTextFormat(Qt::RichText);
    m_table->setModel(m_model);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(8, 6, 8, 4);
    layout->setSpacing(4);
    layout->addWidget(makeControls());
    layout->addWidget(m_caption);
    layout->addWidget(m_table, 1);
    layout->addWidget(new LensLegend(page));
    stack()->setPage(page);

    connect(m_table, &QTableView::clicked, this,
            [this](const QModelIndex& index) { m_session->selectToken(index.column()); });
    connect(session, &AnalysisSession::modelChanged, this, &LensView::refresh);
    connect(session, &AnalysisSession::resultChanged, this, &LensView::refresh);
    connect(session, &AnalysisSession::selectedTokenChanged, this, &LensView::refresh);
    connect(session, &AnalysisSession::pickedTokensChanged, this, &LensView::refresh);
    connect(&m_document, &LensDocument::runChanged, this, &LensView::refresh);
    refresh();
}

QWidget* LensView::makeControls() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_topK =
        corpus::newSpinBox(bar, QStringLiteral("lensTopK"), {1, 20, LensDocument::kDefaultTopK},
                           tr("Tokens kept per stage and position: the tool tips and the "
                              "CSV list them"));
    auto* label = new QLabel(tr("Top-k"), bar);
    label->setBuddy(m_topK);
    m_export = corpus::newExportButton(
        bar, QStringLiteral("lensExport"),
        {{tr("Table (CSV)…"), tr("Export the logit lens"), tr("CSV files (*.csv)"),
          [this](const QString& p) { return exportCsv(p); }},
         {tr("Figure (PNG, SVG, PDF)…"), tr("Export the logit lens as a figure"),
          tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
          [this](const QString& p) { return exportFigure(p); }}});
    row->addWidget(label);
    row->addWidget(m_topK);
    row->addStretch(1);
    row->addWidget(m_export);
    connect(m_topK, &QSpinBox::valueChanged, &m_document, &LensDocument::setTopK);
    return bar;
}

void LensView::jobEnded(bool ok) {
    if (!ok && !m_shown && !stack()->showsPage() && m_document.isViewed()) {
        stack()->showPlaceholder(tr("No logit lens: the message bar says what went wrong."));
    }
}

void LensView::refresh() {
    const auto model = m_session->model();
    if (!model || !m_session->cleanResult()) {
        showRun(nullptr);
        stack()->showPlaceholder(
            tr("No result yet.\nOpen a model and type a sentence to see what it would predict "
               "after each layer, at every token."));
        return;
    }
    if (const std::string why = analysis::lensUnsupportedReason(*model); !why.empty()) {
        showRun(nullptr);
        QString text = tr("No logit lens: %1.").arg(QString::fromStdString(why));
        stack()->showPlaceholder(text);
        return;
    }
    const auto run = m_document.run();
    if (!run) {
        showRun(nullptr);
        stack()->showPlaceholder(tr("Computing the logit lens…"));
        return;
    }
    showRun(run);
    stack()->showPage();
}

void LensView::showRun(std::shared_ptr<const LensDocument::Run> run) {
    const bool newRun = run != m_shown;
    if (newRun) {
        m_shown = run;
        m_model->setRun(run);
    }
    const int position = run ? m_session->predictionPosition() : -1;
    const bool moved = position != m_highlight;
    m_highlight = position;
    m_model->setHighlight(position);
    if (!run) {
        return;
    }
    m_caption->setText(captionText(*run));
    if ((newRun || moved) && position >= 0 && position < m_model->columnCount()) {
        // After the columns took their contents' widths, or the scroll range is the old one's.
        QMetaObject::invokeMethod(
            this,
            [this, position] {
                if (position < m_model->columnCount()) {
                    m_table->scrollTo(m_model->index(0, position));
                }
            },
            Qt::QueuedConnection);
    }
}

QString LensView::captionText(const LensDocument::Run& run) const {
    QString text =
        tr("What the model would predict from the residual stream <b>after each "
           "layer</b> (rows), at each token (columns): the top token, coloured by the "
           "target's rank. The target is each position's final prediction");
    if (run.picked) {
        text += tr(", and at position %1 (bold) <b>“%2”</b>, picked in Predictions")
                    .arg(run.picked->position)
                    .arg(m_model->tokenText(run.picked->target).toHtmlEscaped());
    }
    text += QLatin1Char('.');
    if (!m_document.isCurrent(run)) {
        text += tr(" <i>(updating…)</i>");
    }
    return text;
}

bool LensView::canExport() const {
    if (!m_shown) {
        m_session->reportError(
            tr("Nothing to export yet: open a model, type a sentence and show the Logit lens."));
    }
    return m_shown != nullptr;
}

bool LensView::exportCsv(const QString& path) {
    if (!canExport()) {
        return false;
    }
    return reportingExport(
        m_session, [&] { writeLensCsv(path.toStdString(), *m_shown->model, m_shown->lens); });
}

bool LensView::exportFigure(const QString& path) {
    if (!canExport()) {
        return false;
    }
    LensFigure figure{
        m_shown, tr("Logit lens: the top token after each layer"),
        QString::fromStdString(m_session->model()->spec.modelType) +
            tr(" · cells coloured by the rank of the target (each position's final "
               "prediction%1)")
                .arg(m_shown->picked ? tr("; the picked token at the framed one") : QString()),
        m_shown->picked ? m_shown->picked->position : -1};
    render::FigurePage page;
    page.pixelSize = lensFigureSize(figure);
    page.title = figure.title;
    return reportingExport(m_session, [&] {
        render::writeFigureFile(path, page, [&figure, &page](QPainter& p) {
            paintLensFigure(p, page.pixelSize, figure);
        });
    });
}

}  // namespace attnscope::app
