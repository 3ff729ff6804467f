// Rules L1–L10 of head_labels.h; comments cite them by number.
#include "attnscope/analysis/head_labels.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>

#include "attnscope/base/error.h"

namespace attnscope::analysis {
namespace {

std::string value(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", x);
    return buf;
}

// Thresholds as the user typed them (0.5, not 0.500), so the rule reads as in the header.
std::string threshold(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

class Scores {
public:
    explicit Scores(const HeadSurvey& survey)
        : m_survey(survey),
          m_heads(static_cast<std::size_t>(std::max(survey.nLayers, 0)) *
                  static_cast<std::size_t>(std::max(survey.nHeads, 0))) {}

    std::size_t heads() const { return m_heads; }

    const std::vector<double>& operator()(const std::string& name) const {
        const auto& s = m_survey.score(name);
        if (s.size() != m_heads) {
            throw InvalidArgument("head labels: score '" + name + "' has " +
                                  std::to_string(s.size()) + " values for " +
                                  std::to_string(m_heads) + " heads");
        }
        return s;
    }

private:
    const HeadSurvey& m_survey;
    std::size_t m_heads;
};

// One "score ≥ threshold" rule (L1–L3, L6, L7, L9, in that order): the score is the evidence
// and the strength.
struct SimpleRule {
    const char* tag;
    const char* name;
    const char* score;
    const char* meaning;
    double LabelRules::*threshold;
};

constexpr SimpleRule kSimpleRules[] = {
    {"prev", "previous token", "prev", "L1 mean attention to the previous token (Clark)",
     &LabelRules::previous},
    {"next", "next token", "next", "L2 mean attention to the next token (Clark)",
     &LabelRules::next},
    {"self", "self", "self", "L3 mean attention to the token itself (Clark)", &LabelRules::self},
    {"broad", "broad", "entropy_norm",
     "L6 mean row entropy over the largest the row can have (Clark's broad heads)",
     &LabelRules::broad},
    {"punct", "punctuation", "punct", "L7 mean attention to punctuation (Clark)",
     &LabelRules::punct},
    {"dup", "duplicate token", "tl_dup_mul_nobos",
     "L9 TransformerLens duplicate-token detector, BOS excluded", &LabelRules::duplicate},
};

void simple(const SimpleRule& r, double x, const LabelRules& rules, std::vector<HeadLabel>& out) {
    const double t = rules.*(r.threshold);
    if (x >= t) {
        out.push_back({r.tag, r.name,
                       std::string(r.meaning) + ": " + r.score + " ≥ " + threshold(t),
                       std::string(r.score) + " = " + value(x) + " ≥ " + threshold(t), x});
    }
}

// L4: Voita's verdict at the head's own offset.
void positional(double frequency, double offset, const LabelRules& rules,
                std::vector<HeadLabel>& out) {
    const double t = rules.positionalFrequency;
    if (!(frequency >= t) || !std::isfinite(offset)) {
        return;
    }
    char tag[32];
    std::snprintf(tag, sizeof tag, "pos%+d", static_cast<int>(offset));
    out.push_back({tag, std::string("positional ") + (tag + 3),
                   "L4 the maximum attention falls on one relative position (Voita): "
                   "positional_frequency ≥ " +
                       threshold(t),
                   "positional_frequency = " + value(frequency) + " ≥ " + threshold(t) +
                       " at offset " + (tag + 3),
                   frequency});
}

// L5: most sentences are sinks, and the first token holds real mass from the other rows.
void sink(double rate, double firstMass, const LabelRules& rules, std::vector<HeadLabel>& out) {
    if (!(rate >= rules.sinkRate) || !(firstMass >= rules.sinkFirstMass)) {
        return;
    }
    out.push_back(
        {"sink", "first-token sink",
         "L5 the first token is a sink (Gu et al.) in most sentences and holds mass: "
         "sink_rate ≥ " +
             threshold(rules.sinkRate) + " and first_mass ≥ " + threshold(rules.sinkFirstMass),
         "sink_rate = " + value(rate) + " ≥ " + threshold(rules.sinkRate) +
             ", first_mass = " + value(firstMass) + " ≥ " + threshold(rules.sinkFirstMass),
         firstMass});
}

// L8: the corpus detector, and the repeated-token probe where it ran (NaN: bidirectional model
// or no repeats, so the detector alone decides and the evidence says so).
void induction(double detector, double probe, const LabelRules& rules,
               std::vector<HeadLabel>& out) {
    const bool probeRan = !std::isnan(probe);
    if (!(detector >= rules.induction) || (probeRan && !(probe >= rules.inductionProbe))) {
        return;
    }
    std::string evidence =
        "tl_induction_mul_nobos = " + value(detector) + " ≥ " + threshold(rules.induction);
    evidence +=
        probeRan ? ", probe_induction = " + value(probe) + " ≥ " + threshold(rules.inductionProbe)
                 : std::string(", probe not run (bidirectional model or no repeats)");
    out.push_back({"induct", "induction",
                   "L8 TransformerLens induction detector, BOS excluded: "
                   "tl_induction_mul_nobos ≥ " +
                       threshold(rules.induction) +
                       ", and the repeated-random-token probe where it ran: probe_induction ≥ " +
                       threshold(rules.inductionProbe),
                   evidence, probeRan ? probe : detector});
}

// L10 on the head's best relation (bestRelations).
void syntactic(const BestRelation& best, const LabelRules& rules, std::vector<HeadLabel>& out) {
    const double m = rules.syntacticMargin;
    if (best.relation.empty() || !(best.accuracy >= best.baseline + m)) {
        return;
    }
    out.push_back({"syn:" + best.relation, "syntactic: " + best.relation,
                   "L10 the best relation's accuracy beats its best fixed-offset baseline "
                   "(Voita): accuracy ≥ baseline + " +
                       threshold(m),
                   best.relation + " accuracy = " + value(best.accuracy) + " ≥ baseline " +
                       value(best.baseline) + " (offset " + std::to_string(best.baselineOffset) +
                       ") + " + threshold(m),
                   best.accuracy});
}

void checkDependencies(const DependencyLabels& deps, const HeadSurvey& survey, std::size_t heads) {
    if (deps.nLayers != survey.nLayers || deps.nHeads != survey.nHeads) {
        throw InvalidArgument(
            "head labels: the dependency results are for " + std::to_string(deps.nLayers) +
            " layers x " + std::to_string(deps.nHeads) + " heads, the survey for " +
            std::to_string(survey.nLayers) + " x " + std::to_string(survey.nHeads));
    }
    for (const auto& r : deps.relations) {
        if (r.accuracy.size() != heads) {
            throw InvalidArgument("head labels: relation '" + r.relation + "' has " +
                                  std::to_string(r.accuracy.size()) + " accuracies for " +
                                  std::to_string(heads) + " heads");
        }
    }
}

}  // namespace

std::vector<BestRelation> bestRelations(const DependencyLabels& labels) {
    const auto heads = static_cast<std::size_t>(labels.nLayers) *
                       static_cast<std::size_t>(std::max(labels.nHeads, 0));
    std::vector<BestRelation> best(heads);
    for (std::size_t k = 0; k < heads; ++k) {
        const DependencyRelationResult* pick = nullptr;
        for (const auto& r : labels.relations) {
            const double acc =
                k < r.accuracy.size() ? r.accuracy[k] : std::numeric_limits<double>::quiet_NaN();
            if (std::isfinite(acc) && std::isfinite(r.baseline) &&
                (pick == nullptr || acc - r.baseline > pick->accuracy[k] - pick->baseline)) {
                pick = &r;
            }
        }
        if (pick != nullptr) {
            best[k] = {pick->relation, pick->accuracy[k], pick->baseline, pick->baselineOffset};
        }
    }
    return best;
}

std::vector<std::vector<HeadLabel>> labelHeads(const HeadSurvey& survey, const LabelRules& rules,
                                               const DependencyLabels* dependencies) {
    const Scores scores(survey);
    const std::size_t heads = scores.heads();
    std::vector<BestRelation> best;
    if (dependencies != nullptr) {
        checkDependencies(*dependencies, survey, heads);
        best = bestRelations(*dependencies);
    }
    std::vector<const std::vector<double>*> simpleScores;
    for (const auto& r : kSimpleRules) {
        simpleScores.push_back(&scores(r.score));
    }
    const auto& frequency = scores("positional_frequency");
    const auto& offset = scores("positional_offset");
    const auto& sinkRate = scores("sink_rate");
    const auto& firstMass = scores("first_mass");
    const auto& detector = scores("tl_induction_mul_nobos");
    const auto& probe = scores("probe_induction");

    std::vector<std::vector<HeadLabel>> labels(heads);
    for (std::size_t k = 0; k < heads; ++k) {
        auto& out = labels[k];
        const auto simpleRule = [&](std::size_t r) {
            simple(kSimpleRules[r], (*simpleScores[r])[k], rules, out);
        };
        // In rule order L1..L10, which the sort below keeps for equal strengths.
        simpleRule(0);
        simpleRule(1);
        simpleRule(2);
        positional(frequency[k], offset[k], rules, out);
        sink(sinkRate[k], firstMass[k], rules, out);
        simpleRule(3);
        simpleRule(4);
        induction(detector[k], probe[k], rules, out);
        simpleRule(5);
        if (!best.empty()) {
            syntactic(best[k], rules, out);
        }
        std::stable_sort(out.begin(), out.end(), [](const HeadLabel& a, const HeadLabel& b) {
            return a.strength > b.strength;
        });
    }
    return labels;
}

std::vector<HeadId> headsWithLabel(const std::vector<std::vector<HeadLabel>>& labels,
                                   const std::string& tag, int nHeads) {
    if (nHeads < 1) {
        throw InvalidArgument("head labels: a model needs at least one head per layer");
    }
    const auto matches = [&tag](const std::string& t) {
        if (t == tag) {
            return true;
        }
        // A family: "pos" names "pos+2", "syn" names "syn:det".
        return !tag.empty() && t.size() > tag.size() && t.compare(0, tag.size(), tag) == 0 &&
               (t[tag.size()] == '+' || t[tag.size()] == '-' || t[tag.size()] == ':');
    };
    std::vector<HeadId> found;
    for (std::size_t k = 0; k < labels.size(); ++k) {
        if (std::any_of(labels[k].begin(), labels[k].end(),
                        [&](const HeadLabel& l) { return matches(l.tag); })) {
            const int i = static_cast<int>(k);
            found.push_back({i / nHeads, i % nHeads});
        }
    }
    return found;
}

}  // namespace attnscope::analysis
