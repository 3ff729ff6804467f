#include "attnscope/analysis/dependency_accumulator.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/base/head_id.h"
#include "size_check.h"

namespace attnscope::analysis {

namespace {

// No own spans: the words of a multiword token share its span (MultiwordRule::Share).
const std::vector<ByteSpan> kShareSpans;

std::string sizeMismatch(const char* what, std::size_t found, std::size_t expected) {
    return detail::sizeMismatch("scoring dependencies", what, found, expected);
}

bool skippedInTable(const std::string& relation) {
    return std::find(kTableSkippedRelations.begin(), kTableSkippedRelations.end(), relation) !=
           kTableSkippedRelations.end();
}

// a's accuracy >= b's, compared exactly: totals differ between heads once some words have no
// prediction, so correct counts alone no longer order them. Both must have predictions.
bool accuracyAtLeast(const Counts& a, const Counts& b) {
    return a.correct * b.predicted() >= b.correct * a.predicted();
}

}  // namespace

double Counts::accuracy() const {
    if (predicted() <= 0) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return static_cast<double>(correct) / static_cast<double>(predicted());
}

DependencyAccumulator::DependencyAccumulator(int nLayers, int nHeads, const ScoreOptions& options)
    : m_nLayers(nLayers), m_nHeads(nHeads), m_options(options) {
    if (nLayers <= 0 || nHeads <= 0) {
        std::string msg = "scoring dependencies: ";
        msg.append(std::to_string(nLayers));
        msg.append(" layers x ");
        msg.append(std::to_string(nHeads));
        msg.append(" heads; expected positive counts");
        throw InvalidArgument(msg);
    }
}

SentenceOutcome DependencyAccumulator::skip(std::string_view reason, std::string detail) {
    ++m_skipReasons[std::string(reason)];
    return {false, std::string(reason), std::move(detail)};
}

void DependencyAccumulator::addSkipped(const std::string& reason) {
    ++m_skipReasons[reason];
}

std::int64_t DependencyAccumulator::sentencesSkipped() const {
    std::int64_t n = 0;
    for (const auto& [reason, count] : m_skipReasons) {
        n += count;
    }
    return n;
}

// Vectors of different lengths are a caller bug (throw); a bad tree is data (skip and count).
std::optional<SentenceOutcome> DependencyAccumulator::checkGold(const GoldSentence& gold) {
    const std::size_t n = gold.words.size();
    if (gold.heads.size() != n) {
        throw InvalidArgument(sizeMismatch("GoldSentence::heads", gold.heads.size(), n));
    }
    if (gold.relations.size() != n) {
        throw InvalidArgument(sizeMismatch("GoldSentence::relations", gold.relations.size(), n));
    }
    if (n == 0) {
        return skip(kSkipNoWords, "");
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (gold.heads[i] < 0 || gold.heads[i] > static_cast<int>(n)) {
            std::string detail = "word ";
            detail.append(std::to_string(i + 1));
            detail.append(" '");
            detail.append(gold.words[i]);
            detail.append("' has head ");
            detail.append(std::to_string(gold.heads[i]));
            detail.append("; expected 0..");
            detail.append(std::to_string(n));
            return skip(kSkipBadHead, detail);
        }
        if (relationKey(gold.relations[i], m_options.mergeSubtypes) == kAllRelations) {
            std::string detail = "word ";
            detail.append(std::to_string(i + 1));
            detail.append(" '");
            detail.append(gold.words[i]);
            detail.append("'");
            return skip(kSkipReservedLabel, detail);
        }
    }
    return std::nullopt;
}

SentenceOutcome DependencyAccumulator::addSentence(const GoldSentence& gold,
                                                   const std::vector<tokenize::Token>& tokens,
                                                   const forward::ForwardResult& forward) {
    if (forward.nLayers != m_nLayers || forward.nHeads != m_nHeads) {
        std::string msg = "scoring dependencies: forward result has ";
        msg.append(std::to_string(forward.nLayers));
        msg.append(" layers x ");
        msg.append(std::to_string(forward.nHeads));
        msg.append(" heads; expected ");
        msg.append(std::to_string(m_nLayers));
        msg.append(" x ");
        msg.append(std::to_string(m_nHeads));
        throw InvalidArgument(msg);
    }
    if (static_cast<std::size_t>(forward.nTokens) != tokens.size()) {
        throw InvalidArgument(sizeMismatch("the token list", tokens.size(),
                                           static_cast<std::size_t>(forward.nTokens)));
    }
    if (gold.wordSpans.size() != gold.words.size()) {
        throw InvalidArgument(
            sizeMismatch("GoldSentence::wordSpans", gold.wordSpans.size(), gold.words.size()));
    }
    if (auto bad = checkGold(gold)) {
        return *bad;
    }
    const bool split = m_options.multiword == MultiwordRule::Split;
    AlignmentResult aligned =
        alignWords(tokens, gold.wordSpans, gold.words, split ? gold.ownSpans : kShareSpans);
    if (!aligned.ok()) {
        return skip(kSkipUnaligned, aligned.failure->reason);
    }
    const WordAlignment& alignment = *aligned.alignment;
    const std::vector<std::vector<int>> unitTokens = alignment.unitTokens();
    std::vector<std::vector<int>> predictions;
    predictions.reserve(static_cast<std::size_t>(m_nLayers * m_nHeads * kDirections));
    for (int layer = 0; layer < m_nLayers; ++layer) {
        for (int head = 0; head < m_nHeads; ++head) {
            const Matrix w =
                wordAttention(forward.attention({layer, head}), unitTokens, m_options.aggregation);
            predictions.push_back(predictHeads(w, alignment, Direction::DepToHead));
            predictions.push_back(predictHeads(w, alignment, Direction::HeadToDep));
        }
    }
    count(gold, predictions);
    return {true, "", ""};
}

SentenceOutcome DependencyAccumulator::addPredictions(
    const GoldSentence& gold, const std::vector<std::vector<int>>& headPredictions) {
    if (auto bad = checkGold(gold)) {
        return *bad;
    }
    const auto expected = static_cast<std::size_t>(m_nLayers * m_nHeads * kDirections);
    if (headPredictions.size() != expected) {
        throw InvalidArgument(
            sizeMismatch("the prediction list", headPredictions.size(), expected));
    }
    for (const auto& p : headPredictions) {
        if (p.size() != gold.words.size()) {
            throw InvalidArgument(
                sizeMismatch("a head's prediction list", p.size(), gold.words.size()));
        }
    }
    count(gold, headPredictions);
    return {true, "", ""};
}

void DependencyAccumulator::count(const GoldSentence& gold,
                                  const std::vector<std::vector<int>>& headPredictions) {
    const std::size_t n = gold.words.size();
    const std::size_t nSlots = static_cast<std::size_t>(kDirections * m_nLayers * m_nHeads);
    const auto bucket = [&](const std::string& key) {
        RelationCounts& c = m_relations[key];
        c.correct.resize(nSlots, 0);
        c.noPrediction.resize(nSlots, 0);
        return &c;
    };
    RelationCounts* all = bucket(std::string(kAllRelations));
    std::vector<RelationCounts*> byWord(n);
    std::vector<std::string> keys(n);
    for (std::size_t i = 0; i < n; ++i) {
        keys[i] = relationKey(gold.relations[i], m_options.mergeSubtypes);
        byWord[i] = bucket(keys[i]);
        ++byWord[i]->total;
        ++all->total;
    }
    for (int layer = 0; layer < m_nLayers; ++layer) {
        for (int head = 0; head < m_nHeads; ++head) {
            for (int d = 0; d < kDirections; ++d) {
                const auto dir = static_cast<Direction>(d);
                const std::size_t s = slot({layer, head}, dir);
                const auto& p =
                    headPredictions[headIndex({layer, head}, m_nHeads) * kDirections + d];
                for (std::size_t i = 0; i < n; ++i) {
                    const Verdict v = judgePrediction(gold, p, i, keys[i]);
                    if (v == Verdict::Correct) {
                        ++byWord[i]->correct[s];
                        ++all->correct[s];
                    } else if (v == Verdict::NoPrediction) {
                        ++byWord[i]->noPrediction[s];
                        ++all->noPrediction[s];
                    }
                }
            }
        }
    }
    for (int o = 0; o < kOffsets; ++o) {
        const std::vector<int> p = predictByOffset(static_cast<int>(n), kMinOffset + o);
        for (std::size_t i = 0; i < n; ++i) {
            // An offset always predicts (ROOT, a word, or the word itself): never NoPrediction.
            if (judgePrediction(gold, p, i, keys[i]) == Verdict::Correct) {
                ++byWord[i]->offsetCorrect[static_cast<std::size_t>(o)];
                ++all->offsetCorrect[static_cast<std::size_t>(o)];
            }
        }
    }
    ++m_scored;
}

void DependencyAccumulator::merge(const DependencyAccumulator& other) {
    if (other.m_nLayers != m_nLayers || other.m_nHeads != m_nHeads ||
        other.m_options.aggregation != m_options.aggregation ||
        other.m_options.mergeSubtypes != m_options.mergeSubtypes ||
        other.m_options.multiword != m_options.multiword) {
        throw InvalidArgument(
            "scoring dependencies: merging an accumulator of another shape or other options");
    }
    for (const auto& [key, theirs] : other.m_relations) {
        RelationCounts& mine = m_relations[key];
        mine.correct.resize(theirs.correct.size(), 0);
        mine.noPrediction.resize(theirs.noPrediction.size(), 0);
        mine.total += theirs.total;
        for (std::size_t s = 0; s < theirs.correct.size(); ++s) {
            mine.correct[s] += theirs.correct[s];
            mine.noPrediction[s] += theirs.noPrediction[s];
        }
        for (std::size_t o = 0; o < mine.offsetCorrect.size(); ++o) {
            mine.offsetCorrect[o] += theirs.offsetCorrect[o];
        }
    }
    m_scored += other.m_scored;
    for (const auto& [reason, n] : other.m_skipReasons) {
        m_skipReasons[reason] += n;
    }
}

void DependencyAccumulator::restore(RelationMap relations, std::int64_t scored,
                                    ReasonMap skipReasons) {
    const auto nSlots = static_cast<std::size_t>(kDirections * m_nLayers * m_nHeads);
    for (const auto& [key, c] : relations) {
        if (c.correct.size() != nSlots || c.noPrediction.size() != nSlots) {
            throw InvalidArgument(sizeMismatch("restored counts of a relation",
                                               std::min(c.correct.size(), c.noPrediction.size()),
                                               nSlots));
        }
    }
    m_relations = std::move(relations);
    m_scored = scored;
    m_skipReasons = std::move(skipReasons);
}

const DependencyAccumulator::RelationCounts* DependencyAccumulator::find(
    std::string_view relation) const {
    const auto it = m_relations.find(relation);
    return it == m_relations.end() ? nullptr : &it->second;
}

std::vector<std::string> DependencyAccumulator::relations() const {
    std::vector<std::string> out;
    for (const auto& [key, c] : m_relations) {
        out.push_back(key);
    }
    // Clark iterates Counter.most_common(); equal counts there keep first-seen order, which a
    // merged accumulator cannot know, so they go by name here.
    std::stable_sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
        return m_relations.find(a)->second.total > m_relations.find(b)->second.total;
    });
    return out;
}

