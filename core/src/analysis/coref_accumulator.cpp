// Coreference counts per head, mention group and baseline (coref_scoring.h).
#include <algorithm>
#include <string>
#include <utility>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/base/error.h"

namespace attnscope::analysis {

namespace {

constexpr std::array<MentionGroup, kMentionGroups> kGroups = {
    MentionGroup::All, MentionGroup::Pronoun, MentionGroup::Proper, MentionGroup::Nominal};

std::size_t groupIndex(MentionGroup g) {
    return static_cast<std::size_t>(g);
}

void addCounts(CorefCounts& to, const CorefCounts& from) {
    to.documents += from.documents;
    to.sentences += from.sentences;
    to.windows += from.windows;
    to.sentencesSkipped += from.sentencesSkipped;
    to.mentions += from.mentions;
    to.scoredMentions += from.scoredMentions;
    to.mentionsWithoutToken += from.mentionsWithoutToken;
    to.discontinuous += from.discontinuous;
    to.unclosed += from.unclosed;
    to.unmatched += from.unmatched;
    to.malformedSentences += from.malformedSentences;
}

std::string shapeText(int layers, int heads) {
    return std::to_string(layers) + " layers x " + std::to_string(heads) + " heads";
}

}  // namespace

CorefAccumulator::CorefAccumulator(int layers, int heads) : m_layers(layers), m_heads(heads) {
    if (layers <= 0 || heads <= 0) {
        throw InvalidArgument("scoring coreference: " + shapeText(layers, heads) +
                              "; expected positive counts");
    }
    m_counts.resize(static_cast<std::size_t>(layers * heads * kMentionGroups));
}

const Counts& CorefAccumulator::at(HeadId head, MentionGroup group) const {
    if (head.layer < 0 || head.layer >= m_layers || head.head < 0 || head.head >= m_heads) {
        throw InvalidArgument("scoring coreference: head " + std::to_string(head.layer) + "-" +
                              std::to_string(head.head) + " outside " +
                              shapeText(m_layers, m_heads));
    }
    return m_counts[static_cast<std::size_t>(headIndex(head, m_heads)) * kMentionGroups +
                    groupIndex(group)];
}

std::int64_t CorefAccumulator::baselineCorrect(CorefBaseline baseline, MentionGroup group) const {
    return m_baselines[static_cast<std::size_t>(baseline)][groupIndex(group)];
}

std::int64_t CorefAccumulator::scored(MentionGroup group) const {
    return m_scored[groupIndex(group)];
}

std::optional<HeadId> CorefAccumulator::bestHead(MentionGroup group) const {
    std::optional<HeadId> best;
    const Counts* bestCounts = nullptr;
    for (int layer = 0; layer < m_layers; ++layer) {
        for (int head = 0; head < m_heads; ++head) {
            const Counts& c = at({layer, head}, group);
            if (c.predicted() <= 0) {
                continue;
            }
            // Exact ratios; strictly better only, so ties keep the lowest layer, then head.
            if (bestCounts == nullptr ||
                c.correct * bestCounts->predicted() > bestCounts->correct * c.predicted()) {
                best = HeadId{layer, head};
                bestCounts = &c;
            }
        }
    }
    return best;
}

void CorefAccumulator::addWindow(const std::vector<ScoredMention>& mentions,
                                 const std::vector<std::vector<int>>& predictions) {
    const auto nHeads = static_cast<std::size_t>(m_layers * m_heads);
    if (predictions.size() != nHeads) {
        throw InvalidArgument("scoring coreference: " + std::to_string(predictions.size()) +
                              " heads' predictions for " + shapeText(m_layers, m_heads));
    }
    for (const auto& p : predictions) {
        if (p.size() != mentions.size()) {
            throw InvalidArgument("scoring coreference: a head's " + std::to_string(p.size()) +
                                  " predictions for " + std::to_string(mentions.size()) +
                                  " mentions");
        }
    }
    ++counts.windows;
    for (std::size_t k = 0; k < mentions.size(); ++k) {
        const ScoredMention& m = mentions[k];
        if (m.headWord < 0) {
            ++counts.mentionsWithoutToken;
            continue;
        }
        ++counts.scoredMentions;
        const std::array<std::size_t, 2> groups = {groupIndex(MentionGroup::All),
                                                   groupIndex(m.type)};
        for (const std::size_t g : groups) {
            ++m_scored[g];
            for (std::size_t b = 0; b < m_baselines.size(); ++b) {
                m_baselines[b][g] += m.baselineCorrect[b] ? 1 : 0;
            }
        }
        for (std::size_t h = 0; h < nHeads; ++h) {
            const int p = predictions[h][k];
            const bool correct =
                p != kNoPrediction &&
                std::binary_search(m.antecedentWords.begin(), m.antecedentWords.end(), p);
            for (const std::size_t g : groups) {
                Counts& c = m_counts[h * kMentionGroups + g];
                ++c.total;
                c.noPrediction += p == kNoPrediction ? 1 : 0;
                c.correct += correct ? 1 : 0;
            }
        }
    }
}

void CorefAccumulator::merge(const CorefAccumulator& other) {
    if (other.m_layers == 0 && other.m_heads == 0) {
        addCounts(counts, other.counts);
        return;
    }
    if (m_layers == 0 && m_heads == 0) {
        const CorefCounts mine = counts;
        *this = other;
        addCounts(counts, mine);
        return;
    }
    if (other.m_layers != m_layers || other.m_heads != m_heads) {
        throw InvalidArgument("scoring coreference: merging " +
                              shapeText(other.m_layers, other.m_heads) + " into " +
                              shapeText(m_layers, m_heads));
    }
    for (std::size_t i = 0; i < m_counts.size(); ++i) {
        m_counts[i].correct += other.m_counts[i].correct;
        m_counts[i].noPrediction += other.m_counts[i].noPrediction;
        m_counts[i].total += other.m_counts[i].total;
    }
    for (std::size_t b = 0; b < m_baselines.size(); ++b) {
        for (std::size_t g = 0; g < kGroups.size(); ++g) {
            m_baselines[b][g] += other.m_baselines[b][g];
        }
    }
    for (std::size_t g = 0; g < kGroups.size(); ++g) {
        m_scored[g] += other.m_scored[g];
    }
    addCounts(counts, other.counts);
}

void CorefAccumulator::restore(std::vector<Counts> headCounts, const BaselineCounts& baselines,
                               const GroupCounts& scored) {
    if (headCounts.size() != m_counts.size()) {
        throw InvalidArgument("scoring coreference: restored head counts have " +
                              std::to_string(headCounts.size()) + " entries; expected " +
                              std::to_string(m_counts.size()));
    }
    m_counts = std::move(headCounts);
    m_baselines = baselines;
    m_scored = scored;
}

}  // namespace attnscope::analysis
