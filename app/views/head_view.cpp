#include "views/head_view.h"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QSpinBox>
#include <QVBoxLayout>

#include "attnscope/analysis/word_attention.h"
#include "session/analysis_session.h"
#include "session/head_record_watch.h"
#include "session/window_gold.h"
#include "views/ablation_menu.h"
#include "views/heatmap_widget.h"
#include "views/kv_groups.h"
#include "views/method_selector.h"
#include "widgets/attention_kind_combo.h"
#include "widgets/control_row.h"
#include "widgets/named.h"

namespace attnscope::app {

namespace {

QStringList labels(const analysis::SentenceAnalysis& a) {
    QStringList out;
    for (int i = 0; i < a.forward.nTokens; ++i) {
        out << QString::fromStdString(a.label(i));
    }
    return out;
}

// One label per alignment unit: the word (words of a multiword token joined by "+"), or the
// token's own label for [CLS], [SEP] and whitespace units.
QStringList unitLabels(const analysis::SentenceAnalysis& a, const std::vector<std::string>& forms,
                       const analysis::WordAlignment& alignment) {
    QStringList out;
    for (const auto& unit : alignment.units) {
        if (unit.kind != analysis::UnitKind::Word) {
            out << QString::fromStdString(a.label(unit.tokens.front()));
            continue;
        }
        QStringList words;
        for (int w : unit.words) {
            words << QString::fromStdString(forms[static_cast<std::size_t>(w)]);
        }
        out << words.join(QLatin1Char('+'));
    }
    return out;
}

// The head's statistics, one line that wraps between its terms only: each term is one
// unbreakable unit (issue 30: "max" ended one line and "|logit| 3.21" began the next), and the
// dot between two stays at the end of a line.
QString statisticsLine(const forward::ForwardResult& f, const analysis::HeadStats& s, HeadId h) {
    QStringList terms = {
        QObject::tr("mean entropy %1 nats").arg(s.meanEntropy, 0, 'f', 3),
        QObject::tr("max weight %1").arg(s.maxWeight, 0, 'f', 3),
        QObject::tr("max |logit| %1").arg(s.maxAbsLogit, 0, 'f', 2),
        QObject::tr("scale %1").arg(f.scales[static_cast<std::size_t>(h.layer)], 0, 'g', 4),
        QObject::tr("mask %1").arg(QString::fromStdString(f.maskKind))};
    for (QString& term : terms) {
        term.replace(QLatin1Char(' '), QChar(0x00A0));  // no-break space
        // Unicode lets a line break after "|" (class BA): a word joiner forbids it.
        term.replace(QStringLiteral("|"), QStringLiteral("|") + QChar(0x2060));
    }
    const QString separator = QString(QChar(0x00A0)) + QStringLiteral("· ");
    QString line = terms.join(separator);
    if (const QString kv = kvSharingText(f, h.head); !kv.isEmpty()) {
        line += separator + kv;  // prose: it may wrap inside
    }
    return line;
}

}  // namespace

HeadView::HeadView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_layer(named<QSpinBox>("headViewLayer", this)),
      m_head(named<QSpinBox>("headViewHead", this)),
      m_info(named<QLabel>("headViewInfo", this)),
      m_ablation(named<QLabel>("headViewAblation", this)),
      m_labels(named<QLabel>("headViewLabels", this)),
      m_heatmap(named<HeatmapWidget>("headHeatmap", this)),
      m_words(named<QCheckBox>("headViewWords", tr("Words"), this)),
      m_records(new HeadRecordWatch(
          session, [this] { refresh(); }, this)) {
    setObjectName(QStringLiteral("headView"));
    m_method = newMethodCombo(this, QStringLiteral("headViewMethod"));
    m_kind = named<AttentionKindCombo>("headViewKind", session, this);
    m_methodStatus = new AttributionStatusLine(session, this);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_info->setWordWrap(true);  // a long line must not set the window's minimum width
    QHBoxLayout* bar = controlRow(this, {tr("Layer"), m_layer, tr("Head"), m_head, m_method,
                                         RowItem::spacing(12), RowItem(m_info, 1), m_words});
    auto* layout = new QVBoxLayout(this);
    // A row of its own (shown for encoder-decoder models only): beside the layer and head it
    // squeezed the statistics into a narrow column and widened the window past 1024 px.
    auto* kindRow = new QHBoxLayout;
    kindRow->addWidget(m_kind);
    kindRow->addStretch(1);
    layout->addLayout(kindRow);
    layout->addLayout(bar);
    // The banners, shown when there is something to say. Squeezed below its wrapped height, a
    // QLabel paints nothing legible; the map gives way.
    for (QLabel* banner : {m_ablation, m_labels}) {
        banner->setWordWrap(true);
        banner->setContentsMargins(8, 3, 8, 3);
        banner->hide();
        banner->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
        layout->addWidget(banner);
    }
    layout->addWidget(m_methodStatus);
    layout->addWidget(m_heatmap, 1);
    m_heatmap->setTooltipFunction([this](int r, int c) { return tooltip(r, c); });
    connect(m_layer, &QSpinBox::valueChanged, this, [this](int v) {
        m_session->selectHead({v, m_session->selectedHead().head});
    });
    connect(m_head, &QSpinBox::valueChanged, this, [this](int v) {
        m_session->selectHead({m_session->selectedHead().layer, v});
    });
    connect(m_heatmap, &HeatmapWidget::cellClicked, this, &HeadView::onCellClicked);
    m_heatmap->addWindowShortcuts();  // zoom and step keys even while typing a sentence
    // Clicking the map to use its plain keys must not move the Predictions row (issue 30).
    m_heatmap->setFocusClickOnly(true);
    connect(m_heatmap, &HeatmapWidget::stepRequested, this, &HeadView::step);
    connect(m_words, &QCheckBox::toggled, this, [this](bool on) {
        m_wordsWanted = on;
        refresh();
    });
    connect(m_method, &QComboBox::currentIndexChanged, this,
            [this] { m_session->attributions().setHeadViewMethod(comboMethod(m_method)); });
    wireSession();
    refreshGold();
}

void HeadView::wireSession() {
    AnalysisSession* session = m_session;
    connect(&session->attributions(), &AttributionMaps::headViewMethodChanged, this,
            &HeadView::refresh);
    connect(&session->attributions(), &AttributionMaps::changed, this, [this] {
        if (m_session->attributions().headViewMethod() != analysis::AttributionMethod::Raw) {
            refresh();  // the head's own map does not change with them
        }
    });
    connect(session, &AnalysisSession::resultChanged, this, &HeadView::refreshGold);
    connect(session, &AnalysisSession::sentenceGoldChanged, this, &HeadView::refreshGold);
    connect(&session->overlays(), &HeadOverlays::windowGoldChanged, this, &HeadView::refreshGold);
    connect(session, &AnalysisSession::selectedHeadChanged, this, &HeadView::refresh);
    connect(session, &AnalysisSession::heatmapStyleChanged, this, &HeadView::refresh);
    connect(&session->overlays(), &HeadOverlays::labelsChanged, this,
            &HeadView::refreshLabelBanner);
}

void HeadView::refresh() {
    const auto result = m_session->result();
    const HeadId h = m_session->selectedHead();
    const QSignalBlocker b1(m_layer), b2(m_head);
    m_layer->setRange(0, std::max(0, m_session->layerCount() - 1));
    m_head->setRange(0, std::max(0, m_session->headCount() - 1));
    m_layer->setValue(h.layer);
    m_head->setValue(h.head);
    const analysis::AttributionMethod method = m_session->attributions().headViewMethod();
    {
        const QSignalBlocker b3(m_method);
        setComboMethod(m_method, method);
        const auto clean = m_session->cleanResult();
        setMethodAvailability(m_method, clean ? clean->forward.nTokens : 0,
                              m_session->unsupportedReason());
    }
    refreshWordsBox(method);
    m_record.reset();
    m_wordMap.reset();
    m_records->forget();
    refreshAblationBanner();
    refreshLabelBanner();
    if (!result) {
        m_info->clear();
        m_heatmap->clear(m_session->model() ? tr("Type a sentence to see this head's attention.")
                                            : tr("Open a model to begin."));
        return;
    }
    const auto& f = result->forward;
    const auto& s = result->stats[static_cast<std::size_t>(headIndex(h, f.nHeads))];
    QString info = statisticsLine(f, s, h);
    if (m_gold) {
        info += tr(" · gold arcs outlined (dependent row → head column)");
    }
    if (m_coref) {
        info += tr(" · coreference arcs in orange (mention row → antecedent column)");
    }
    m_info->setText(info);
    m_info->setToolTip(QString());
    if (refreshAttribution(queryLabels(*m_session))) {
        return;
    }
    m_record = m_records->fetch(h);
    if (!m_record) {
        m_heatmap->clear(m_records->pendingText());
        return;
    }
    if (showingWords()) {
        refreshWords();
        return;
    }
    render::ColorRange range;
    const QImage img = render::heatmapImage(m_record->probs, &f.allowedFor(h.layer),
                                            m_session->heatmapStyle(), &range);
    m_heatmap->setMap(img, range, queryLabels(*m_session), keyLabels(*m_session),
                      f.allowedFor(h.layer));
    m_heatmap->setTitle(tr("Layer %1, head %2 (0-based) — %3")
                            .arg(h.layer)
                            .arg(h.head)
                            .arg(m_session->isEncoderDecoder()
                                     ? attentionAxesText(m_session->attentionKind())
                                     : tr("rows: queries, columns: keys")));
    m_heatmap->setOutlinedCells(goldCells(false));
    m_heatmap->setAccentCells(corefCells(false), corefColor());
}

void HeadView::refreshWords() {
    const auto result = m_session->result();
    const HeadId h = m_session->selectedHead();
    // Once per head and sentence: the tool tips read this matrix instead of redoing it per hover.
    const WordSource source = wordSource();
    m_wordMap = analysis::wordAttention(m_record->probs, *source.alignment,
                                        analysis::FromAggregation::Mean);
    render::ColorRange range;
    const QImage img = render::heatmapImage(*m_wordMap, nullptr, m_session->heatmapStyle(), &range);
    const QStringList units = unitLabels(*result, *source.forms, *source.alignment);
    m_heatmap->setMap(img, range, units, units, std::nullopt);
    m_heatmap->setTitle(tr("Layer %1, head %2 (0-based), words (mean over a word's tokens) — "
                           "rows: from, columns: to")
                            .arg(h.layer)
                            .arg(h.head));
    m_heatmap->setOutlinedCells(goldCells(true));
    m_heatmap->setAccentCells(corefCells(true), corefColor());
}

void HeadView::refreshGold() {
    m_gold = m_session->sentenceGold();
    m_coref = m_session->overlays().windowGold();
    refresh();
}

// Words, gold arcs at word level and mask editing belong to the head's own map. A disabled box
// shows unticked (issue 30: ticked and greyed said "words" while tokens showed) and says why;
// the user's choice comes back with the gold.
void HeadView::refreshWordsBox(analysis::AttributionMethod method) {
    const bool gold = m_gold != nullptr || m_coref != nullptr;
    const bool available = gold && method == analysis::AttributionMethod::Raw;
    const QSignalBlocker block(m_words);
    m_words->setEnabled(available);
    m_words->setChecked(available && m_wordsWanted);
    m_words->setToolTip(
        available ? tr("Word-level attention (mean over a word's tokens, as scored)")
        : gold    ? tr("Words: only for the head's own attention (the method shown is another)")
                  : tr("Words: for sentences of a scored treebank or coreference corpus, whose "
                          "words are known; this sentence has none"));
}

void HeadView::setWordLevel(bool on) {
    m_wordsWanted = on;
    refresh();
}

bool HeadView::wordLevel() const {
    return m_wordsWanted;
}

bool HeadView::showingWords() const {
    return m_wordsWanted && (m_gold || m_coref) && m_session->result() &&
           m_session->attributions().headViewMethod() == analysis::AttributionMethod::Raw;
}

HeadView::WordSource HeadView::wordSource() const {
    if (m_gold) {
        return {&m_gold->alignment, &m_gold->gold.words};
    }
    return {&m_coref->alignment, &m_coref->text.forms};
}

std::vector<std::pair<int, int>> HeadView::goldCells(bool words) const {
    std::vector<std::pair<int, int>> cells;
    if (!m_gold) {
        return cells;
    }
    const analysis::WordAlignment& alignment = m_gold->alignment;
    const auto cellOf = [&](std::size_t word) {
        const int unit = alignment.wordUnit[word];
        return words ? unit : alignment.units[static_cast<std::size_t>(unit)].tokens.front();
    };
    for (std::size_t w = 0; w < m_gold->gold.heads.size(); ++w) {
        const int head = m_gold->gold.heads[w];
        if (head > 0) {
            cells.emplace_back(cellOf(w), cellOf(static_cast<std::size_t>(head - 1)));
        }
    }
    return cells;
}

QColor HeadView::corefColor() {
    return {0xff, 0x8c, 0x00};  // orange: apart from the white dependency arcs on any colour map
}

std::vector<std::pair<int, int>> HeadView::corefCells(bool words) const {
    std::vector<std::pair<int, int>> cells;
    if (!m_coref) {
        return cells;
    }
    const analysis::WordAlignment& alignment = m_coref->alignment;
    // At word level the units are the dependency gold's when there is one (wordSource); both
    // align the same text's words, so a unit index is only used when they agree.
    if (words && m_gold && m_gold->alignment.units.size() != alignment.units.size()) {
        return cells;
    }
    const auto cellOf = [&](int word) {
        const int unit = alignment.wordUnit[static_cast<std::size_t>(word)];
        return words ? unit : alignment.units[static_cast<std::size_t>(unit)].tokens.front();
    };
    for (const analysis::CorefArc& arc : m_coref->arcs) {
        cells.emplace_back(cellOf(arc.from), cellOf(arc.to));
    }
    return cells;
}

QString HeadView::corefTooltip(int row, int col, bool words) const {
    const std::vector<std::pair<int, int>> cells = corefCells(words);
    QString text;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i] == std::pair{row, col}) {
            const analysis::CorefArc& arc = m_coref->arcs[i];
            const auto& forms = m_coref->text.forms;
            text += tr("\ncoreference: ‘%1’ → ‘%2’")
                        .arg(QString::fromStdString(forms[static_cast<std::size_t>(arc.from)]),
                             QString::fromStdString(forms[static_cast<std::size_t>(arc.to)]));
        }
    }
    return text;
}

