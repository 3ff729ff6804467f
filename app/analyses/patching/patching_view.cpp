#include "analyses/patching/patching_view.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/corpus/accuracy_range.h"
#include "analyses/corpus/corpus_widgets.h"
#include "analyses/patching/patch_tokens.h"
#include "analyses/patching/patching_figure.h"
#include "analyses/patching/patching_path_box.h"
#include "analyses/patching/patching_table_model.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"
#include "service/compute_service.h"
#include "session/analysis_session.h"
#include "session/token_id_input.h"
#include "views/heatmap_widget.h"
#include "widgets/named.h"
#include "widgets/table_split.h"

namespace attnscope::app {

namespace {

using analysis::PatchDirection;
using analysis::PatchSweep;

const char* const kErrorStyle = "color: #c62828;";  // the sentence field's error red

// The corrupted prompt as the clean one is read: text through the tokenizer, or ids.
std::vector<std::int32_t> promptIds(const AnalysisSession& s, const model::Model& m,
                                    const QString& text) {
    if (s.takesTokenIds()) {
        const TokenIdList ids = parseTokenIds(text, m.spec.vocabSize);
        if (!ids.ok()) {
            throw InvalidArgument(ids.error.toStdString());
        }
        return ids.ids;
    }
    const std::vector<tokenize::Token> tokens = m.tokenizer->encode(text.toStdString());
    analysis::checkTextTokens(m, tokens);
    return tokenize::ids(tokens);
}

// A typed piece's id; nullopt for an empty field. Throws for a piece not in the vocabulary.
std::optional<std::int32_t> typedToken(const model::Model& m, const QLineEdit* field,
                                       const QString& name) {
    const std::string piece = field->text().toStdString();
    if (piece.empty()) {
        return std::nullopt;
    }
    // As the vocabulary has it, or as the app shows it (tokenLabel: "·" for "Ġ" or "▁").
    for (const char* space : {"", "Ġ", "▁"}) {
        std::string raw = piece;
        for (std::size_t at = 0; *space && (at = raw.find("·", at)) != std::string::npos;) {
            raw.replace(at, std::string("·").size(), space);
            at += std::string(space).size();
        }
        if (const auto id = vocabularyId(m, raw)) {
            return id;
        }
    }
    throw InvalidArgument(name.toStdString() + ": '" + piece +
                          "' is not a token of the model's vocabulary (a leading space is "
                          "written ·, as Predictions shows it)");
}

}  // namespace

PatchingView::PatchingView(AnalysisSession* session, ComputeService* service, QWidget* parent)
    : PlaceholderView("patching", nullptr, parent),
      m_session(session),
      m_document(session->document<PatchingDocument>()),
      m_job(service->job<PatchingJob>()),
      m_pathJob(service->job<PathPatchingJob>()),
      m_caption(named<QLabel>("patchingCaption", this)),
      m_model(new PatchingTableModel(this)),
      m_sorted(new QSortFilterProxyModel(this)) {
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(ResultsTableModel::SortRole);
    m_caption->setWordWrap(true);
    m_caption->setTextFormat(Qt::RichText);
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(8, 6, 8, 4);
    layout->setSpacing(4);
    layout->addWidget(makePrompts());
    layout->addWidget(makeOptions());
    layout->addWidget(m_caption);
    layout->addWidget(makeResults(), 1);
    stack()->setPage(page);

    corpus::followJob(
        m_job, this, m_progress,
        {tr("running the clean and corrupted prompts…"), tr("patching, %p %")},
        [this](bool busy) { setBusy(busy); }, [](bool) {});
    connect(session, &AnalysisSession::modelChanged, this, &PatchingView::refresh);
    connect(session, &AnalysisSession::resultChanged, this, &PatchingView::refresh);
    connect(session, &AnalysisSession::selectedTokenChanged, this, &PatchingView::updateCheck);
    connect(session, &AnalysisSession::pickedTokensChanged, this, &PatchingView::followPicks);
    connect(&m_document, &PatchingDocument::sweepChanged, this,
            [this] { showSweep(m_document.sweep()); });
    followPicks();
    refresh();
}

QWidget* PatchingView::makePrompts() {
    auto* bar = new QWidget(this);
    auto* grid = new QVBoxLayout(bar);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(2);
    auto* row = new QHBoxLayout;
    m_corrupted = named<QLineEdit>("patchingCorrupted", bar);
    m_corrupted->setPlaceholderText(
        tr("The corrupted prompt: the sentence with a few words "
           "changed, the same number of tokens"));
    m_corrupted->setClearButtonEnabled(true);
    auto* label = new QLabel(tr("Corrupted prompt"), bar);
    label->setBuddy(m_corrupted);
    m_export = corpus::newExportButton(
        bar, QStringLiteral("patchingExport"),
        {{tr("Runs (CSV, HDF5)…"), tr("Export the patched runs"),
          tr("CSV files (*.csv);;HDF5 files (*.h5)"),
          [this](const QString& p) { return exportRun(p); }},
         {tr("Heatmap figure (PNG, SVG, PDF)…"), tr("Export the patching heatmap"),
          tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
          [this](const QString& p) { return exportFigure(p); }}});
    auto* copy = named<QPushButton>("patchingCopyClean", tr("Copy from clean"), bar);
    copy->setToolTip(tr("Start the corrupted prompt again from the sentence (the clean prompt)"));
    row->addWidget(label);
    row->addWidget(m_corrupted, 1);
    row->addWidget(copy);
    row->addWidget(m_export);  // here, not with the options: a window 1024 wide fits them
    m_check = named<QLabel>("patchingCheck", bar);
    m_check->setWordWrap(true);
    grid->addLayout(row);
    grid->addWidget(m_check);
    connect(copy, &QPushButton::clicked, this, [this] { m_corrupted->setText(m_session->text()); });
    connect(m_corrupted, &QLineEdit::textChanged, this, &PatchingView::updateCheck);
    connect(m_corrupted, &QLineEdit::returnPressed, this, &PatchingView::runSweep);
    return bar;
}

QWidget* PatchingView::makeOptions() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_target = named<QLineEdit>("patchingTarget", bar);
    m_target->setPlaceholderText(tr("clean top"));
    m_target->setToolTip(
        tr("The token whose logit the metric reads: a vocabulary piece. Empty: "
           "the clean run's top prediction. A click in Predictions picks it."));
    m_distractor = named<QLineEdit>("patchingDistractor", bar);
    m_distractor->setPlaceholderText(tr("corrupted top"));
    m_distractor->setToolTip(
        tr("The token whose logit is subtracted. Empty: the corrupted run's "
           "top prediction (the clean run's next when they agree). "
           "Ctrl+click in Predictions picks it."));
    for (QLineEdit* field : {m_target, m_distractor}) {
        field->setMaximumWidth(fontMetrics().horizontalAdvance(QLatin1Char('m')) * 10);
        connect(field, &QLineEdit::textChanged, this, &PatchingView::updateCheck);
    }
    m_sweepKind = named<QComboBox>("patchingSweep", bar);
    for (const PatchSweep s : {PatchSweep::Head, PatchSweep::HeadPosition, PatchSweep::Residual,
                               PatchSweep::AttnOut, PatchSweep::MlpOut}) {
        static const char* const kNames[] = {"Heads", "Heads × positions", "Residual stream",
                                             "Attention output", "MLP output"};
        m_sweepKind->addItem(tr(kNames[static_cast<int>(s)]), static_cast<int>(s));
    }
    m_sweepKind->setToolTip(
        tr("What each patched run patches: one head's output (at every "
           "position, or at one), or one layer's activation at one position"));
    m_direction = named<QComboBox>("patchingDirection", bar);
    m_direction->addItem(tr("Denoise"), static_cast<int>(PatchDirection::Denoise));
    m_direction->addItem(tr("Noise"), static_cast<int>(PatchDirection::Noise));
    m_direction->setToolTip(
        tr("Denoise: the corrupted run with one clean activation patched "
           "in. Noise: the clean run with one corrupted activation."));
    m_run = named<QPushButton>("patchingRun", tr("Patch"), bar);
    m_run->setToolTip(tr("Run one patched pass per site (each restarts at its layer)"));
    m_progress = named<QProgressBar>("patchingProgress", bar);
    m_progress->setMinimumWidth(60);  // its text's width would widen the window while it runs
    m_cancel = named<QPushButton>("patchingCancel", tr("Cancel"), bar);
    const auto add = [&](const QString& text, QWidget* field) {
        auto* label = new QLabel(text, bar);
        label->setBuddy(field);
        row->addWidget(label);
        row->addWidget(field);
    };
    add(tr("Target"), m_target);
    add(tr("Distractor"), m_distractor);
    row->addSpacing(8);
    add(tr("Sweep"), m_sweepKind);
    row->addWidget(m_direction);
    row->addWidget(m_run);
    row->addWidget(m_progress, 1);
    row->addWidget(m_cancel);
    row->addStretch(0);
    setBusy(false);
    connect(m_run, &QPushButton::clicked, this, &PatchingView::runSweep);
    connect(m_cancel, &QPushButton::clicked, this, &PatchingView::cancel);
    return bar;
}

