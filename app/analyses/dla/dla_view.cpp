#include "analyses/dla/dla_view.h"

#include <algorithm>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/dla/dla_figure.h"
#include "analyses/dla/dla_table_model.h"
#include "analyses/dla/dla_terms.h"
#include "attnscope/analysis/logit_lens.h"
#include "session/analysis_session.h"
#include "session/reporting_export.h"
#include "views/heatmap_widget.h"
#include "widgets/named.h"
#include "widgets/table_split.h"

namespace attnscope::app {

namespace {

// The core's reason as a sentence: "Post-LN models … alone."
QString sentence(const std::string& reason) {
    QString text = QString::fromStdString(reason);
    if (!text.isEmpty()) {
        text[0] = text[0].toUpper();
    }
    return text + QLatin1Char('.');
}

}  // namespace

DlaView::DlaView(AnalysisSession* session, QWidget* parent)
    : PlaceholderView("dla", settingViewed(session->document<DlaDocument>()), parent),
      m_session(session),
      m_document(session->document<DlaDocument>()),
      m_caption(named<QLabel>("dlaCaption", this)),
      m_sum(named<QLabel>("dlaSum", this)),
      m_model(new DlaTableModel(this)),
      m_sorted(new QSortFilterProxyModel(this)) {
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(ResultsTableModel::SortRole);
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(8, 6, 8, 4);
    layout->setSpacing(4);
    layout->addWidget(makeControls());
    layout->addWidget(m_caption);
    layout->addWidget(makeResults(), 1);
    layout->addWidget(m_sum);
    stack()->setPage(page);

    connect(session, &AnalysisSession::modelChanged, this, &DlaView::refresh);
    connect(session, &AnalysisSession::resultChanged, this, &DlaView::refresh);
    connect(session, &AnalysisSession::selectedTokenChanged, this, &DlaView::refresh);
    connect(session, &AnalysisSession::pickedTokensChanged, this, &DlaView::refresh);
    connect(&m_document, &DlaDocument::runChanged, this, &DlaView::refresh);
    refresh();
}

QWidget* DlaView::makeControls() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    auto* hint = noteLabel(bar, tr("Pick the target in Predictions: click a token; Ctrl+click one "
                                   "to subtract its logit."));
    hint->setObjectName(QStringLiteral("dlaHint"));
    m_topPrediction = named<QPushButton>("dlaTopPrediction", tr("Top prediction"), bar);
    m_topPrediction->setToolTip(tr("Explain the model's top prediction again"));
    m_noDistractor = named<QPushButton>("dlaNoDistractor", tr("No distractor"), bar);
    m_noDistractor->setToolTip(tr("The target's logit alone, nothing subtracted"));
    m_onGrid = named<QCheckBox>("dlaOnGrid", tr("Heads on the model grid"), bar);
    m_onGrid->setToolTip(
        tr("Each head's term as a bar under its thumbnail in the model grid: "
           "right and red writes the logit up, left and blue down"));
    m_onGrid->setChecked(m_document.showsOnGrid());
    m_export = corpus::newExportButton(
        bar, QStringLiteral("dlaExport"),
        {{tr("Terms (CSV)…"), tr("Export the logit attribution's terms"), tr("CSV files (*.csv)"),
          [this](const QString& p) { return exportCsv(p); }},
         {tr("Heatmap figure (PNG, SVG, PDF)…"), tr("Export the heads' logit attribution"),
          tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
          [this](const QString& p) { return exportFigure(p); }}});
    row->addWidget(hint, 1);
    row->addWidget(m_topPrediction);
    row->addWidget(m_noDistractor);
    row->addWidget(m_onGrid);
    row->addWidget(m_export);
    connect(m_onGrid, &QCheckBox::toggled, &m_document, &DlaDocument::setShowOnGrid);
    connect(m_topPrediction, &QPushButton::clicked, this,
            [this] { m_session->pickTarget(std::nullopt); });
    connect(m_noDistractor, &QPushButton::clicked, this,
            [this] { m_session->pickDistractor(std::nullopt); });
    m_caption->setWordWrap(true);
    m_caption->setTextFormat(Qt::RichText);
    m_sum->setWordWrap(true);
    m_sum->setForegroundRole(QPalette::PlaceholderText);
    return bar;
}

QWidget* DlaView::makeResults() {
    auto* split = named<QSplitter>("dlaSplitter", Qt::Horizontal, this);
    m_heatmap = named<HeatmapWidget>("dlaHeatmap", split);
    m_heatmap->setTooltipFunction([this](int r, int c) { return heatmapTooltip(r, c); });
    m_table = corpus::newSortedTable(split, QStringLiteral("dlaTable"), m_sorted,
                                     DlaTableModel::Rank, 160);
    split->addWidget(m_heatmap);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);  // a wider window widens the map; the table keeps its width
    split->setStretchFactor(1, 0);
    split->setChildrenCollapsible(false);
    m_split = split;
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, [this](int layer, int head) {
        activateHead({layer, head});
    });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (const auto head = m_model->headOf(m_sorted->mapToSource(index).row())) {
            activateHead(*head);
        }
    });
    return split;
}

