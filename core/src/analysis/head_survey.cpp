// The corpus side of the survey (rules S3, S9, S10, S11, S12 of
// tests/reference/survey_reference.py): sums over sentences in the order they are added, the
// corpus-frequency rule of rare-word heads, and classical MDS of the distance matrix.
#include "attnscope/analysis/head_survey.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <string_view>
#include <utility>

#include <Eigen/Eigenvalues>

#include "attnscope/base/error.h"
#include "attnscope/base/splitmix64.h"

namespace attnscope::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> meanNames() {
    std::vector<std::string> v = {"first", "last",   "self",    "prev",    "next",
                                  "punct", "period", "special", "entropy", "entropy_norm"};
    for (const char* d : {"prev", "dup", "induction"}) {
        for (const char* m : {"mul", "abs", "abs_tl"}) {
            for (const char* b : {"", "_nobos"}) {
                v.push_back(std::string("tl_") + d + "_" + m + b);
            }
        }
    }
    v.emplace_back("first_mass");
    v.emplace_back("sink_rate");
    return v;
}

enum class RareSentence { TooFewTokens, RarestIsFrequent, Eligible };

// S10 for one sentence and every head: adds to eligible / top1 / top2.
RareSentence rareSentence(const std::vector<std::int32_t>& ids, const std::vector<int>& keys,
                          const std::vector<std::uint8_t>& special,
                          const std::map<std::int32_t, std::int64_t>& freq,
                          const std::set<std::int32_t>& top, std::vector<double>& eligible,
                          std::vector<double>& top1, std::vector<double>& top2) {
    std::vector<std::int64_t> fs;
    std::pair<std::int64_t, std::int32_t> rarest{std::numeric_limits<std::int64_t>::max(), 0};
    for (std::size_t j = 0; j < ids.size(); ++j) {
        if (!special[j]) {
            const std::int64_t f = freq.at(ids[j]);
            fs.push_back(f);
            rarest = std::min(rarest, {f, ids[j]});  // the lowest id among equally rare ones
        }
    }
    if (fs.size() < 2) {
        return RareSentence::TooFewTokens;
    }
    if (top.count(rarest.second)) {
        return RareSentence::RarestIsFrequent;
    }
    std::sort(fs.begin(), fs.end());
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (keys[k] < 0) {
            continue;  // no row sees any candidate: not eligible
        }
        const std::int64_t f = freq.at(ids[static_cast<std::size_t>(keys[k])]);
        eligible[k] += 1;
        top1[k] += f == fs[0] ? 1.0 : 0.0;
        top2[k] += f <= fs[1] ? 1.0 : 0.0;
    }
    return RareSentence::Eligible;
}

// S9's verdict of every head (token-weighted counts summed over the corpus).
void positionalScores(const std::vector<RelativePositionAccumulator>& positions, double threshold,
                      std::map<std::string, std::vector<double>>& scores) {
    const std::size_t k = positions.size();
    for (const char* name :
         {"positional_offset", "positional_frequency", "positional", "confidence"}) {
        scores[name].assign(k, kNaN);
    }
    for (std::size_t h = 0; h < k; ++h) {
        const PositionalVerdict v = positions[h].verdict(threshold);
        scores["positional_offset"][h] = v.queries > 0 ? v.bestOffset : 0;  // S9: 0 w/o rows
        if (v.queries > 0) {
            scores["positional_frequency"][h] = v.frequency;
            scores["positional"][h] = v.positional ? 1.0 : 0.0;
            scores["confidence"][h] = v.confidence;
        }
    }
}

// Why S10 left every head undefined: the first rule that kept every sentence out.
std::string rareReason(std::size_t withTwo, std::size_t eligible, std::size_t distinct, int top) {
    const std::string k = std::to_string(top);
    if (withTwo == 0) {
        return "no sentence has two tokens that are not special";
    }
    if (eligible == 0 && distinct <= static_cast<std::size_t>(top)) {
        return "the corpus has " + std::to_string(distinct) + " distinct ids, not more than " +
               "rare-top " + k + ", so every token is among the " + k +
               " most frequent and none is rare; lower rare-top below " + std::to_string(distinct) +
               " or survey more sentences";
    }
    if (eligible == 0) {
        return "every sentence's rarest token is among the corpus's " + k +
               " most frequent ids (rare-top)";
    }
    return "no head attends to a token that is not special in any eligible sentence";
}

