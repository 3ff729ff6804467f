#include "analyses/survey/survey_table_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include <QCoreApplication>

#include "attnscope/analysis/head_survey.h"

namespace attnscope::app {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString tr(const char* text) {
    return QCoreApplication::translate("SurveyTableModel", text);
}

struct ScoreText {
    const char* title;
    const char* description;
};

// The scores that are not one of the 18 detector variants, in words (S4, S5, S7–S10).
const std::map<std::string, ScoreText>& plainScores() {
    static const std::map<std::string, ScoreText> texts = {
        {"first", {"first", "Mean attention to the first token (Clark et al.; S4)"}},
        {"last", {"last", "Mean attention to the last token (Clark et al.; S4)"}},
        {"self", {"self", "Mean attention to the token itself (Clark et al.; S4)"}},
        {"prev", {"prev", "Mean attention to the previous token (Clark et al.; S4)"}},
        {"next", {"next", "Mean attention to the next token (Clark et al.; S4)"}},
        {"punct", {"punct", "Mean attention to punctuation (Clark et al.; S4)"}},
        {"period", {"period", "Mean attention to periods (Clark et al.; S4)"}},
        {"special", {"special", "Mean attention to special tokens (Clark et al.; S4)"}},
        {"entropy", {"entropy", "Mean row entropy in nats (S5)"}},
        {"entropy_norm",
         {"entropy ÷ ln m", "Mean row entropy over the most the row can reach, ln m (S5)"}},
        {"first_mass",
         {"first mass", "Mean attention to the first token from the other rows (S8)"}},
        {"sink_rate",
         {"sink rate", "Share of sentences where the first token's mean attention exceeds ε (S8)"}},
        {"probe_induction",
         {"probe induct",
          "Repeated-random-token probe: attention on the induction stripe (causal models; S7)"}},
        {"positional_offset",
         {"pos offset", "The relative position the argmax lands on most often (Voita; S9)"}},
        {"positional_frequency",
         {"pos freq", "How often the argmax lands on that relative position (Voita; S9)"}},
        {"positional",
         {"positional", "1 when that frequency passes Voita's 0.9 threshold, else 0 (S9)"}},
        {"confidence", {"confidence", "Mean row maximum (Voita; S9)"}},
        {"rare_top1",
         {"rare top-1",
          "Share of sentences where the key the head attends most is the rarest token (Voita; "
          "S10)"}},
        {"rare_top2",
         {"rare top-2",
          "Share of sentences where that key is one of the two rarest tokens (Voita; S10)"}},
    };
    return texts;
}

struct DetectorName {
    std::string detector;  // prev, dup, induction
    std::string measure;   // mul, abs, abs_tl
    bool noBos = false;
};

// "tl_induction_abs_tl_nobos" -> {induction, abs_tl, true}; false when not a detector score.
bool parseDetector(const std::string& name, DetectorName* out) {
    static const std::string prefix = "tl_";
    static const std::string noBos = "_nobos";
    if (name.rfind(prefix, 0) != 0) {
        return false;
    }
    std::string rest = name.substr(prefix.size());
    if (rest.size() > noBos.size() &&
        rest.compare(rest.size() - noBos.size(), noBos.size(), noBos) == 0) {
        out->noBos = true;
        rest.resize(rest.size() - noBos.size());
    }
    for (const char* detector : {"prev", "dup", "induction"}) {
        const std::string d = std::string(detector) + "_";
        if (rest.rfind(d, 0) == 0) {
            out->detector = detector;
            out->measure = rest.substr(d.size());
            return true;
        }
    }
    return false;
}

// The filter box lists label families in rule order (L1–L10); tags of other families follow.
const char* const kFamilies[] = {"prev",  "next",  "self",   "pos", "sink",
                                 "broad", "punct", "induct", "dup", "syn"};

// "pos+2" -> "pos", "syn:det" -> "syn", "prev" -> "prev".
QString familyOf(const QString& tag) {
    if (tag.startsWith(QStringLiteral("pos+")) || tag.startsWith(QStringLiteral("pos-"))) {
        return QStringLiteral("pos");
    }
    const qsizetype colon = tag.indexOf(QLatin1Char(':'));
    return colon > 0 ? tag.left(colon) : tag;
}

// A score name in words: a plain score's `text` (ScoreText::title, …), a detector variant's
// `detector(parsed name)`, else the name itself.
QString describeScore(const std::string& name, const char* ScoreText::*text,
                      const std::function<QString(const DetectorName&)>& detector) {
    const auto& plain = plainScores();
    if (const auto it = plain.find(name); it != plain.end()) {
        return tr(it->second.*text);
    }
    DetectorName d;
    return parseDetector(name, &d) ? detector(d) : QString::fromStdString(name);
}

QString number(double value, int decimals) {
    return std::isfinite(value) ? QString::number(value, 'f', decimals) : QStringLiteral("–");
}

}  // namespace