void DlaView::refresh() {
    const auto model = m_session->model();
    const auto clean = m_session->cleanResult();
    const PickedTokens& picked = m_session->pickedTokens();
    m_topPrediction->setEnabled(picked.target.has_value());
    m_noDistractor->setEnabled(picked.distractor.has_value());
    if (!model || !clean) {
        showRun(nullptr);
        stack()->showPlaceholder(
            tr("No result yet.\nOpen a causal language model (GPT-2, Llama, Qwen, …) and type a "
               "sentence to see which heads, MLPs and embeddings write the logit of the next "
               "token."));
        return;
    }
    if (const std::string why = analysis::dlaUnsupportedReason(*model); !why.empty()) {
        showRun(nullptr);
        const bool lens = analysis::lensUnsupportedReason(*model).empty();
        stack()->showPlaceholder(
            sentence(why) +
            (lens ? tr("\n\nThe Logit lens tab works for this model.") : QString()));
        return;
    }
    const auto run = m_document.run();
    if (!run) {
        showRun(nullptr);
        stack()->showPlaceholder(tr("Computing the logit attribution…"));
        return;
    }
    showRun(run);
    stack()->showPage();
    if (!m_tableFitted) {
        // Once the page is laid out at its size: a hidden page's splitter has another.
        QMetaObject::invokeMethod(this, &DlaView::fitTable, Qt::QueuedConnection);
    }
}

void DlaView::jobEnded(bool ok) {
    if (!ok && !m_shown && !stack()->showsPage() && m_document.isViewed()) {
        stack()->showPlaceholder(tr("No logit attribution: the message bar says what went wrong."));
    }
}

void DlaView::showRun(std::shared_ptr<const DlaDocument::Run> run) {
    if (run != m_shown) {
        m_shown = run;
        m_model->setRun(run);
        if (run) {
            const Matrix heads = dlaHeadMatrix(*run);
            const render::ColorRange range = dlaRange(heads);
            render::HeatmapStyle style;
            style.colormap = render::Colormap::Diverging;
            m_heatmap->setMap(render::heatmapImageInRange(heads, nullptr, style, range), range,
                              layerLabels(run->nLayers), headLabels(run->nHeads), std::nullopt);
            m_heatmap->setTitle(tr("Each head's direct term"));
        } else {
            m_heatmap->clear(QString());
        }
    }
    if (!run) {
        return;
    }
    QString caption = dlaHeadline(*run, true);
    if (!m_document.isCurrent(*run)) {
        caption += tr(" <i>(updating…)</i>");
    }
    m_caption->setText(caption);
    QString sum = dlaSumLine(*run);
    if (m_session->cleanResult() != m_session->result()) {
        sum += tr(". Of the clean pass: the ablations are left out");
    }
    m_sum->setText(sum + QLatin1Char('.'));
}

// Once, when the first terms arrive: the table as wide as its columns (up to half the view),
// the map the rest. Later the user's split stays.
void DlaView::fitTable() {
    if (m_tableFitted || !m_split->isVisible() || !m_shown) {
        return;
    }
    m_tableFitted = true;
    fitTableSide(m_split, m_table);
}

QString DlaView::heatmapTooltip(int layer, int head) const {
    if (!m_shown || layer < 0 || head < 0 || layer >= m_shown->nLayers || head >= m_shown->nHeads) {
        return {};
    }
    const std::vector<double> map = m_shown->attribution.headMap(m_shown->nLayers, m_shown->nHeads);
    return tr("Head %1-%2: %3\nClick to open it in the Head view")
        .arg(layer)
        .arg(head)
        .arg(QString::asprintf("%+.4f",
                               map[static_cast<std::size_t>(layer * m_shown->nHeads + head)]));
}

void DlaView::activateHead(HeadId head) {
    m_session->selectHead(head);
    emit headActivated(head);
}

bool DlaView::canExport() const {
    if (!m_shown) {
        m_session->reportError(
            tr("Nothing to export yet: open a causal language model and type "
               "a sentence."));
    }
    return m_shown != nullptr;
}

bool DlaView::exportCsv(const QString& path) {
    if (!canExport()) {
        return false;
    }
    return reportingExport(m_session,
                           [&] { writeDlaCsv(path.toStdString(), m_shown->attribution); });
}

bool DlaView::exportFigure(const QString& path) {
    if (!canExport()) {
        return false;
    }
    const HeatGridFigure figure = dlaFigure(*m_shown);
    return reportingExport(m_session, [&] { writeHeatGridFigure(path, figure); });
}

}  // namespace attnscope::app