// S10 over every sentence: frequencies and top-K ids are the whole corpus's, so this runs at
// the end, from each sentence's ids and each head's key there.
void rareScores(const std::vector<std::vector<std::int32_t>>& ids,
                const std::vector<std::vector<int>>& keys,
                const std::map<std::int32_t, std::int64_t>& frequency, const SurveyOptions& options,
                std::size_t k, HeadSurvey& out) {
    auto& scores = out.scores;
    // Top-K ids by (frequency descending, id ascending).
    std::vector<std::pair<std::int64_t, std::int32_t>> byFreq;
    for (const auto& [id, f] : frequency) {
        byFreq.emplace_back(-f, id);
    }
    std::sort(byFreq.begin(), byFreq.end());
    std::set<std::int32_t> top;
    const auto topK = static_cast<std::size_t>(std::max(0, options.rareTop));
    for (std::size_t i = 0; i < byFreq.size() && i < topK; ++i) {
        top.insert(byFreq[i].second);
    }
    const std::set<std::int32_t> specialSet(options.specialIds.begin(), options.specialIds.end());
    std::vector<double> eligible(k, 0.0), top1(k, 0.0), top2(k, 0.0);
    std::size_t withTwo = 0;
    out.rareSentences = 0;
    for (std::size_t s = 0; s < ids.size(); ++s) {
        std::vector<std::uint8_t> special(ids[s].size());
        for (std::size_t j = 0; j < special.size(); ++j) {
            special[j] = specialSet.count(ids[s][j]) ? 1 : 0;
        }
        switch (rareSentence(ids[s], keys[s], special, frequency, top, eligible, top1, top2)) {
            case RareSentence::Eligible:
                ++out.rareSentences;
                [[fallthrough]];
            case RareSentence::RarestIsFrequent:
                ++withTwo;
                break;
            case RareSentence::TooFewTokens:
                break;
        }
    }
    auto& r1 = scores["rare_top1"];
    auto& r2 = scores["rare_top2"];
    r1.assign(k, kNaN);
    r2.assign(k, kNaN);
    for (std::size_t h = 0; h < k; ++h) {
        if (eligible[h] > 0) {
            r1[h] = top1[h] / eligible[h];
            r2[h] = top2[h] / eligible[h];
        }
    }
    out.rareError.clear();
    if (std::all_of(eligible.begin(), eligible.end(), [](double e) { return e == 0; })) {
        out.rareError =
            rareReason(withTwo, out.rareSentences, frequency.size(), std::max(0, options.rareTop));
    }
}

}  // namespace

const std::vector<std::string>& surveyMeanScoreNames() {
    static const std::vector<std::string> names = meanNames();
    return names;
}

const std::vector<std::string>& surveyScoreNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v = meanNames();
        for (const char* s : {"probe_induction", "positional_offset", "positional_frequency",
                              "positional", "confidence", "rare_top1", "rare_top2"}) {
            v.emplace_back(s);
        }
        return v;
    }();
    return names;
}

std::string surveyScoreUnit(const std::string& name) {
    const auto& names = surveyScoreNames();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
        throw InvalidArgument("head survey: no score named '" + name + "'");
    }
    static constexpr std::pair<std::string_view, std::string_view> kUnits[] = {
        {"entropy", "nats"},
        {"entropy_norm", "fraction of ln m (0-1)"},
        {"sink_rate", "fraction of sentences (0-1; Gu et al. print 100x)"},
        {"positional_offset", "tokens (key - query)"},
        {"positional", "0 or 1"},
        {"positional_frequency", "fraction of rows (0-1)"},
    };
    for (const auto& [score, unit] : kUnits) {
        if (name == score) {
            return std::string(unit);
        }
    }
    if (name.starts_with("rare_top")) {
        return "fraction of eligible sentences (0-1)";
    }
    if (name.find("_abs") != std::string::npos) {
        return "1 - mean row L1 error (-1 to 1)";
    }
    if (name.find("_mul") != std::string::npos) {
        return "fraction of attention (0-1)";
    }
    return "attention weight (0-1)";  // Clark's means, first_mass, confidence, the probe
}