QString HeadView::tooltip(int row, int col) const {
    const auto result = m_session->result();
    if (!result) {
        return {};
    }
    if (m_methodMap) {
        return attributionTooltip(m_shownMethod, *m_methodMap, row, col, labels(*result));
    }
    if (!m_record) {
        return {};  // still being recomputed
    }
    if (showingWords()) {
        return wordTooltip(row, col);
    }
    const auto& f = result->forward;
    if (row >= m_record->probs.rows() || col >= m_record->probs.cols()) {
        return {};  // the record of a newer result is on its way
    }
    const bool allowed = f.allowedFor(m_session->selectedHead().layer)(row, col) != 0;
    QString text = tr("query %1 “%2” → key %3 “%4”\n")
                       .arg(row)
                       .arg(QString::fromStdString(result->label(row)))
                       .arg(col)
                       .arg(QString::fromStdString(result->keyLabel(col)));
    if (const auto seq2seq = m_session->seq2seq();
        seq2seq && m_session->attentionKind() != forward::AttentionKind::Encoder) {
        text += tr("decoder row %1 produces “%2” (teacher forcing)\n")
                    .arg(row)
                    .arg(QString::fromStdString(seq2seq->targetLabel(row)));
    }
    if (!allowed) {
        return text + tr("masked (not attended)\nlogit before the mask %1")
                          .arg(m_record->logits(row, col), 0, 'f', 6);
    }
    return text +
           tr("weight %1\nlogit %2 (scaled, before softmax)")
               .arg(m_record->probs(row, col), 0, 'f', 6)
               .arg(m_record->logits(row, col), 0, 'f', 6) +
           corefTooltip(row, col, false);
}

