#include "views/method_selector.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>

#include "render/named_enum.h"
#include "session/analysis_session.h"
#include "views/heatmap_widget.h"

namespace attnscope::app {

using analysis::AttributionMethod;

QString methodTitle(AttributionMethod method) {
    return QString::fromStdString(analysis::attributionMethodTitle(method));
}

namespace {

// Each method's words, in kAttributionMethods order; tr() at use, so that a language chosen
// after start-up applies.
struct MethodWords {
    AttributionMethod value;
    const char* meaning;    // one sentence: what its map measures (methods.md §4, §5, §11)
    const char* valueName;  // what a cell's value is
};

constexpr MethodWords kMethodWords[] = {
    {AttributionMethod::Raw,
     QT_TRANSLATE_NOOP("QObject",
                       "The softmax weights: how much each query reads from each key, "
                       "before the value vectors (a layer: the mean of its heads)."),
     QT_TRANSLATE_NOOP("QObject", "attention weight")},
    {AttributionMethod::Norm,
     QT_TRANSLATE_NOOP("QObject",
                       "‖αf(x)‖: the size of what each key writes into the query, its "
                       "weight times its transformed value vector (Kobayashi et al. "
                       "2020); a norm, not a share."),
     QT_TRANSLATE_NOOP("QObject", "‖αf(x)‖ (vector norm)")},
    {AttributionMethod::Rollout,
     QT_TRANSLATE_NOOP("QObject",
                       "Head-averaged attention plus the residual identity, multiplied "
                       "through layers 0…l: how much each input token is mixed into "
                       "each position (Abnar & Zuidema 2020)."),
     QT_TRANSLATE_NOOP("QObject", "rollout share")},
    {AttributionMethod::Flow,
     QT_TRANSLATE_NOOP("QObject",
                       "The maximum flow from each input token to each position through "
                       "layers 0…l of the residual attention graph, row-normalised "
                       "(Abnar & Zuidema 2020)."),
     QT_TRANSLATE_NOOP("QObject", "flow share")},
    {AttributionMethod::Alti,
     QT_TRANSLATE_NOOP("QObject",
                       "Each token's contribution to a layer's output, by how close its "
                       "transformed vector is to the output (LayerNorm included), "
                       "rolled out over layers 0…l (Ferrando et al. 2022)."),
     QT_TRANSLATE_NOOP("QObject", "ALTI contribution")},
    {AttributionMethod::ValueZeroing,
     QT_TRANSLATE_NOOP("QObject",
                       "1 − cosine between a position's layer output and its output with "
                       "the key's value vector zeroed, thresholded and row-normalised "
                       "(Mohebbi et al. 2023)."),
     QT_TRANSLATE_NOOP("QObject", "value-zeroing share")},
};

}  // namespace

QString methodMeaning(AttributionMethod method) {
    const MethodWords* words = render::rowOf(kMethodWords, method);
    return words ? QObject::tr(words->meaning) : QString();
}

QString methodValueName(AttributionMethod method) {
    const MethodWords* words = render::rowOf(kMethodWords, method);
    return words ? QObject::tr(words->valueName) : QString();
}

QString flowLimitText(int nTokens) {
    return QObject::tr(
               "Attention flow solves L·n² max-flow problems; limited to %1 tokens (this "
               "sentence has %2)")
        .arg(analysis::kFlowMaxTokens)
        .arg(nTokens);
}

QComboBox* newMethodCombo(QWidget* parent, const QString& objectName) {
    auto* combo = new QComboBox(parent);
    combo->setObjectName(objectName);
    for (const AttributionMethod m : analysis::kAttributionMethods) {
        combo->addItem(methodTitle(m), static_cast<int>(m));
        combo->setItemData(combo->count() - 1, methodMeaning(m), Qt::ToolTipRole);
    }
    combo->setToolTip(QObject::tr("What the map shows: raw attention or an attribution method"));
    return combo;
}

void setMethodAvailability(QComboBox* combo, int nTokens, const QString& unsupported) {
    auto* model = qobject_cast<QStandardItemModel*>(combo->model());
    for (int i = 0; model && i < combo->count(); ++i) {
        const auto m = static_cast<AttributionMethod>(combo->itemData(i).toInt());
        if (QStandardItem* item = model->item(i); item && m != AttributionMethod::Raw) {
            item->setEnabled(unsupported.isEmpty());
            item->setToolTip(unsupported.isEmpty() ? methodMeaning(m) : unsupported);
        }
    }
    if (!unsupported.isEmpty()) {
        return;
    }
    const int index = combo->findData(static_cast<int>(AttributionMethod::Flow));
    QStandardItem* item = model ? model->item(index) : nullptr;
    if (!item) {
        return;
    }
    const bool fits = nTokens <= analysis::kFlowMaxTokens;
    item->setEnabled(fits);
    item->setToolTip(fits ? methodMeaning(AttributionMethod::Flow) : flowLimitText(nTokens));
}

AttributionMethod comboMethod(const QComboBox* combo) {
    return static_cast<AttributionMethod>(combo->currentData().toInt());
}

void setComboMethod(QComboBox* combo, AttributionMethod method) {
    combo->setCurrentIndex(combo->findData(static_cast<int>(method)));
}

Matrix attributionMatrix(const analysis::Attribution& maps, HeadId head, bool perHead) {
    const int n = maps.nTokens;
    const int layer = std::clamp(head.layer, 0, std::max(0, maps.nLayers - 1));
    if (perHead && analysis::hasHeadMaps(maps.method)) {
        const int h = std::clamp(head.head, 0, std::max(0, maps.nHeads - 1));
        return Eigen::Map<const Matrix>(maps.head(layer, h), n, n);
    }
    using Doubles = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    return Eigen::Map<const Doubles>(maps.layer(layer), n, n).cast<float>();
}

QString attributionMapTitle(AttributionMethod method, HeadId head, bool perHead) {
    if (perHead && analysis::hasHeadMaps(method)) {
        return QObject::tr("Layer %1, head %2 · %3 (0-based) — rows: queries, columns: keys")
            .arg(head.layer)
            .arg(head.head)
            .arg(methodTitle(method));
    }
    QString which;
    if (analysis::isCumulative(method)) {
        which = head.layer == 0 ? QObject::tr(" (after layer 0)")
                                : QObject::tr(" (after layers 0–%1)").arg(head.layer);
    } else if (method == AttributionMethod::Raw) {
        which = QObject::tr(" (head mean)");
    } else if (analysis::hasHeadMaps(method)) {
        which = QObject::tr(" (heads summed)");
    }
    return QObject::tr("Layer %1 · %2%3").arg(head.layer).arg(methodTitle(method), which);
}

void showAttributionMap(HeatmapWidget* widget, const Matrix& values, AttributionMethod method,
                        const QString& title, const QStringList& labels,
                        const render::HeatmapStyle& style) {
    render::ColorRange range;
    // Linear scaling runs 0 … the map's largest value: the data's range, so a norm map (no
    // weights summing to 1) gets its own colour bar.
    const QImage image = render::heatmapImage(values, nullptr, style, &range);
    const QString name = methodValueName(method);
    switch (range.scaling) {
        case render::Scaling::Linear:
            range.caption = name;
            break;
        case render::Scaling::Log:
            range.caption = QObject::tr("log10 %1").arg(name);
            break;
        case render::Scaling::PerRow:
            range.caption = QObject::tr("%1 / row max").arg(name);
            break;
    }
    widget->setMap(image, range, labels, labels, std::nullopt);
    widget->setTitle(title);
}

QString attributionTooltip(AttributionMethod method, const Matrix& values, int row, int col,
                           const QStringList& labels) {
    if (row >= values.rows() || col >= values.cols()) {
        return {};
    }
    return QObject::tr("query %1 “%2” ← key %3 “%4”\n%5 %6 (%7)")
        .arg(row)
        .arg(labels.value(row))
        .arg(col)
        .arg(labels.value(col), methodTitle(method))
        .arg(values(row, col), 0, 'f', 6)
        .arg(methodValueName(method));
}

AttributionStatusLine::AttributionStatusLine(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_text(new QLabel(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_retry(new QPushButton(tr("Retry"), this)) {
    setObjectName(QStringLiteral("attributionStatus"));
    m_text->setObjectName(QStringLiteral("attributionStatusText"));
    m_cancel->setObjectName(QStringLiteral("attributionCancel"));
    m_retry->setObjectName(QStringLiteral("attributionRetry"));
    m_text->setWordWrap(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_cancel);
    layout->addWidget(m_retry);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_session->attributions().cancel(m_subject);
        emit cancelled(m_subject);
    });
    connect(m_retry, &QPushButton::clicked, this,
            [this] { m_session->attributions().request(m_subject); });
    connect(&session->attributions(), &AttributionMaps::changed, this,
            &AttributionStatusLine::refresh);
    connect(&session->attributions(), &AttributionMaps::progress, this,
            &AttributionStatusLine::refresh);
    hide();
}

void AttributionStatusLine::watch(std::vector<AttributionMethod> methods) {
    m_methods = std::move(methods);
    refresh();
}

QString AttributionStatusLine::text() const {
    return isHidden() ? QString() : m_text->text();
}

void AttributionStatusLine::refresh() {
    QString text;
    bool running = false;
    bool retryable = true;
    for (const AttributionMethod m : m_methods) {
        const AttributionState& s = m_session->attributions().state(m);
        const QString title = methodTitle(m);
        const QString lower = m == AttributionMethod::Alti ? title : title.toLower();
        if (s.status == AttributionState::Waiting) {
            running = true;
            text = s.progress >= 0 ? tr("Computing %1… %2 %")
                                         .arg(lower)
                                         .arg(static_cast<int>(s.progress * 100 + 0.5))
                                   : tr("Computing %1…").arg(lower);
        } else if (s.status == AttributionState::Failed ||
                   s.status == AttributionState::Cancelled) {
            text = tr("%1: %2").arg(title, s.message);
        } else if (!m_session->attributions().available(m)) {
            const auto clean = m_session->cleanResult();
            text = flowLimitText(clean ? clean->forward.nTokens : 0);
            retryable = false;
        } else {
            continue;
        }
        m_subject = m;
        break;
    }
    m_text->setText(text);
    m_cancel->setVisible(running);
    m_retry->setVisible(!running && retryable && !text.isEmpty());
    setVisible(!text.isEmpty());
}

}  // namespace attnscope::app