const std::vector<double>& HeadSurvey::score(const std::string& name) const {
    const auto it = scores.find(name);
    if (it == scores.end()) {
        throw InvalidArgument("head survey: no score named '" + name + "'");
    }
    return it->second;
}

SurveyAccumulator::SurveyAccumulator(int nLayers, int nHeads, const SurveyOptions& options)
    : m_nLayers(nLayers), m_nHeads(nHeads), m_options(options) {
    if (nLayers < 1 || nHeads < 1) {
        throw InvalidArgument("head survey: a model needs at least one layer and one head");
    }
    const auto k = static_cast<std::size_t>(nLayers) * static_cast<std::size_t>(nHeads);
    m_sums.assign(surveyMeanScoreNames().size() * k, 0.0);
    m_counts.assign(m_sums.size(), 0);
    m_jsSums.assign(k * k, 0.0);
    m_jsCounts.assign(k * k, 0);
    m_positions.assign(k, RelativePositionAccumulator{});
}

void SurveyAccumulator::add(const SentenceSurvey& s) {
    const auto k = static_cast<std::size_t>(m_nLayers) * static_cast<std::size_t>(m_nHeads);
    if (s.means.size() != m_sums.size() || s.js.size() != k * k || s.positions.size() != k ||
        s.rareKey.size() != k) {
        throw InvalidArgument("head survey: a sentence of another model's shape was added");
    }
    // S3: the plain mean over the sentences that define a statistic.
    for (std::size_t c = 0; c < m_sums.size(); ++c) {
        if (!std::isnan(s.means[c])) {
            m_sums[c] += s.means[c];
            ++m_counts[c];
        }
    }
    for (std::size_t c = 0; c < m_jsSums.size(); ++c) {
        if (!std::isnan(s.js[c])) {
            m_jsSums[c] += s.js[c];
            ++m_jsCounts[c];
        }
    }
    for (std::size_t h = 0; h < k; ++h) {
        m_positions[h].merge(s.positions[h]);  // S9: counts summed, token-weighted
    }
    for (const std::int32_t id : s.ids) {
        ++m_frequency[id];
    }
    m_ids.push_back(s.ids);
    m_rareKeys.push_back(s.rareKey);
    ++m_sentences;
}

void SurveyAccumulator::merge(const SurveyAccumulator& other) {
    if (other.m_nLayers != m_nLayers || other.m_nHeads != m_nHeads) {
        throw InvalidArgument("head survey: merging surveys of different models");
    }
    for (std::size_t c = 0; c < m_sums.size(); ++c) {
        m_sums[c] += other.m_sums[c];
        m_counts[c] += other.m_counts[c];
    }
    for (std::size_t c = 0; c < m_jsSums.size(); ++c) {
        m_jsSums[c] += other.m_jsSums[c];
        m_jsCounts[c] += other.m_jsCounts[c];
    }
    for (std::size_t h = 0; h < m_positions.size(); ++h) {
        m_positions[h].merge(other.m_positions[h]);
    }
    for (const auto& [id, f] : other.m_frequency) {
        m_frequency[id] += f;
    }
    m_ids.insert(m_ids.end(), other.m_ids.begin(), other.m_ids.end());
    m_rareKeys.insert(m_rareKeys.end(), other.m_rareKeys.begin(), other.m_rareKeys.end());
    m_sentences += other.m_sentences;
}

HeadSurvey SurveyAccumulator::finish() const {
    const auto k = static_cast<std::size_t>(m_nLayers) * static_cast<std::size_t>(m_nHeads);
    HeadSurvey out;
    out.nLayers = m_nLayers;
    out.nHeads = m_nHeads;
    out.sentences = m_sentences;
    const auto& names = surveyMeanScoreNames();
    for (std::size_t c = 0; c < names.size(); ++c) {
        auto& v = out.scores[names[c]];
        v.resize(k);
        for (std::size_t h = 0; h < k; ++h) {
            const std::size_t i = c * k + h;
            v[h] = m_counts[i] > 0 ? m_sums[i] / static_cast<double>(m_counts[i]) : kNaN;
        }
    }
    out.scores["probe_induction"].assign(k, kNaN);
    positionalScores(m_positions, m_options.positionalThreshold, out.scores);
    rareScores(m_ids, m_rareKeys, m_frequency, m_options, k, out);
    // S11: Clark's sum over rows and sentences, divided by the sentences surveyed (a constant
    // factor, so the map's shape is Clark's) so that corpora of different sizes compare.
    out.distance.resize(k * k);
    for (std::size_t c = 0; c < k * k; ++c) {
        out.distance[c] = m_jsCounts[c] > 0 ? m_jsSums[c] / static_cast<double>(m_sentences) : kNaN;
    }
    try {
        classicalMds(out.distance, static_cast<int>(k), 2, out.mds, out.mdsEigenvalues);
    } catch (const InvalidArgument& e) {
        out.mds.clear();
        out.mdsError = e.what();
    }
    return out;
}