QString HeadView::wordTooltip(int row, int col) const {
    const auto result = m_session->result();
    if (!m_wordMap || row >= m_wordMap->rows() || col >= m_wordMap->cols()) {
        return {};
    }
    const WordSource source = wordSource();
    const analysis::WordAlignment& alignment = *source.alignment;
    const QStringList units = unitLabels(*result, *source.forms, alignment);
    QString text = tr("from “%1” to “%2”\nweight %3 (mean over the from-word's tokens, sum over "
                      "the to-word's tokens)")
                       .arg(units.value(row), units.value(col))
                       .arg((*m_wordMap)(row, col), 0, 'f', 6);
    for (int w :
         m_gold ? alignment.units[static_cast<std::size_t>(row)].words : std::vector<int>{}) {
        const int head = m_gold->gold.heads[static_cast<std::size_t>(w)];
        if (head > 0 && alignment.wordUnit[static_cast<std::size_t>(head - 1)] == col) {
            text += tr("\ngold arc: %1")
                        .arg(QString::fromStdString(
                            m_gold->gold.relations[static_cast<std::size_t>(w)]));
        }
    }
    return text + corefTooltip(row, col, true);
}

void HeadView::step(int dLayer, int dHead) {
    HeadId h = m_session->selectedHead();
    h.head += dHead;
    const int heads = m_session->headCount();
    if (heads > 0 && h.head >= heads) {  // wrap into the next layer
        h.head = 0;
        ++h.layer;
    } else if (h.head < 0) {
        h.head = heads - 1;
        --h.layer;
    }
    h.layer += dLayer;
    m_session->selectHead(h);
}