QWidget* PatchingView::makeResults() {
    auto* split = named<QSplitter>("patchingSplitter", Qt::Horizontal, this);
    auto* left = new QWidget(split);
    auto* column = new QVBoxLayout(left);
    column->setContentsMargins(0, 0, 0, 0);
    m_positionRow = new QWidget(left);
    auto* positionLine = new QHBoxLayout(m_positionRow);
    positionLine->setContentsMargins(0, 0, 0, 0);
    m_position = named<QComboBox>("patchingPosition", m_positionRow);
    auto* positionLabel = new QLabel(tr("Heads patched at position"), m_positionRow);
    positionLabel->setBuddy(m_position);
    positionLine->addWidget(positionLabel);
    positionLine->addWidget(m_position);
    positionLine->addStretch(1);
    m_heatmap = named<HeatmapWidget>("patchingHeatmap", left);
    m_heatmap->setTooltipFunction([this](int r, int c) { return heatmapTooltip(r, c); });
    column->addWidget(m_positionRow);
    column->addWidget(m_heatmap, 1);
    auto* right = named<QSplitter>("patchingSideSplitter", Qt::Vertical, split);
    m_table = corpus::newSortedTable(right, QStringLiteral("patchingTable"), m_sorted,
                                     PatchingTableModel::Rank, 160);
    m_pathBox = new PatchingPathBox(
        m_document, m_pathJob,
        [this](PatchDirection* direction) {
            *direction = static_cast<PatchDirection>(m_direction->currentData().toInt());
            return checkedRequest();
        },
        right);
    right->addWidget(m_table);
    right->addWidget(m_pathBox);
    right->setChildrenCollapsible(false);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    split->setChildrenCollapsible(false);
    m_split = split;
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, &PatchingView::cellClicked);
    connect(m_position, &QComboBox::currentIndexChanged, this, &PatchingView::drawMap);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (const auto head = m_model->headOf(m_sorted->mapToSource(index).row())) {
            m_session->selectHead(*head);
            emit headActivated(*head);
        }
    });
    return split;
}

