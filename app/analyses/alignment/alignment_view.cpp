#include "analyses/alignment/alignment_view.h"

#include <exception>
#include <string>
#include <vector>

#include <QComboBox>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>

#include "analyses/alignment/alignment_grid.h"
#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "render/figure_file.h"
#include "render/named_enum.h"
#include "widgets/file_dialogs.h"

namespace attnscope::app {

namespace {

using analysis::FromAggregation;

// How a target word's tokens make its row: the combo box's item, then the words of the rule
// line; tr() at use.
struct AggregationWords {
    FromAggregation value;
    const char* item;
    const char* rule;
};

constexpr AggregationWords kAggregations[] = {
    {FromAggregation::Mean, QT_TRANSLATE_NOOP("AlignmentView", "mean of tokens"),
     QT_TRANSLATE_NOOP("AlignmentView", "the mean of its tokens' rows")},
    {FromAggregation::First, QT_TRANSLATE_NOOP("AlignmentView", "first token"),
     QT_TRANSLATE_NOOP("AlignmentView", "its first token's row")},
    {FromAggregation::Max, QT_TRANSLATE_NOOP("AlignmentView", "max of tokens"),
     QT_TRANSLATE_NOOP("AlignmentView", "the maximum over its tokens' rows, renormalised")},
};

QString aggregationRule(FromAggregation agg) {
    const AggregationWords* a = render::rowOf(kAggregations, agg);
    return a ? AlignmentView::tr(a->rule) : QString();
}

QStringList toQStrings(const std::vector<std::string>& words) {
    QStringList out;
    out.reserve(static_cast<qsizetype>(words.size()));
    for (const std::string& w : words) {
        out << QString::fromStdString(w);
    }
    return out;
}

// Figure geometry in pixels (the page's dpi makes them physical).
constexpr int kFigureDpi = 150;
constexpr int kFigureMargin = 24;
constexpr int kFigureMinWidth = 900;
constexpr double kUnbounded = 1e6;

QFont figureFont(int pixels, bool bold = false) {
    QFont f;
    f.setStyleHint(QFont::SansSerif);
    f.setPixelSize(pixels);
    f.setBold(bold);
    return f;
}

}  // namespace

AlignmentView::AlignmentView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("alignmentView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    m_rule = new QLabel(this);
    m_rule->setObjectName(QStringLiteral("alignmentRule"));
    m_rule->setWordWrap(true);
    layout->addWidget(buildControls());
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("alignmentStatus"));
    m_status->setWordWrap(true);
    m_status->hide();
    layout->addWidget(m_status);
    m_grid = new AlignmentGrid(this);
    m_grid->setObjectName(QStringLiteral("alignmentGrid"));
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(m_grid);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_scroll, 1);
    connect(m_grid, &AlignmentGrid::cellClicked, this, &AlignmentView::cellPicked);
    refresh();
}

QWidget* AlignmentView::buildControls() {
    auto* bar = new QWidget(this);
    auto* column = new QVBoxLayout(bar);
    column->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    m_layerBox = new QComboBox(bar);
    m_layerBox->setObjectName(QStringLiteral("alignmentLayer"));
    m_layerBox->setToolTip(tr("Decoder layer whose cross-attention is shown (0-based)"));
    m_headBox = new QComboBox(bar);
    m_headBox->setObjectName(QStringLiteral("alignmentHead"));
    m_headBox->setToolTip(tr("One cross-attention head, or the mean of all heads of the layer"));
    m_aggregationBox = new QComboBox(bar);
    m_aggregationBox->setObjectName(QStringLiteral("alignmentAggregation"));
    m_aggregationBox->setToolTip(tr("How a target word's tokens make its row"));
    for (const AggregationWords& a : kAggregations) {
        m_aggregationBox->addItem(tr(a.item), static_cast<int>(a.value));
    }
    m_exportImage = new QToolButton(bar);
    m_exportImage->setText(tr("Image…"));
    m_exportImage->setToolTip(tr("Export the view as a PNG, SVG or PDF figure"));
    m_exportImage->setObjectName(QStringLiteral("alignmentExportImage"));
    m_exportCsv = new QToolButton(bar);
    m_exportCsv->setText(tr("CSV…"));
    m_exportCsv->setToolTip(tr("Export the word-pair weights as CSV"));
    m_exportCsv->setObjectName(QStringLiteral("alignmentExportCsv"));
    row->addWidget(m_layerBox);
    row->addWidget(m_headBox);
    row->addWidget(new QLabel(tr("target word:"), bar));
    row->addWidget(m_aggregationBox);
    row->addStretch(1);
    // The export buttons share the rule's line: one row of everything would not fit beside the
    // model grid and the docks at 1024 pixels.
    auto* ruleRow = new QHBoxLayout;
    ruleRow->addWidget(m_rule, 1);
    ruleRow->addWidget(m_exportImage, 0, Qt::AlignTop);
    ruleRow->addWidget(m_exportCsv, 0, Qt::AlignTop);
    column->addLayout(row);
    column->addLayout(ruleRow);

    connect(m_layerBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) {
            m_layer = i;
            refresh();
        }
    });
    connect(m_headBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) {
            m_head = i - 1;  // item 0 is "all heads (mean)"
            refresh();
        }
    });
    connect(m_aggregationBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        setAggregation(static_cast<FromAggregation>(m_aggregationBox->itemData(i).toInt()));
    });
    connect(m_exportImage, &QToolButton::clicked, this, [this] {
        askForSaveFile(this, tr("Export the alignment"),
                       tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"),
                       [this](const QString& p) { return exportImage(p); });
    });
    connect(m_exportCsv, &QToolButton::clicked, this, [this] {
        askForSaveFile(this, tr("Export the alignment weights"), tr("CSV files (*.csv)"),
                       [this](const QString& p) { return exportCsv(p); });
    });
    return bar;
}