namespace {

// "3-7 (zero), 5-g1 (mean)", at most three named.
QString describeAblations(const std::vector<forward::HeadAblation>& list) {
    QStringList names;
    for (std::size_t i = 0; i < list.size() && i < 3; ++i) {
        names << QString::fromStdString(forward::describe(list[i]));
    }
    if (list.size() > 3) {
        names << QObject::tr("%1 more").arg(list.size() - 3);
    }
    return names.join(QStringLiteral(", "));
}

}  // namespace

void HeadView::refreshAblationBanner() {
    const auto result = m_session->result();
    const auto effects = m_session->ablationEffects();
    const HeadId h = m_session->selectedHead();
    QString text;
    QString tint;
    if (result && effects && h.layer < result->forward.nLayers && h.head < result->forward.nHeads) {
        const auto kind = result->forward.ablationOf(h);
        const double js = effects->jsOf(h);
        const auto covering = m_session->ablationCovering(h);
        if (kind) {
            const QString group = covering && covering->kvGroup
                                      ? tr(" with its key/value group %1").arg(covering->target)
                                      : QString();
            text = tr("<b>Ablated%1 (%2)</b>: %3. Right-click ▸ Clear ablation of this head.")
                       .arg(group, QString::fromStdString(forward::ablationKindName(*kind)),
                            ablationEffectText(*kind));
            tint = QStringLiteral("rgba(220, 38, 38, 0.22)");
        } else if (!std::isnan(js) && js >= 1e-4) {
            text = tr("<b>Changed by the ablation</b> of %1: JS change %2 nats (mean over query "
                      "rows)")
                       .arg(describeAblations(m_session->ablations()).toHtmlEscaped())
                       .arg(js, 0, 'f', 4);
            tint = QStringLiteral("rgba(255, 140, 0, 0.25)");
        } else {
            text = tr("Unchanged by the ablation of %1")
                       .arg(describeAblations(m_session->ablations()).toHtmlEscaped());
            tint = QStringLiteral("rgba(128, 128, 128, 0.15)");
        }
    }
    m_ablation->setText(text);
    m_ablation->setStyleSheet(
        tint.isEmpty()
            ? QString()
            : QStringLiteral("QLabel { background: %1; border-radius: 3px; }").arg(tint));
    m_ablation->setVisible(!text.isEmpty());
}

