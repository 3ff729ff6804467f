#include "analyses/model_compare/model_compare_view.h"

#include <algorithm>
#include <cmath>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/model_compare/divergence_table_model.h"
#include "analyses/model_compare/model_compare_job.h"
#include "analyses/model_compare/second_model_job.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"
#include "widgets/file_dialogs.h"
#include "widgets/named.h"
#include "widgets/placeholder_stack.h"

namespace attnscope::app {

namespace {

// Below this, a head counts as unmoved in the summary: float noise of two passes.
constexpr double kMovedPerRow = 1e-4;

QString tokensText(int n) {
    return n == 1 ? ModelCompareView::tr("1 token") : ModelCompareView::tr("%1 tokens").arg(n);
}

// "llama_q8_0.gguf (Q8_0)": the model's main stored type, the first of "Q8_0×16 + F32×6"; the
// whole list is long for a quantized file and goes to the tool tip.
QString modelText(const QString& name, const std::shared_ptr<const model::Model>& m) {
    const QString types = QString::fromStdString(m->storedDtypes);
    return QStringLiteral("%1 (%2)").arg(
        name, types.section(QStringLiteral(" + "), 0, 0).section(QChar(0x00d7), 0, 0));
}

}  // namespace

ModelCompareView::ModelCompareView(AnalysisSession* session, ComputeService* service,
                                   QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_document(session->document<ModelCompareDocument>()),
      m_loader(service->job<SecondModelJob>()),
      m_model(new DivergenceTableModel(this)),
      m_sorted(new QSortFilterProxyModel(this)) {
    setObjectName(QStringLiteral("modelCompareView"));
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(DivergenceTableModel::SortRole);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildControls());
    m_note = named<QLabel>("modelCompareNote", this);
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_note);
    auto* body = new QWidget(this);
    m_stack = named<PlaceholderStack>("modelCompareStack", body);
    m_stack->placeholder()->setObjectName(QStringLiteral("modelComparePlaceholder"));
    m_stack->setPage(buildResults());
    layout->addWidget(body, 1);

    // The comparison follows the session from now on, shown or not (the grid's bars use it).
    ModelCompareJob& comparer = service->job<ModelCompareJob>();
    connect(&comparer, &CorpusJob::started, this, [this] {
        m_comparing = true;
        refresh();
    });
    connect(&comparer, &CorpusJob::finished, this, [this] {
        m_comparing = false;
        refresh();
    });
    corpus::followJob(
        m_loader, this, m_progress, {tr("opening…"), tr("reading the weights, %p %")},
        [this](bool busy) { setLoading(busy); }, [this](bool) { refresh(); });
    // A failed or cancelled load says so on the message bar; the tab says it too, under the
    // controls.
    const auto keepEnd = [this](const QString& message) {
        if (!m_progress->isHidden()) {
            m_loadError = message;
        }
    };
    connect(session, &AnalysisSession::errorReported, this, keepEnd);
    connect(session, &AnalysisSession::noteReported, this, keepEnd);
    connect(&m_document, &ModelCompareDocument::secondModelChanged, this, [this] {
        m_loadError.clear();
        refresh();
    });
    connect(&m_document, &ModelCompareDocument::comparisonChanged, this,
            &ModelCompareView::refresh);
    connect(session, &AnalysisSession::modelChanged, this, &ModelCompareView::refresh);
    connect(session, &AnalysisSession::resultChanged, this, &ModelCompareView::refresh);
    connect(session, &AnalysisSession::selectedHeadChanged, this, &ModelCompareView::showSelection);
    setLoading(false);
    refresh();
}

QWidget* ModelCompareView::buildControls() {
    auto* row = new QWidget(this);
    auto* layout = new QVBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    m_open = named<QPushButton>("compareModelButton", tr("Compare with another model…"), row);
    m_open->setToolTip(
        tr("Open a second model with the same layers and heads — the same model as F16 and as "
           "Q4_K_M, or as safetensors and as GGUF — and compare every head's attention on the "
           "sentence above: a .gguf file, or a model folder's config.json"));
    connect(m_open, &QPushButton::clicked, this, &ModelCompareView::askForModel);
    m_modelLine = new corpus::SummaryLine(row);
    m_modelLine->setObjectName(QStringLiteral("modelCompareModels"));
    m_progress = named<QProgressBar>("modelCompareProgress", row);
    m_progress->setMaximumWidth(220);
    m_cancel = named<QPushButton>("modelCompareCancel", tr("Cancel"), row);
    connect(m_cancel, &QPushButton::clicked, this, [this] { m_loader.cancel(); });
    m_onGrid = named<QCheckBox>("modelCompareOnGrid", tr("Show on the model grid"), row);
    m_onGrid->setToolTip(
        tr("Draw each head's divergence as a bar under its thumbnail in the model grid, the "
           "longest for the head that moved most; the thumbnail's tool tip gives the value"));
    connect(m_onGrid, &QCheckBox::toggled, &m_document, &ModelCompareDocument::setShowOnGrid);
    // The models get a line of their own: beside the button, a laptop's tab elided B's name.
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_cancel);
    buttons->addStretch(1);
    buttons->addWidget(m_onGrid);
    layout->addLayout(buttons);
    layout->addWidget(m_modelLine);
    return row;
}