QString AlignmentView::oneStackText() {
    return tr("The alignment view is for encoder-decoder models (T5, BART, Marian).");
}

QString AlignmentView::noTargetText() {
    return tr(
        "Type a target or use Translate: the view aligns each target word with the source "
        "words.");
}

QString AlignmentView::placeholder() const {
    return m_grid->placeholder();
}

QString AlignmentView::ruleText() const {
    return m_rule->text();
}

void AlignmentView::setAnalysis(std::shared_ptr<const analysis::Seq2SeqAnalysis> analysis) {
    m_analysis = std::move(analysis);
    fillSelectors();
    refresh();
}

void AlignmentView::setHead(int layer, int head) {
    if (!m_analysis) {
        return;
    }
    const forward::ForwardResult& r = m_analysis->cross.forward;
    if (layer < 0 || layer >= r.nLayers || head < -1 || head >= r.nHeads) {
        return;
    }
    m_layer = layer;
    m_head = head;
    fillSelectors();
    refresh();
}

void AlignmentView::setAggregation(FromAggregation agg) {
    m_aggregation = agg;
    {
        const QSignalBlocker block(m_aggregationBox);
        m_aggregationBox->setCurrentIndex(m_aggregationBox->findData(static_cast<int>(agg)));
    }
    refresh();
}

void AlignmentView::setHeatmapStyle(const render::HeatmapStyle& style) {
    m_style = style;
    refresh();
}

// The combo boxes list the analysis's layers and heads and show m_layer and m_head, which
// fall back to the last layer's mean when the new analysis does not have them.
void AlignmentView::fillSelectors() {
    const QSignalBlocker blockLayer(m_layerBox);
    const QSignalBlocker blockHead(m_headBox);
    m_layerBox->clear();
    m_headBox->clear();
    const int nLayers = m_analysis ? m_analysis->cross.forward.nLayers : 0;
    const int nHeads = m_analysis ? m_analysis->cross.forward.nHeads : 0;
    if (nLayers == 0) {
        return;
    }
    for (int l = 0; l < nLayers; ++l) {
        m_layerBox->addItem(tr("layer %1").arg(l));
    }
    m_headBox->addItem(tr("all heads (mean)"));
    for (int h = 0; h < nHeads; ++h) {
        m_headBox->addItem(tr("head %1").arg(h));
    }
    if (m_layer < 0 || m_layer >= nLayers || m_head >= nHeads) {
        m_layer = nLayers - 1;
        m_head = -1;
    }
    m_layerBox->setCurrentIndex(m_layer);
    m_headBox->setCurrentIndex(m_head + 1);
}

void AlignmentView::showEmpty(const QString& text) {
    m_alignment.reset();
    m_grid->clear(text);
    m_exportImage->setEnabled(false);
    m_exportCsv->setEnabled(false);
}

void AlignmentView::refresh() {
    const bool seq2seq = m_analysis != nullptr;
    m_layerBox->setEnabled(seq2seq);
    m_headBox->setEnabled(seq2seq);
    m_aggregationBox->setEnabled(seq2seq);
    m_rule->setText(
        tr("Row = target word as produced (decoder step t produces target token t), its row %1; "
           "column = source word, the sum over its tokens. Special tokens are left out, so a row "
           "can sum to less than 1. Outlined: each row's strongest source word.")
            .arg(aggregationRule(m_aggregation)));
    if (!seq2seq) {
        showEmpty(oneStackText());
        return;
    }
    if (m_analysis->targetTokens.empty()) {
        showEmpty(noTargetText());
        return;
    }
    try {
        m_alignment = analysis::crossAlignment(*m_analysis, m_layer, m_head, m_aggregation);
    } catch (const Error& e) {
        showEmpty(QString::fromStdString(e.what()));
        return;
    }
    if (m_alignment->targetWords.empty() || m_alignment->sourceWords.empty()) {
        showEmpty(tr("Nothing to align: the %1 has only special tokens.")
                      .arg(m_alignment->targetWords.empty() ? tr("target") : tr("source")));
        return;
    }
    AlignmentCells cells;
    cells.targets = toQStrings(m_alignment->targetWords);
    cells.sources = toQStrings(m_alignment->sourceWords);
    cells.weights = m_alignment->weights;
    cells.style = m_style;
    finishAlignmentCells(cells);
    m_grid->setCells(std::move(cells));
    m_exportImage->setEnabled(true);
    m_exportCsv->setEnabled(true);
}