std::int64_t DependencyAccumulator::count(std::string_view relation) const {
    const RelationCounts* c = find(relation);
    return c ? c->total : 0;
}

Counts DependencyAccumulator::counts(std::string_view relation, HeadId head,
                                     Direction direction) const {
    if (head.layer < 0 || head.layer >= m_nLayers || head.head < 0 || head.head >= m_nHeads) {
        std::string msg = "scoring dependencies: head ";
        msg.append(head.toString());
        msg.append(" outside the model's ");
        msg.append(std::to_string(m_nLayers));
        msg.append(" x ");
        msg.append(std::to_string(m_nHeads));
        throw InvalidArgument(msg);
    }
    const RelationCounts* c = find(relation);
    return c ? headCounts(*c, head, direction) : Counts{};
}

Counts DependencyAccumulator::headCounts(const RelationCounts& c, HeadId head,
                                         Direction direction) const {
    const std::size_t s = slot(head, direction);
    return {c.correct[s], c.total, c.noPrediction[s]};
}

Counts DependencyAccumulator::baselineCounts(std::string_view relation, int offset) const {
    if (offset < kMinOffset || offset > kMaxOffset) {
        std::string msg = "scoring dependencies: offset ";
        msg.append(std::to_string(offset));
        msg.append(" outside the baseline's -3..+2");
        throw InvalidArgument(msg);
    }
    const RelationCounts* c = find(relation);
    return c ? Counts{c->offsetCorrect[static_cast<std::size_t>(offset - kMinOffset)], c->total}
             : Counts{};
}