void PatchingView::setSweepKind(PatchSweep sweep) {
    m_sweepKind->setCurrentIndex(m_sweepKind->findData(static_cast<int>(sweep)));
}

void PatchingView::setDirection(PatchDirection direction) {
    m_direction->setCurrentIndex(m_direction->findData(static_cast<int>(direction)));
}

void PatchingView::refresh() {
    const auto model = m_session->model();
    if (!model || !m_session->cleanResult()) {
        stack()->showPlaceholder(
            tr("No result yet.\nOpen a model and type a sentence: it is the clean prompt. "
               "Here you type a corrupted one and see which heads and layers carry the "
               "difference between the two."));
        return;
    }
    if (model->isEncoderDecoder()) {
        stack()->showPlaceholder(
            tr("Activation patching needs a one-stack model (a causal or "
               "masked language model), not an encoder-decoder."));
        return;
    }
    if (m_corrupted->text().isEmpty()) {
        m_corrupted->setText(m_session->text());  // to be edited from the clean one
    }
    stack()->showPage();
    updateCheck();
    updateCaption();
}

// The token counts of both prompts as they are typed: equal, or why no run can start.
void PatchingView::updateCheck() {
    if (!stack()->showsPage()) {
        return;
    }
    QString why;
    const std::optional<PatchingRequest> r = request(&why);
    m_requestOk = r.has_value();
    if (r) {
        const int n = static_cast<int>(r->corrupted.size());
        m_check->setText(tr("Clean prompt (the sentence): %1 tokens · corrupted: %2 tokens · "
                            "metric at position %3")
                             .arg(n)
                             .arg(n)
                             .arg(r->position));
        m_check->setStyleSheet(QString());
    } else {
        m_check->setText(why);
        m_check->setStyleSheet(QLatin1String(kErrorStyle));
    }
    m_run->setEnabled(m_requestOk && !m_busy);
}