void classicalMds(const std::vector<double>& distance, int n, int dims, std::vector<double>& coords,
                  std::vector<double>& eigenvalues) {
    const auto un = static_cast<std::size_t>(n);
    if (n < 1 || distance.size() != un * un) {
        throw InvalidArgument("head survey: MDS needs an n x n distance matrix");
    }
    if (!std::all_of(distance.begin(), distance.end(), [](double d) { return std::isfinite(d); })) {
        throw InvalidArgument(
            "head survey: the head distance matrix has undefined entries (a "
            "head pair shares no valid row in any sentence); MDS needs every "
            "distance");
    }
    // S12: B = -1/2 J (D*D) J, symmetrised; eigenvalues descending.
    Eigen::MatrixXd d2(n, n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const double v =
                distance[static_cast<std::size_t>(i) * un + static_cast<std::size_t>(j)];
            d2(i, j) = v * v;
        }
    }
    const Eigen::MatrixXd jm =
        Eigen::MatrixXd::Identity(n, n) - Eigen::MatrixXd::Constant(n, n, 1.0 / n);
    Eigen::MatrixXd b = -0.5 * jm * d2 * jm;
    b = (0.5 * (b + b.transpose())).eval();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(b);
    const Eigen::VectorXd& lam = solver.eigenvalues();  // ascending
    const Eigen::MatrixXd& vec = solver.eigenvectors();
    coords.assign(un * static_cast<std::size_t>(dims), 0.0);
    eigenvalues.assign(static_cast<std::size_t>(dims), 0.0);
    for (int c = 0; c < dims && c < n; ++c) {
        const int col = n - 1 - c;
        Eigen::VectorXd v = vec.col(col);
        Eigen::Index top = 0;
        for (Eigen::Index i = 1; i < n; ++i) {
            if (std::abs(v(i)) > std::abs(v(top))) {
                top = i;  // first entry of largest |value|
            }
        }
        if (v(top) < 0) {
            v = -v;
        }
        eigenvalues[static_cast<std::size_t>(c)] = lam(col);
        const double scale = lam(col) > 0 ? std::sqrt(lam(col)) : 0.0;
        for (int i = 0; i < n; ++i) {
            coords[static_cast<std::size_t>(i) * static_cast<std::size_t>(dims) +
                   static_cast<std::size_t>(c)] = v(i) * scale;
        }
    }
}

std::vector<std::int32_t> probeTokens(int vocabSize, const std::vector<std::int32_t>& specialIds,
                                      std::uint64_t seed, int repeat, int length,
                                      std::int32_t bos) {
    const std::set<std::int32_t> special(specialIds.begin(), specialIds.end());
    std::vector<std::int32_t> candidates;
    for (std::int32_t t = 0; t < vocabSize; ++t) {
        if (!special.count(t)) {
            candidates.push_back(t);
        }
    }
    if (candidates.empty()) {
        throw InvalidArgument("head survey: probe: every id of the vocabulary is special");
    }
    // S7: seeded with seed + repeat (unsigned, so mod 2^64).
    SplitMix64 random(seed + static_cast<std::uint64_t>(repeat));
    std::vector<std::int32_t> seq{bos};
    for (int i = 0; i < length; ++i) {
        seq.push_back(candidates[static_cast<std::size_t>(random.next() % candidates.size())]);
    }
    const std::vector<std::int32_t> once(seq.begin() + 1, seq.end());
    seq.insert(seq.end(), once.begin(), once.end());
    return seq;
}

}  // namespace attnscope::analysis