// Labels belong to the head over a corpus, so the line shows with or without a result.
void HeadView::refreshLabelBanner() {
    const HeadLabels all = m_session->overlays().labels();
    const auto& labels = all.of(m_session->selectedHead());
    QStringList parts;
    for (const auto& l : labels) {
        parts << QStringLiteral("%1 (%2)").arg(QString::fromStdString(l.tag).toHtmlEscaped(),
                                               QString::fromStdString(l.evidence).toHtmlEscaped());
    }
    m_labels->setText(parts.isEmpty()
                          ? QString()
                          : tr("<b>Survey labels</b>: %1").arg(parts.join(QStringLiteral(", "))));
    m_labels->setToolTip(labelTooltip(labels));
    // Set again on every refresh, as the ablation banner's: a style sheet set once keeps the text
    // colour of the palette it was polished with (light on light after leaving the dark theme).
    m_labels->setStyleSheet(
        QStringLiteral("QLabel { background: rgba(0, 132, 199, 0.15); border-radius: 3px; }"));
    m_labels->setVisible(!parts.isEmpty());
}

void HeadView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {  // the banners' text follows the theme
        refreshAblationBanner();
        refreshLabelBanner();
    }
}

QString HeadView::labelBanner() const {
    return m_labels->isHidden() ? QString() : m_labels->text();
}