QWidget* ModelCompareView::buildResults() {
    m_split = named<QSplitter>("modelCompareSplit", Qt::Horizontal, this);
    QSplitter* split = m_split;
    split->setChildrenCollapsible(false);
    m_grid = named<HeatmapWidget>("modelCompareGrid", split);
    m_grid->setMinimumSize(200, 160);
    m_grid->setTooltipFunction([this](int r, int c) { return gridToolTip(r, c); });
    connect(m_grid, &HeatmapWidget::cellClicked, this, [this](int layer, int head) {
        m_session->selectHead({layer, head});
    });
    m_table = corpus::newSortedTable(split, QStringLiteral("modelCompareTable"), m_sorted,
                                     DivergenceTableModel::Rank, 200);
    const auto headAt = [this](const QModelIndex& index) {
        return m_model->headOf(m_sorted->mapToSource(index).row());
    };
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, headAt](const QModelIndex& current) {
                if (current.isValid() && !m_syncing) {
                    m_session->selectHead(headAt(current));
                }
            });
    connect(m_table, &QTableView::doubleClicked, this,
            [this, headAt](const QModelIndex& index) { emit headActivated(headAt(index)); });
    split->addWidget(m_grid);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    return split;
}

void ModelCompareView::askForModel() {
    if (!m_session->model()) {
        m_session->reportError(tr("Open a model first, then compare it with another."));
        return;
    }
    askForModelPath(
        this, tr("Compare with another model: a .gguf file, or a model folder's config.json"),
        [this](const QString& path) { openModel(path); }, QStringLiteral("compareModelDialog"));
}

void ModelCompareView::openModel(const QString& path) {
    m_loadError.clear();
    m_loader.open(path);
}

bool ModelCompareView::isLoading() const {
    return m_loader.isRunning();
}

void ModelCompareView::setLoading(bool loading) {
    m_progress->setVisible(loading);
    m_cancel->setVisible(loading);
    m_open->setEnabled(!loading);
}

QString ModelCompareView::noteText() const {
    return m_note->text();
}

QString ModelCompareView::placeholderText() const {
    return m_stack->showsPage() ? QString() : m_stack->placeholder()->text();
}

void ModelCompareView::refresh() {
    const auto a = m_session->model();
    const auto& second = m_document.secondModel();
    m_modelLine->setFullText(a && second.model
                                 ? tr("A: %1 against B: %2 · %3 layers × %4 heads")
                                       .arg(modelText(m_document.nameA(), a),
                                            modelText(m_document.nameB(), second.model))
                                       .arg(a->spec.nLayers)
                                       .arg(a->spec.nHeads)
                                 : QString());
    if (a && second.model) {
        m_modelLine->setToolTip(tr("A: %1, stored as %2\nB: %3, stored as %4")
                                    .arg(m_session->modelPath(),
                                         QString::fromStdString(a->storedDtypes), second.path,
                                         QString::fromStdString(second.model->storedDtypes)));
    }
    m_modelLine->setPlaceholder(
        a ? tr("A: %1 · no second model open").arg(modelText(m_document.nameA(), a)) : QString());
    m_open->setEnabled(a && !a->isEncoderDecoder() && m_progress->isHidden());
    m_onGrid->setEnabled(second.model != nullptr);
    const auto comparison = m_document.comparison();
    QString note = !m_loadError.isEmpty() ? m_loadError : m_document.refusal();
    if (comparison) {
        note = note.isEmpty() ? summaryOf(*comparison) : note;
        showComparison(*comparison);
    } else {
        m_model->setComparison(nullptr);
        m_stack->showPlaceholder(emptyText());
    }
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
}

QString ModelCompareView::emptyText() const {
    if (!m_session->model()) {
        return tr(
            "Open a model first. Then compare it here with a second model of the same "
            "layers and heads, head by head.");
    }
    if (m_session->isEncoderDecoder()) {
        return tr(
            "The model comparison takes models with one stack of layers; this is an "
            "encoder-decoder model.");
    }
    if (!m_document.secondModel().model) {
        return tr(
            "Compare the model open with a second one of the same layers and heads — the "
            "same model as F16 and as Q4_K_M, say, or as safetensors and as GGUF — head by "
            "head, on the sentence above.\n\nCompare with another model… asks for a .gguf "
            "file or a model folder's config.json.");
    }
    if (!m_document.notice().isEmpty()) {
        return m_document.notice();
    }
    if (!m_session->cleanResult()) {
        return tr("Type a sentence above: the two models are compared on it.");
    }
    // A run that failed (a sentence longer than B reads, say) told the message bar why.
    return m_comparing ? tr("Comparing the two models on this sentence…")
                       : tr("No comparison of this sentence: the message bar says why.");
}