QString surveyScoreTitle(const std::string& name) {
    return describeScore(name, &ScoreText::title, [](const DetectorName& d) {
        QString title = QStringLiteral("TL %1").arg(d.detector == "induction"
                                                        ? QStringLiteral("induct")
                                                        : QString::fromStdString(d.detector));
        if (d.measure == "abs") {
            title += tr(" abs");
        } else if (d.measure == "abs_tl") {
            title += tr(" abs (TL)");
        }
        if (d.noBos) {
            title += tr(" no BOS");
        }
        return title;
    });
}

QString surveyScoreDescription(const std::string& name) {
    return describeScore(name, &ScoreText::description, [&name](const DetectorName& d) {
        const QString detector = d.detector == "prev"  ? tr("previous-token")
                                 : d.detector == "dup" ? tr("duplicate-token")
                                                       : tr("induction");
        const QString measure = d.measure == "mul" ? tr("Σ A·D / Σ A")
                                : d.measure == "abs"
                                    ? tr("1 − mean |A − D|")
                                    : tr("TransformerLens's published value, rounded to 3 places");
        return tr("TransformerLens %1 detector, %2; first token %3 (S6) — %4")
            .arg(detector, measure, d.noBos ? tr("excluded") : tr("included"),
                 QString::fromStdString(name));
    });
}

QString labelRulesTooltip(const analysis::LabelRules& r) {
    return tr("<p>The head's labels, strongest first; hover a row for the evidence. A head gets "
              "a label when its score passes the rule's bar:</p>"
              "L1 prev ≥ %1 · L2 next ≥ %2 · L3 self ≥ %3<br>"
              "L4 pos±k: positional frequency ≥ %4<br>"
              "L5 sink: sink rate ≥ %5 and first mass ≥ %6<br>"
              "L6 broad: entropy ÷ ln m ≥ %7 · L7 punct ≥ %8<br>"
              "L8 induct: TL induction (no BOS) ≥ %9 and, where it ran, the probe ≥ %10<br>"
              "L9 dup: TL duplicate (no BOS) ≥ %11<br>"
              "L10 syn:REL: best relation's accuracy ≥ its offset baseline + %12")
        .arg(r.previous)
        .arg(r.next)
        .arg(r.self)
        .arg(r.positionalFrequency)
        .arg(r.sinkRate)
        .arg(r.sinkFirstMass)
        .arg(r.broad)
        .arg(r.punct)
        .arg(r.induction)
        .arg(r.inductionProbe)
        .arg(r.duplicate)
        .arg(r.syntacticMargin);
}

std::vector<HeadlineScore> headlineScores(const SurveyRun& run) {
    const auto& values = run.survey.score("probe_induction");
    const bool probe =
        std::any_of(values.begin(), values.end(), [](double x) { return std::isfinite(x); });
    return {
        {"prev", tr("previous token")},
        {"next", tr("next token")},
        {"self", tr("self")},
        {"first_mass", tr("first-token mass")},
        {"sink_rate", tr("sink rate (ε = %1)").arg(run.options.sinkEps)},
        {"entropy_norm", tr("entropy ÷ ln m")},
        {probe ? "probe_induction" : "tl_induction_mul_nobos",
         probe ? tr("induction probe") : tr("induction (no BOS)")},
        {"tl_dup_mul_nobos", tr("duplicate token (no BOS)")},
        {"positional_frequency", tr("positional frequency")},
    };
}

