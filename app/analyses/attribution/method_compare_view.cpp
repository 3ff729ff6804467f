#include "analyses/attribution/method_compare_view.h"

#include <cmath>

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "analyses/registry.h"
#include "attnscope/base/error.h"
#include "render/figure_file.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"
#include "views/method_selector.h"
#include "widgets/control_row.h"
#include "widgets/file_dialogs.h"
#include "widgets/named.h"

namespace attnscope::app {

namespace {

using analysis::AttributionMethod;

// Pearson's r of two equally sized maps' cells; NaN when either is constant.
double pearson(const Matrix& a, const Matrix& b) {
    const Eigen::ArrayXd x = Eigen::Map<const Eigen::ArrayXf>(a.data(), a.size()).cast<double>();
    const Eigen::ArrayXd y = Eigen::Map<const Eigen::ArrayXf>(b.data(), b.size()).cast<double>();
    const Eigen::ArrayXd dx = x - x.mean();
    const Eigen::ArrayXd dy = y - y.mean();
    const double den = std::sqrt((dx * dx).sum() * (dy * dy).sum());
    return den > 0 ? (dx * dy).sum() / den : std::nan("");
}

// The mean over query rows of each row's Pearson r (rows where either side is constant are
// left out); NaN when none is left.
double meanRowPearson(const Matrix& a, const Matrix& b) {
    double sum = 0;
    int rows = 0;
    for (Eigen::Index r = 0; r < a.rows(); ++r) {
        const double v = pearson(a.row(r), b.row(r));
        if (!std::isnan(v)) {
            sum += v;
            ++rows;
        }
    }
    return rows > 0 ? sum / rows : std::nan("");
}

constexpr int kFigureScale = 2;  // figure pixels per screen pixel

}  // namespace

MethodCompareView::MethodCompareView(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_layer(named<QSpinBox>("methodsLayer", this)),
      m_leftMethod(newMethodCombo(this, QStringLiteral("methodsLeft"))),
      m_rightMethod(newMethodCombo(this, QStringLiteral("methodsRight"))),
      m_export(named<QPushButton>("methodsExport", tr("Export figure…"), this)),
      m_status(new AttributionStatusLine(session, this)),
      m_ablated(named<QLabel>("methodsAblated",
                              tr("Attribution of the unablated model: the ablations change only "
                                 "the other views."),
                              this)),
      m_pair(new QWidget(this)),
      m_left(named<HeatmapWidget>("methodsHeatmapLeft", m_pair)),
      m_right(named<HeatmapWidget>("methodsHeatmapRight", m_pair)),
      m_leftMeaning(new QLabel(m_pair)),
      m_rightMeaning(new QLabel(m_pair)),
      m_agreement(named<QLabel>("methodsAgreement", this)) {
    setObjectName(QStringLiteral("methodCompareView"));
    m_layer->setToolTip(tr("The layer both maps show (the selected head's layer)"));
    QHBoxLayout* bar = controlRow(this, {tr("Layer"), m_layer, RowItem::spacing(12), m_leftMethod,
                                         tr("vs"), m_rightMethod, RowItem::stretch(), m_export});
    m_ablated->setWordWrap(true);
    m_ablated->hide();
    m_agreement->setWordWrap(true);
    m_agreement->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Each side: its map above the line saying what its method measures.
    auto* grid = new QGridLayout(m_pair);
    grid->setContentsMargins(0, 0, 0, 0);
    for (int side = 0; side < 2; ++side) {
        HeatmapWidget* map = side == 0 ? m_left : m_right;
        QLabel* meaning = side == 0 ? m_leftMeaning : m_rightMeaning;
        map->setMinimumSize(160, 130);
        map->setTooltipFunction([this, side](int r, int c) {
            const QComboBox* method = side == 0 ? m_leftMethod : m_rightMethod;
            const auto& shown = m_maps[side];
            return shown ? attributionTooltip(comboMethod(method), *shown, r, c, m_labels)
                         : QString();
        });
        meaning->setWordWrap(true);
        meaning->setAlignment(Qt::AlignTop | Qt::AlignLeft);
        meaning->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Minimum);
        grid->addWidget(map, 0, side);
        grid->addWidget(meaning, 1, side);
        grid->setColumnStretch(side, 1);
    }
    grid->setRowStretch(0, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(m_ablated);
    layout->addWidget(m_pair, 1);
    layout->addWidget(m_agreement);
    connectControls();
    refresh();
}

void MethodCompareView::connectControls() {
    connect(m_layer, &QSpinBox::valueChanged, this, [this](int v) {
        m_session->selectHead({v, m_session->selectedHead().head});
    });
    const auto choose = [this] {
        m_session->attributions().setMethodPair(
            {comboMethod(m_leftMethod), comboMethod(m_rightMethod)});
    };
    connect(m_leftMethod, &QComboBox::currentIndexChanged, this, choose);
    connect(m_rightMethod, &QComboBox::currentIndexChanged, this, choose);
    connect(m_export, &QPushButton::clicked, this, [this] {
        askForSaveFile(this, tr("Export the two maps"), tr("Figures (*.png *.svg *.pdf)"),
                       [this](const QString& path) { return saveFigure(path); });
    });
    for (auto signal : {&AnalysisSession::resultChanged, &AnalysisSession::heatmapStyleChanged,
                        &AnalysisSession::ablationsChanged}) {
        connect(m_session, signal, this, &MethodCompareView::refresh);
    }
    for (auto signal : {&AttributionMaps::changed, &AttributionMaps::methodPairChanged}) {
        connect(&m_session->attributions(), signal, this, &MethodCompareView::refresh);
    }
    connect(m_session, &AnalysisSession::selectedHeadChanged, this, &MethodCompareView::refresh);
}

void MethodCompareView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refresh();
}

void MethodCompareView::refresh() {
    const MethodPair pair = m_session->attributions().methodPair();
    const auto clean = m_session->cleanResult();
    {
        const QSignalBlocker b1(m_layer), b2(m_leftMethod), b3(m_rightMethod);
        m_layer->setRange(0, std::max(0, m_session->layerCount() - 1));
        m_layer->setValue(m_session->selectedHead().layer);
        setComboMethod(m_leftMethod, pair.left);
        setComboMethod(m_rightMethod, pair.right);
        for (QComboBox* c : {m_leftMethod, m_rightMethod}) {
            setMethodAvailability(c, clean ? clean->forward.nTokens : 0,
                                  m_session->unsupportedReason());
        }
    }
    m_leftMeaning->setText(methodMeaning(pair.left));
    m_rightMeaning->setText(methodMeaning(pair.right));
    m_ablated->setVisible(!m_session->ablations().empty());
    m_maps[0].reset();
    m_maps[1].reset();
    m_agreement->clear();
    const QString unsupported = m_session->unsupportedReason();
    if (!clean || !unsupported.isEmpty()) {
        m_status->watch({});
        for (HeatmapWidget* w : {m_left, m_right}) {
            w->clear(!unsupported.isEmpty() ? tr("Attribution methods: %1").arg(unsupported)
                     : m_session->model()   ? tr("Type a sentence to compare methods on it.")
                                            : tr("Open a model to begin."));
        }
        return;
    }
    if (!isVisible()) {
        m_status->watch({});
        return;  // asked for once the tab shows
    }
    m_labels.clear();
    for (int i = 0; i < clean->forward.nTokens; ++i) {
        m_labels << QString::fromStdString(clean->label(i));
    }
    const bool left = showSide(0, m_labels);
    const bool right = showSide(1, m_labels);
    m_status->watch({pair.left, pair.right});  // after asking: the requests are what it shows
    if (left && right) {
        showAgreement();
    }
}

bool MethodCompareView::showSide(int side, const QStringList& labels) {
    const AttributionMethod method = side == 0 ? m_session->attributions().methodPair().left
                                               : m_session->attributions().methodPair().right;
    HeatmapWidget* widget = side == 0 ? m_left : m_right;
    const AttributionPtr maps = m_session->attributions().maps(method);
    if (!maps) {
        const AttributionState& s = m_session->attributions().state(method);
        const auto clean = m_session->cleanResult();
        QString why = tr("Computing %1…").arg(methodTitle(method));
        if (!m_session->attributions().available(method)) {
            why = flowLimitText(clean->forward.nTokens);
        } else if (s.status == AttributionState::Failed ||
                   s.status == AttributionState::Cancelled) {
            why = tr("%1: %2").arg(methodTitle(method), s.message);
        }
        widget->clear(why);
        return false;
    }
    const HeadId h = m_session->selectedHead();
    m_maps[side] = attributionMatrix(*maps, h, false);
    showAttributionMap(widget, *m_maps[side], method, attributionMapTitle(method, h, false), labels,
                       m_session->heatmapStyle());
    return true;
}

void MethodCompareView::showAgreement() {
    const double all = pearson(*m_maps[0], *m_maps[1]);
    const double rows = meanRowPearson(*m_maps[0], *m_maps[1]);
    m_agreement->setText(tr("Rows receive, columns are sources. Agreement: Pearson r %1 over all "
                            "cells, %2 mean over rows (1: the same up to scale and offset)")
                             .arg(all, 0, 'f', 3)
                             .arg(rows, 0, 'f', 3));
}

QString MethodCompareView::agreement() const {
    return m_agreement->text();
}

bool MethodCompareView::saveFigure(const QString& path) {
    if (!m_maps[0] || !m_maps[1]) {
        m_session->reportError(tr("Nothing to export yet: both maps must be shown."));
        return false;
    }
    render::FigurePage page;
    page.pixelSize = m_pair->size() * kFigureScale;
    page.dpi = 96 * kFigureScale;
    page.title =
        tr("%1 vs %2, layer %3")
            .arg(methodTitle(comboMethod(m_leftMethod)), methodTitle(comboMethod(m_rightMethod)))
            .arg(m_session->selectedHead().layer);
    try {
        render::writeFigureFile(path, page, [this](QPainter& painter) {
            painter.fillRect(QRect(QPoint(0, 0), m_pair->size() * kFigureScale),
                             palette().window());
            painter.scale(kFigureScale, kFigureScale);
            m_pair->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
        });
    } catch (const Error& e) {
        m_session->reportError(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
    return true;
}

// The Methods tab: two attribution methods side by side (the head view shows one of them).
Analysis attributionAnalysis() {
    return tabAnalysis<MethodCompareView>("attribution", QT_TRANSLATE_NOOP("QObject", "Methods"));
}

}  // namespace attnscope::app