void ModelCompareView::showComparison(const ModelCompareDocument::Comparison& c) {
    const analysis::ModelComparison& heads = c.heads;
    Matrix values(heads.nLayers, heads.nHeads);
    for (const analysis::HeadDivergence& d : heads.heads) {
        values(d.head.layer, d.head.head) = d.mean;
    }
    render::ColorRange range;
    range.lo = 0.0;
    range.hi = values.size() > 0 && values.maxCoeff() > 0 ? values.maxCoeff() : std::log(2.0);
    range.colormap = render::Colormap::Magma;
    range.caption = tr("JS, nats per row");
    m_grid->setMap(render::heatmapImageInRange(values, nullptr, {range.colormap}, range), range,
                   layerLabels(heads.nLayers), headLabels(heads.nHeads), std::nullopt);
    m_grid->setTitle(tr("How far each head moved from A to B"));
    fitSplit(heads.nLayers, heads.nHeads);
    m_model->setComparison(m_document.comparison());
    m_stack->showPage();
    showSelection();
}

// A grid of a few layers and many heads is a wide strip: above the ranking it is as large as
// beside it and leaves the ranking the whole width (a laptop's tab cut its columns). A squarer
// grid stands beside the ranking, larger. The sizes are reset only when the shape turns.
void ModelCompareView::fitSplit(int layers, int heads) {
    const Qt::Orientation orientation = heads >= 3 * layers ? Qt::Vertical : Qt::Horizontal;
    if (orientation == m_split->orientation() && m_splitFitted) {
        return;
    }
    m_splitFitted = true;
    m_split->setOrientation(orientation);
    const int grid = orientation == Qt::Vertical ? 1 : 3;
    m_split->setStretchFactor(0, grid);
    m_split->setStretchFactor(1, 2);
    m_split->setSizes({grid * 1000, 2000});
}

void ModelCompareView::showSelection() {
    const HeadId head = m_session->selectedHead();
    if (!m_stack->showsPage()) {
        return;
    }
    m_grid->setOutlinedCells({{head.layer, head.head}});
    const int row = m_model->rowOf(head);
    if (row < 0) {
        return;
    }
    const QModelIndex index = m_sorted->mapFromSource(m_model->index(row, 0));
    m_syncing = true;
    m_table->setCurrentIndex(index);
    m_table->scrollTo(index);
    m_syncing = false;
}

QString ModelCompareView::gridToolTip(int layer, int head) const {
    const auto c = m_document.comparison();
    if (!c || layer >= c->heads.nLayers || head >= c->heads.nHeads) {
        return {};
    }
    const analysis::HeadDivergence& d =
        c->heads.heads.at(static_cast<std::size_t>(headIndex({layer, head}, c->heads.nHeads)));
    return tr("Layer %1, head %2 — rank %3 of %4\n"
              "Jensen–Shannon divergence between A and B:\n"
              "  %5 nats per query row (mean)\n"
              "  %6 nats in all (%7 query rows)\n"
              "  %8 nats at query %9 “%10”, the row that moved most\n"
              "Click to select the head.")
        .arg(layer)
        .arg(head)
        .arg(m_model->rankOf(d.head))
        .arg(c->heads.heads.size())
        .arg(divergenceText(d.mean), divergenceText(d.total))
        .arg(c->heads.nTokens)
        .arg(divergenceText(d.maxRow))
        .arg(d.maxRowIndex)
        .arg(QString::fromStdString(c->a->label(d.maxRowIndex)));
}

QString ModelCompareView::summaryOf(const ModelCompareDocument::Comparison& c) const {
    // A model without tokenizer files reads A's tokens (issue 30): say so, it is not a check.
    const QString ids =
        !c.modelB->tokenizer && !c.a->text.empty()
            ? tr(" %1 has no tokenizer files: it reads A's tokens.").arg(m_document.nameB())
            : QString();
    const std::vector<analysis::HeadDivergence> ranked = c.heads.ranked();
    const QString tokens = tokensText(c.heads.nTokens);
    if (ranked.empty() || ranked.front().total == 0.0f) {
        return tr("Every head attends exactly alike in both models on these %1: every "
                  "divergence is 0.")
                   .arg(tokens) +
               ids;
    }
    const analysis::HeadDivergence& top = ranked.front();
    const auto moved = std::count_if(ranked.begin(), ranked.end(),
                                     [](const auto& d) { return d.mean >= kMovedPerRow; });
    if (moved == 0) {
        // Rounding apart, not a change: say so rather than crown a head that moved by 1e-16.
        return tr("No head moved by 0.0001 nats per query row or more on these %1; the most, "
                  "layer %2 head %3, by %4.")
                   .arg(tokens)
                   .arg(top.head.layer)
                   .arg(top.head.head)
                   .arg(divergenceText(top.mean)) +
               ids;
    }
    return tr("On these %1, layer %2 head %3 moved most: %4 nats per query row (0 … ln 2 ≈ "
              "0.693). %5 of %6 heads moved by 0.0001 or more per row.")
               .arg(tokens)
               .arg(top.head.layer)
               .arg(top.head.head)
               .arg(divergenceText(top.mean))
               .arg(moved)
               .arg(ranked.size()) +
           ids;
}

}  // namespace attnscope::app