std::vector<LabelFilterEntry> labelFilterEntries(const SurveyRun* run) {
    if (!run) {
        return {};
    }
    QStringList tags;
    for (const auto& labels : run->labels) {
        for (const auto& l : labels) {
            tags << QString::fromStdString(l.tag);
        }
    }
    tags.removeDuplicates();
    tags.sort();
    QStringList families;
    for (const char* f : kFamilies) {
        families << QString::fromLatin1(f);
    }
    for (const QString& t : tags) {
        if (!families.contains(familyOf(t))) {
            families << familyOf(t);
        }
    }
    const auto entry = [run](const QString& tag, const QString& indent) {
        const auto count =
            analysis::headsWithLabel(run->labels, tag.toStdString(), run->nHeads()).size();
        return LabelFilterEntry{QStringLiteral("%1%2 (%3)").arg(indent, tag).arg(count), tag};
    };
    std::vector<LabelFilterEntry> out;
    for (const QString& family : families) {
        QStringList members;
        for (const QString& t : tags) {
            if (familyOf(t) == family) {
                members << t;
            }
        }
        if (members.isEmpty()) {
            continue;
        }
        out.push_back(entry(family, {}));
        if (members.size() > 1 || members.front() != family) {
            for (const QString& tag : members) {
                out.push_back(entry(tag, QStringLiteral("    ")));
            }
        }
    }
    return out;
}

SurveyTableModel::SurveyTableModel(QObject* parent)
    : ResultsTableModel({}, parent), m_names(&analysis::surveyScoreNames()) {}

void SurveyTableModel::setRun(std::shared_ptr<const SurveyRun> run) {
    beginResetModel();
    m_run = std::move(run);
    endResetModel();
}

HeadId SurveyTableModel::headOf(int row) const {
    const int heads = m_run ? m_run->nHeads() : 0;
    return heads > 0 ? HeadId{row / heads, row % heads} : HeadId{-1, -1};
}

int SurveyTableModel::scoreColumn(const std::string& name) const {
    for (std::size_t i = 0; i < m_names->size(); ++i) {
        if ((*m_names)[i] == name) {
            return firstScoreColumn() + static_cast<int>(i);
        }
    }
    return -1;
}

int SurveyTableModel::dependencyColumn(DependencyColumn which) const {
    if (!m_run || m_run->bestRelations.empty()) {
        return -1;
    }
    return static_cast<int>(FixedColumns) + static_cast<int>(which);
}

int SurveyTableModel::firstScoreColumn() const {
    const bool relations = m_run && !m_run->bestRelations.empty();
    return FixedColumns + (relations ? DependencyColumns : 0);
}

int SurveyTableModel::rows() const {
    return m_run ? m_run->nLayers() * m_run->nHeads() : 0;
}

int SurveyTableModel::columns() const {
    const bool relations = m_run && !m_run->bestRelations.empty();
    return FixedColumns + static_cast<int>(m_names->size()) + (relations ? DependencyColumns : 0);
}

// A head's best relation is one it predicts better than the relation's best fixed offset: with
// no positive margin it has none, shown as "–" (issue 30: "best" at −0.2 read as a finding).
const analysis::BestRelation* SurveyTableModel::relationOf(int row) const {
    const auto i = static_cast<std::size_t>(row);
    const analysis::BestRelation* best =
        m_run && i < m_run->bestRelations.size() ? &m_run->bestRelations[i] : nullptr;
    return best && best->margin() > 0 ? best : nullptr;
}

QVariant SurveyTableModel::sortValue(int row, int column) const {
    const auto i = static_cast<std::size_t>(row);
    if (column == Layer || column == Head) {
        // Ties keep head order within a layer, layer order within a head.
        const HeadId h = headOf(row);
        return column == Layer ? row : h.head * m_run->nLayers() + h.layer;
    }
    if (column == Labels) {
        const auto& labels = m_run->labelsOf(headOf(row));
        return labels.empty() ? QVariant(kNaN) : QVariant(labelTags(labels));
    }
    const int score = column - firstScoreColumn();
    if (score >= 0) {
        const auto& values = m_run->survey.score((*m_names)[static_cast<std::size_t>(score)]);
        return i < values.size() ? values[i] : kNaN;
    }
    const analysis::BestRelation* best = relationOf(row);
    if (!best || best->relation.empty()) {
        return kNaN;
    }
    switch (column - dependencyColumn(Relation)) {
        case Relation:
            return QString::fromStdString(best->relation);
        case RelationAccuracy:
            return best->accuracy;
        case RelationMargin:
            return best->margin();
        default:
            return {};
    }
}