std::optional<PatchingRequest> PatchingView::request(QString* why) const {
    const auto model = m_session->model();
    const auto pass = m_session->cleanResult();
    if (!model || !pass || model->isEncoderDecoder()) {
        *why = tr("Open a one-stack model and type a sentence first.");
        return std::nullopt;
    }
    PatchingRequest r;
    r.pass = pass;
    r.corruptedText = m_corrupted->text().toStdString();
    try {
        r.corrupted = promptIds(*m_session, *model, m_corrupted->text());
    } catch (const Error& e) {
        *why = tr("Corrupted prompt: %1").arg(QString::fromStdString(e.what()));
        return std::nullopt;
    }
    try {
        r.target = typedToken(*model, m_target, tr("Target"));
        r.distractor = typedToken(*model, m_distractor, tr("Distractor"));
    } catch (const Error& e) {
        *why = QString::fromStdString(e.what());
        return std::nullopt;
    }
    const auto clean = static_cast<int>(pass->forward.tokenIds.size());
    const auto corrupted = static_cast<int>(r.corrupted.size());
    if (clean != corrupted) {
        *why = tr("Not the same length: the clean prompt has %1 tokens, the corrupted one %2. "
                  "Patching needs the same token count.")
                   .arg(clean)
                   .arg(corrupted);
        return std::nullopt;
    }
    if (r.target && r.target == r.distractor) {
        *why = tr("The target and the distractor are the same token.");
        return std::nullopt;
    }
    r.position = m_session->predictionPosition();
    if (r.position < 0 || r.position >= clean) {
        r.position = defaultPatchPosition(*model, pass->forward.tokenIds);
    }
    r.options.mask = m_session->mask();
    r.options.scale = m_session->scale();
    r.options.whatIf = m_session->attentionWhatIf();
    r.options.mapBudgetBytes = m_session->mapBudgetBytes();
    return r;
}

std::optional<PatchingRequest> PatchingView::checkedRequest() {
    QString why;
    std::optional<PatchingRequest> r = request(&why);
    if (!r) {
        m_check->setText(why);
        m_check->setStyleSheet(QLatin1String(kErrorStyle));
    }
    return r;
}

bool PatchingView::runSweep() {
    std::optional<PatchingRequest> r = checkedRequest();
    if (!r) {
        return false;
    }
    m_job.runSweep(std::move(*r), static_cast<PatchSweep>(m_sweepKind->currentData().toInt()),
                   static_cast<PatchDirection>(m_direction->currentData().toInt()));
    return true;
}

void PatchingView::cancel() {
    m_job.cancel();
}

void PatchingView::setBusy(bool busy) {
    m_busy = busy;
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_run->setVisible(!busy);  // Cancel in its place: the row is no wider while it runs
    m_run->setEnabled(m_requestOk && !busy);
}

// The session's picks fill the token fields; clearing a pick empties its field (the default).
void PatchingView::followPicks() {
    const auto model = m_session->model();
    const PickedTokens& picked = m_session->pickedTokens();
    const auto pieceOf = [&model](const std::optional<std::int32_t>& id) {
        return model && id
                   ? QString::fromStdString(analysis::tokenLabel(forward::tokenPiece(*model, *id)))
                   : QString();
    };
    m_target->setText(pieceOf(picked.target));
    m_distractor->setText(pieceOf(picked.distractor));
}

void PatchingView::showSweep(std::shared_ptr<const PatchingDocument::Sweep> sweep) {
    m_shown = std::move(sweep);
    m_model->setSweep(m_shown);
    // A head at every position has no token.
    const bool token = m_shown && m_shown->grid.sweep != PatchSweep::Head;
    if (m_shown &&
        (!m_tableFitted || token == m_table->isColumnHidden(PatchingTableModel::Token))) {
        m_table->setColumnHidden(PatchingTableModel::Token, !token);
        // Once the page is laid out at its size: a hidden page's splitter has another.
        QMetaObject::invokeMethod(this, &PatchingView::fitTable, Qt::QueuedConnection);
    }
    const bool positions = m_shown && m_shown->grid.sweep == PatchSweep::HeadPosition;
    m_positionRow->setVisible(positions);
    if (positions) {
        const QSignalBlocker quiet(m_position);
        m_position->clear();
        for (int p = 0; p < m_shown->grid.nPositions; ++p) {
            m_position->addItem(positionLabel(*m_shown->endpoints, p), p);
        }
        // At first the position of the largest |metric|: where the heads matter.
        const auto& metric = m_shown->grid.metric;
        std::size_t best = 0;
        for (std::size_t i = 0; i < metric.size(); ++i) {
            if (std::isfinite(metric[i]) &&
                (!std::isfinite(metric[best]) || std::abs(metric[i]) > std::abs(metric[best]))) {
                best = i;
            }
        }
        m_position->setCurrentIndex(
            static_cast<int>(best % static_cast<std::size_t>(m_shown->grid.nPositions)));
    }
    drawMap();
    updateCaption();
}

