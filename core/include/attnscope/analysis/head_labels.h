// Automatic head labels (issue 18): short tags for the grid, named by stated rules from the
// corpus survey (head_survey.h, scores S1–S12 of survey_reference.py) and, when a treebank was
// scored, from the dependency results. Every threshold lives in LabelRules with its source.
//
// The rules (README and tooltips quote them by number; x ≥ t never holds for a NaN x, so an
// undefined score never labels a head):
//   L1  previous token  "prev"     prev ≥ 0.5                          strength prev
//   L2  next token      "next"     next ≥ 0.5                          strength next
//   L3  self            "self"     self ≥ 0.5                          strength self
//   L4  positional ±k   "pos+k"    positional_frequency ≥ 0.9 at offset k = positional_offset
//                                  (Voita's verdict, S9)              strength the frequency
//   L5  first-token sink "sink"    sink_rate ≥ 0.5 and first_mass ≥ 0.3  strength first_mass
//   L6  broad           "broad"    entropy_norm ≥ 0.8                  strength entropy_norm
//   L7  punctuation     "punct"    punct ≥ 0.6                         strength punct
//   L8  induction       "induct"   tl_induction_mul_nobos ≥ 0.4 and, where the probe ran
//                                  (causal models), probe_induction ≥ 0.4;
//                                  strength the probe, else the detector
//   L9  duplicate token "dup"      tl_dup_mul_nobos ≥ 0.4              strength the detector
//   L10 syntactic: REL  "syn:REL"  for the relation with the largest accuracy − baseline, among
//                                  the given ones: accuracy ≥ baseline + 0.10  strength accuracy
// A head may carry several labels, strongest first (equal strengths in rule order); a head no
// rule fits gets none. Strengths are all shares in [0, 1], so they order across rules.
// No Qt.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "attnscope/analysis/head_survey.h"
#include "attnscope/base/head_id.h"

namespace attnscope::analysis {

struct HeadLabel {
    std::string tag;       // short, for the grid: "prev", "pos+2", "syn:det"
    std::string name;      // "previous token"
    std::string rule;      // "L1 previous token: Clark's mean attention to i-1, prev ≥ 0.5"
    std::string evidence;  // the numbers that met it: "prev = 0.930 ≥ 0.5"
    double strength = 0.0;
};

struct LabelRules {
    // L1–L3: Clark et al. 2019 (methods.md §1.5) call a head "attend to next/prev" when its mean
    // attention there is ≥ POSITION_THRESHOLD = 0.5; the same bar is used for the self position.
    double previous = 0.5;
    double next = 0.5;
    double self = 0.5;
    // L4: Voita et al. 2019 (§2.2): the argmax lands on one relative position ≥ 90 % of the time.
    double positionalFrequency = kVoitaPositionalThreshold;
    // L5: Gu et al. 2025 (§11.3) count a sentence as a sink when the first key's mean attention
    // exceeds ε = 0.3; a head is labelled when most sentences are (≥ 0.5) and its mean mass on the
    // first token from the other rows (first_mass, §11.3's m_h) is itself at least that ε.
    double sinkRate = 0.5;
    double sinkFirstMass = 0.3;
    // L6: Clark's "attend broadly" is entropy ≥ 3.8 nats on segments of ≤ 128 tokens, about
    // 0.78–0.83 of ln n for the lengths used (ln 128 = 4.85, ln 100 = 4.61); entropy_norm (S5) is
    // that ratio per row, so 0.8.
    double broad = 0.8;
    // L7: Clark's SPECIAL_TOKEN_THRESHOLD = 0.6 for [CLS]/[SEP]/punctuation heads.
    double punct = 0.6;
    // L8/L9: 0.4, the threshold the TransformerLens detector exercises and ARENA's induction
    // probe use (§11.2). BOS excluded (the _nobos scores) because §11.3 says to exclude it where
    // the first-token mass dominates, as in sink heads that park there when no match exists.
    double induction = 0.4;
    double inductionProbe = 0.4;
    double duplicate = 0.4;
    // L10: Voita's syntactic head is "at least 10 % higher" than the most frequent relative
    // position (§2.3), read as 10 absolute points over the best fixed-offset baseline (§1.3).
    double syntacticMargin = 0.10;
};

// L10's input: per relation, every head's accuracy and the best fixed-offset baseline, e.g. the
// rows of a RelationTable (dependency_accumulator.h) the caller kept (enough words).
struct DependencyRelationResult {
    std::string relation;          // "det"
    double baseline = 0.0;         // the best offset's accuracy
    int baselineOffset = 0;        // which offset, for the evidence
    std::vector<double> accuracy;  // [nLayers * nHeads], NaN = no prediction
};

struct DependencyLabels {
    int nLayers = 0;
    int nHeads = 0;
    std::vector<DependencyRelationResult> relations;
};

// Each head's best relation: the one with the largest accuracy − baseline (the first on ties,
// as L10 picks it). Empty relation when no relation has a finite accuracy for the head.
struct BestRelation {
    std::string relation;
    double accuracy = std::numeric_limits<double>::quiet_NaN();
    double baseline = std::numeric_limits<double>::quiet_NaN();
    int baselineOffset = 0;

    double margin() const { return accuracy - baseline; }
};

std::vector<BestRelation> bestRelations(const DependencyLabels& labels);

// Per head (headIndex order) its labels, strongest first. InvalidArgument when a score the rules
// need is missing or has the wrong size, or the dependency results are for another head shape.
std::vector<std::vector<HeadLabel>> labelHeads(const HeadSurvey& survey,
                                               const LabelRules& rules = {},
                                               const DependencyLabels* dependencies = nullptr);

// The heads (headIndex order) with a label whose tag is `tag`, or whose family it names: "pos"
// finds every "pos+k"/"pos-k", "syn" every "syn:REL".
std::vector<HeadId> headsWithLabel(const std::vector<std::vector<HeadLabel>>& labels,
                                   const std::string& tag, int nHeads);

}  // namespace attnscope::analysis