QVariant SurveyTableModel::text(int row, int column) const {
    const QVariant value = sortValue(row, column);
    if (column == Layer) {
        return QString::number(headOf(row).layer);
    }
    if (column == Head) {
        return QString::number(headOf(row).head);
    }
    if (value.typeId() == QMetaType::QString) {
        return value.toString();
    }
    const double x = value.toDouble();
    if (column == scoreColumn("positional_offset")) {
        return std::isfinite(x) ? QStringLiteral("%1%2").arg(x > 0 ? "+" : "").arg(x, 0, 'f', 0)
                                : QStringLiteral("–");
    }
    if (column == scoreColumn("positional") && std::isfinite(x)) {
        return x > 0.5 ? tr("yes") : tr("no");
    }
    if (column == dependencyColumn(RelationMargin) && std::isfinite(x)) {
        return (x > 0 ? QStringLiteral("+") : QString()) + number(x, 3);
    }
    if (column == Labels) {
        return QString();  // no label
    }
    return number(x, column == scoreColumn("entropy") ? 2 : 3);
}

QVariant SurveyTableModel::toolTip(int row, int) const {
    const HeadId head = headOf(row);
    const QString labels = labelTooltip(m_run->labelsOf(head));
    return tr("<b>head %1-%2</b><br>%3<br>Click to open it")
        .arg(head.layer)
        .arg(head.head)
        .arg(labels.isEmpty() ? tr("No label: no rule L1–L10 fits") : labels);
}

QVariant SurveyTableModel::alignment(int, int column) const {
    return column == Labels || column == dependencyColumn(Relation)
               ? QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
}

QVariant SurveyTableModel::title(int column) const {
    return header(column, true);
}

QVariant SurveyTableModel::titleToolTip(int column) const {
    return header(column, false);
}

QVariant SurveyTableModel::header(int section, bool display) const {
    if (section == Layer) {
        return display ? tr("Layer") : QVariant();
    }
    if (section == Head) {
        return display ? tr("Head") : QVariant();
    }
    if (section == Labels) {
        return display ? tr("Labels")
                       : labelRulesTooltip(m_run ? m_run->request.rules : analysis::LabelRules{});
    }
    const int score = section - firstScoreColumn();
    if (score >= 0 && score < static_cast<int>(m_names->size())) {
        const std::string& name = (*m_names)[static_cast<std::size_t>(score)];
        return display ? surveyScoreTitle(name) : surveyScoreDescription(name);
    }
    switch (section - dependencyColumn(Relation)) {
        case Relation:
            return display ? tr("Best relation")
                           : tr("The dependency relation this head predicts best over its "
                                "offset baseline (L10); – when it beats no relation's baseline");
        case RelationAccuracy:
            return display ? tr("Accuracy") : tr("The head's accuracy on that relation");
        case RelationMargin:
            return display ? tr("Margin")
                           : tr("Accuracy − the relation's best fixed-offset baseline");
        default:
            return {};
    }
}

SurveySortModel::SurveySortModel(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(SurveyTableModel::SortRole);
}

void SurveySortModel::setKeptRows(std::optional<std::vector<bool>> kept) {
    m_kept = std::move(kept);
    invalidateFilter();
}

bool SurveySortModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant a = left.data(sortRole());
    const QVariant b = right.data(sortRole());
    const auto undefined = [](const QVariant& v) {
        return v.typeId() == QMetaType::Double && std::isnan(v.toDouble());
    };
    const bool na = undefined(a);
    const bool nb = undefined(b);
    if (na || nb) {
        // Undefined last in either order: "less" in a descending sort puts it at the end.
        return na && !nb ? sortOrder() == Qt::DescendingOrder
                         : (nb && !na ? sortOrder() == Qt::AscendingOrder : false);
    }
    if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString) {
        return a.toString().localeAwareCompare(b.toString()) < 0;
    }
    return a.toDouble() < b.toDouble();
}

bool SurveySortModel::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
    const auto i = static_cast<std::size_t>(sourceRow);
    return !m_kept || (i < m_kept->size() && (*m_kept)[i]);
}

}  // namespace attnscope::app