std::optional<BestHead> DependencyAccumulator::bestHead(std::string_view relation) const {
    const RelationCounts* c = find(relation);
    if (!c || c->total == 0) {
        return std::nullopt;
    }
    // Visiting (layer, head, direction) in ascending order with >= keeps the largest tuple
    // among equals, as Python's sorted(...)[-1] does ("head<-dep" > "dep->head").
    std::optional<BestHead> best;
    for (int layer = 0; layer < m_nLayers; ++layer) {
        for (int head = 0; head < m_nHeads; ++head) {
            for (Direction d : {Direction::DepToHead, Direction::HeadToDep}) {
                const Counts k = headCounts(*c, {layer, head}, d);
                if (k.predicted() > 0 && (!best || accuracyAtLeast(k, best->counts))) {
                    best = BestHead{{layer, head}, d, k};
                }
            }
        }
    }
    return best;
}

std::optional<BestOffset> DependencyAccumulator::bestOffset(std::string_view relation) const {
    const RelationCounts* c = find(relation);
    if (!c || c->total == 0) {
        return std::nullopt;
    }
    BestOffset best{kMinOffset, {-1, c->total}};
    for (int o = 0; o < kOffsets; ++o) {
        const std::int64_t correct = c->offsetCorrect[static_cast<std::size_t>(o)];
        if (correct >= best.counts.correct) {  // ties -> larger offset
            best = {kMinOffset + o, {correct, c->total}};
        }
    }
    return best;
}