QString AlignmentView::figureTitle() const {
    const QString heads = m_head < 0 ? tr("all heads (mean)") : tr("head %1").arg(m_head);
    return tr("Cross-attention alignment (0-based): decoder layer %1, %2").arg(m_layer).arg(heads);
}

bool AlignmentView::fail(const QString& message, QString* error) {
    reportStatus(message, true);
    if (error) {
        *error = message;
    }
    return false;
}

void AlignmentView::reportStatus(const QString& text, bool failure) {
    m_status->setText(text);
    m_status->setStyleSheet(failure ? QStringLiteral("color: #c62828;") : QString());
    m_status->setVisible(!text.isEmpty());
}

bool AlignmentView::written(const QString& path, QString* error,
                            const std::function<void()>& write) {
    try {
        write();
    } catch (const Error& e) {
        return fail(QString::fromStdString(e.what()), error);
    } catch (const std::exception& e) {
        // Not ours (bad_alloc from a huge figure): it does not name the file.
        return fail(QStringLiteral("%1: %2").arg(path, QString::fromStdString(e.what())), error);
    }
    reportStatus(tr("Wrote %1").arg(QFileInfo(path).fileName()), false);
    return true;
}

bool AlignmentView::exportImage(const QString& path, QString* error) {
    if (!m_alignment) {
        return fail(tr("%1: nothing to export (%2)").arg(path, placeholder()), error);
    }
    const AlignmentCells& cells = m_grid->cells();
    const QFont title = figureFont(20, true);
    const QFont text = figureFont(15);
    const QString source = tr("source: %1").arg(QString::fromStdString(m_analysis->cross.keyText));
    const QString target = tr("target: %1").arg(QString::fromStdString(m_analysis->targetText));
    const QStringList lines{source, target, m_rule->text()};
    const AlignmentLayout probe = layoutAlignment(cells, {kUnbounded, kUnbounded}, text, nullptr);
    const int width = std::max(kFigureMinWidth, static_cast<int>(probe.needed.width()) + 2 * 12);
    // The rule is wrapped to the page; measured on an image of the page's kind.
    QImage measure(1, 1, QImage::Format_RGB32);
    const QFontMetricsF fm(text, &measure);
    const QRectF ruleBox = fm.boundingRect(QRectF(0, 0, width - 2 * kFigureMargin, kUnbounded),
                                           Qt::TextWordWrap, lines.join(QLatin1Char('\n')));
    const double header =
        kFigureMargin + QFontMetricsF(title, &measure).height() + 8 + ruleBox.height() + 12;
    render::FigurePage page;
    page.dpi = kFigureDpi;
    page.title = figureTitle();
    page.pixelSize = QSize(width, static_cast<int>(header + probe.needed.height()) + 16);
    return written(path, error, [&] {
        render::writeFigureFile(path, page, [&](QPainter& p) {
            p.fillRect(QRect(QPoint(0, 0), page.pixelSize), Qt::white);
            p.setPen(Qt::black);
            p.setFont(title);
            p.drawText(QRectF(kFigureMargin, kFigureMargin, width - 2 * kFigureMargin, 40),
                       Qt::AlignLeft | Qt::AlignTop, page.title);
            p.setFont(text);
            p.drawText(QRectF(kFigureMargin, header - ruleBox.height() - 12, ruleBox.width(),
                              ruleBox.height()),
                       Qt::TextWordWrap, lines.join(QLatin1Char('\n')));
            p.translate(kFigureMargin - 8, header);
            const AlignmentLayout l =
                layoutAlignment(cells, {kUnbounded, kUnbounded}, text, p.device());
            paintAlignment(p, cells, l, AlignmentPaintStyle{});
        });
    });
}

bool AlignmentView::exportCsv(const QString& path, QString* error) {
    if (!m_alignment) {
        return fail(tr("%1: nothing to export (%2)").arg(path, placeholder()), error);
    }
    return written(path, error, [&] {
        const analysis::CrossAlignment& a = *m_alignment;
        // One row per (target word, source word): the long form pandas and R read directly.
        exporting::CsvWriter csv({"layer", "head", "target_word_from", "target_index",
                                  "target_word", "source_index", "source_word", "weight"});
        const std::string head = m_head < 0 ? std::string("mean") : std::to_string(m_head);
        const std::string from(analysis::aggregationName(m_aggregation));
        for (std::size_t t = 0; t < a.targetWords.size(); ++t) {
            for (std::size_t s = 0; s < a.sourceWords.size(); ++s) {
                csv.addRow({std::int64_t{m_layer}, head, from, static_cast<std::int64_t>(t),
                            a.targetWords[t], static_cast<std::int64_t>(s), a.sourceWords[s],
                            a.weights(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>(s))});
            }
        }
        csv.writeFile(path.toStdString());
    });
}

}  // namespace attnscope::app
