#include "analyses/coref/coref_table_model.h"

#include <iterator>

#include "analyses/corpus/score_text.h"

namespace attnscope::app {

namespace {

const ResultsTableModel::ColumnText kColumns[] = {
    {"Mentions", nullptr}, {"Scored", nullptr},     {"Best head", nullptr}, {"Accuracy", nullptr},
    {"Nearest", nullptr},  {"Head match", nullptr}, {"Sieve", nullptr},
};
static_assert(std::size(kColumns) == CorefTableModel::ColumnCount);

analysis::CorefBaseline baselineOf(int column) {
    return static_cast<analysis::CorefBaseline>(column - CorefTableModel::Nearest);
}

}  // namespace

CorefTableModel::CorefTableModel(QObject* parent) : ResultsTableModel(kColumns, parent) {}

void CorefTableModel::setResults(std::shared_ptr<const analysis::CorefAccumulator> results) {
    beginResetModel();
    m_results = std::move(results);
    endResetModel();
}

int CorefTableModel::rows() const {
    return m_results ? analysis::kMentionGroups : 0;
}

QString CorefTableModel::groupText(analysis::MentionGroup group) {
    switch (group) {
        case analysis::MentionGroup::All:
            return tr("all mentions");
        case analysis::MentionGroup::Pronoun:
            return tr("pronouns");
        case analysis::MentionGroup::Proper:
            return tr("proper nouns");
        case analysis::MentionGroup::Nominal:
            return tr("other nominals");
    }
    return {};
}

QString CorefTableModel::accuracyText(std::int64_t correct, std::int64_t predicted) {
    if (predicted <= 0) {
        return QStringLiteral("–");
    }
    return QStringLiteral("%1 % (%2/%3)")
        .arg(100.0 * static_cast<double>(correct) / static_cast<double>(predicted), 0, 'f', 1)
        .arg(correct)
        .arg(predicted);
}

QString CorefTableModel::cellText(const analysis::CorefAccumulator& results,
                                  analysis::MentionGroup group, int column) {
    const auto best = results.bestHead(group);
    switch (column) {
        case Group:
            return groupText(group);
        case Scored:
            return QString::number(results.scored(group));
        case BestHead:
            return best ? corpus::headText(*best) : QStringLiteral("–");
        case Accuracy: {
            if (!best) {
                return QStringLiteral("–");
            }
            const analysis::Counts& c = results.at(*best, group);
            return accuracyText(c.correct, c.predicted());
        }
        case Nearest:
        case HeadMatch:
        case Sieve: {
            // Over the scored mentions, so the counts are in the tool tip only.
            const std::int64_t scored = results.scored(group);
            const auto correct =
                static_cast<double>(results.baselineCorrect(baselineOf(column), group));
            return scored > 0 ? QStringLiteral("%1 %").arg(
                                    100.0 * correct / static_cast<double>(scored), 0, 'f', 1)
                              : QStringLiteral("–");
        }
        default:
            return {};
    }
}

QVariant CorefTableModel::toolTip(int row, int column) const {
    const auto group = static_cast<analysis::MentionGroup>(row);
    const auto best = m_results->bestHead(group);
    if (column == Accuracy && best) {
        const analysis::Counts& c = m_results->at(*best, group);
        return tr("Head %1 picks an antecedent's head word for %2 of the %3 mentions it "
                  "predicts for%4")
            .arg(corpus::headText(*best))
            .arg(c.correct)
            .arg(c.predicted())
            .arg(corpus::noPredictionText(c));
    }
    QString what;
    switch (column) {
        case Scored:
            return tr("Mentions with an earlier mention of their entity in the same window");
        case Nearest:
            what = tr("Baseline: the nearest earlier mention");
            break;
        case HeadMatch:
            what = tr("Baseline: the nearest earlier mention with the same head lemma");
            break;
        case Sieve:
            what =
                tr("Baseline: the nearest earlier mention with the same words, else the same "
                   "head lemma, else agreeing number, gender and person, else any");
            break;
        default:
            return tr("Double-click a row to open its best head");
    }
    return tr("%1\n%2 correct of %3 mentions")
        .arg(what)
        .arg(m_results->baselineCorrect(baselineOf(column), group))
        .arg(m_results->scored(group));
}

QVariant CorefTableModel::text(int row, int column) const {
    return cellText(*m_results, static_cast<analysis::MentionGroup>(row), column);
}

QVariant CorefTableModel::alignment(int row, int column) const {
    return column == Group ? QVariant() : ResultsTableModel::alignment(row, column);
}

}  // namespace attnscope::app