QString HeadView::ablationBanner() const {
    return m_ablation->isHidden() ? QString() : m_ablation->text();
}

std::unique_ptr<QMenu> HeadView::contextMenu() {
    auto menu = std::make_unique<QMenu>(this);
    if (m_session->model()) {
        addAblationActions(menu.get(), m_session, m_session->selectedHead());
    }
    return menu;
}

void HeadView::contextMenuEvent(QContextMenuEvent* event) {
    if (!m_session->result()) {
        return;
    }
    contextMenu()->exec(event->globalPos());
}

void HeadView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Left:
            step(0, -1);
            break;
        case Qt::Key_Right:
            step(0, 1);
            break;
        case Qt::Key_Up:
        case Qt::Key_PageUp:
            step(-1, 0);
            break;
        case Qt::Key_Down:
        case Qt::Key_PageDown:
            step(1, 0);
            break;
        default:
            QWidget::keyPressEvent(event);
            return;
    }
    event->accept();
}

void HeadView::onCellClicked(int row, int col) {
    const auto result = m_session->result();
    if (!result || showingWords()) {
        return;
    }
    if (m_session->mask().kind == forward::MaskKind::Custom) {
        if (!m_methodMap) {  // the mask is edited on the attention it changes
            toggleMaskCell(row, col);
        }
    } else {
        m_session->selectToken(row);  // the query row: what the model predicts there
    }
}

void HeadView::toggleMaskCell(int row, int col) {
    forward::MaskChoice mask = m_session->mask();
    const auto result = m_session->result();
    const int n = result->forward.nTokens;
    if (!mask.custom || mask.custom->rows() != n) {
        mask.custom = result->forward.allowed;
    }
    (*mask.custom)(row, col) = (*mask.custom)(row, col) != 0 ? 0 : 1;
    m_session->setMask(mask);
}

}  // namespace attnscope::app