// When the first sweep arrives, and when the token column comes or goes: the table as wide as
// its columns (up to half the view), the map the rest.
void PatchingView::fitTable() {
    if (!m_split->isVisible() || !m_shown) {
        return;
    }
    m_tableFitted = true;
    constexpr int kPathBox = 320;  // the path box below the table: a path and its two numbers
    fitTableSide(m_split, m_table, kPathBox);
}

int PatchingView::shownPosition() const {
    return m_positionRow->isVisibleTo(this) ? m_position->currentIndex() : 0;
}

void PatchingView::showPosition(int position) {
    m_position->setCurrentIndex(position);
}

void PatchingView::drawMap() {
    if (!m_shown) {
        m_heatmap->clear(
            tr("Type a corrupted prompt above and press Patch: each cell will show "
               "how much patching that site restores the clean run's logit "
               "difference (1: all of it, 0: none)."));
        return;
    }
    const analysis::PatchingGrid& g = m_shown->grid;
    const Matrix values = patchingMatrix(g, shownPosition());
    const render::ColorRange range = patchingRange(values);
    render::HeatmapStyle style;
    style.colormap = render::Colormap::Diverging;
    m_heatmap->setMap(render::heatmapImageInRange(values, nullptr, style, range), range,
                      layerLabels(g.nLayers), patchingColumnLabels(*m_shown), std::nullopt);
    m_heatmap->setTitle(tr("%1 — %2").arg(
        sweepTitle(g.sweep), QString::fromStdString(analysis::directionName(g.direction))));
}

void PatchingView::updateCaption() {
    if (!m_shown) {
        m_caption->setText(
            tr("Normalised metric: (LD patched − LD corrupted) / (LD clean − LD "
               "corrupted), LD = logit(target) − logit(distractor)."));
        return;
    }
    QString text = patchingHeadline(*m_shown->endpoints, true);
    text += tr("<br>Corrupted: “%1”")
                .arg(QString::fromStdString(m_shown->endpoints->corruptedText).toHtmlEscaped());
    if (!m_document.isCurrent(*m_shown->endpoints)) {
        text += tr(" <i>(of an earlier sentence or setting: press Patch again)</i>");
    }
    m_caption->setText(text);
}

QString PatchingView::heatmapTooltip(int layer, int column) const {
    if (!m_shown || layer < 0 || column < 0 || layer >= m_shown->grid.nLayers ||
        column >= m_shown->grid.nUnits) {
        return {};
    }
    const analysis::PatchingGrid& g = m_shown->grid;
    const std::size_t i = g.index(layer, column, std::min(shownPosition(), g.nPositions - 1));
    const bool heads = sweepsHeads(g.sweep);
    QString site =
        heads ? tr("Head %1-%2").arg(layer).arg(column)
              : tr("Layer %1 at %2").arg(layer).arg(positionLabel(*m_shown->endpoints, column));
    if (g.sweep == PatchSweep::HeadPosition) {
        site += tr(" at %1").arg(positionLabel(*m_shown->endpoints, shownPosition()));
    }
    const QString metric =
        std::isnan(g.metric[i]) ? tr("undefined") : QString::asprintf("%+.4f", g.metric[i]);
    QString text = tr("%1: metric %2\nLD patched %3 (clean %4, corrupted %5)")
                       .arg(site, metric, QString::asprintf("%+.4f", g.ld[i]),
                            QString::asprintf("%+.4f", m_shown->endpoints->base->ldClean),
                            QString::asprintf("%+.4f", m_shown->endpoints->base->ldCorrupted));
    if (heads) {
        text += tr("\nClick to open it in the Head view");
    }
    return text;
}

void PatchingView::cellClicked(int layer, int column) {
    if (m_shown && sweepsHeads(m_shown->grid.sweep)) {
        m_session->selectHead({layer, column});
        emit headActivated({layer, column});
    }
}

}  // namespace attnscope::app