Matrix DependencyAccumulator::accuracyHeatmap(std::string_view relation,
                                              Direction direction) const {
    Matrix m = Matrix::Constant(m_nLayers, m_nHeads, std::numeric_limits<float>::quiet_NaN());
    const RelationCounts* c = find(relation);
    if (!c || c->total == 0) {
        return m;
    }
    for (int layer = 0; layer < m_nLayers; ++layer) {
        for (int head = 0; head < m_nHeads; ++head) {
            const Counts k = headCounts(*c, {layer, head}, direction);
            m(layer, head) = static_cast<float>(k.accuracy());
        }
    }
    return m;
}

RelationRow DependencyAccumulator::row(const std::string& relation) const {
    RelationRow r;
    r.relation = relation;
    r.count = count(relation);
    if (auto b = bestHead(relation)) {
        r.best = *b;
    }
    if (auto b = bestOffset(relation)) {
        r.baseline = *b;
    }
    return r;
}

RelationTable DependencyAccumulator::relationTable(std::int64_t minCount) const {
    RelationTable table;
    if (find(kAllRelations)) {
        table.rows.push_back(row(std::string(kAllRelations)));
    }
    for (const std::string& relation : relations()) {
        if (relation == kAllRelations || skippedInTable(relation)) {
            continue;
        }
        (count(relation) < minCount ? table.rare : table.rows).push_back(row(relation));
    }
    return table;
}

}  // namespace attnscope::analysis
