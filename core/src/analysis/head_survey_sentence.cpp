// One sentence's survey statistics (rules S2–S11 of tests/reference/survey_reference.py): the
// per-sentence means that S3 then averages over the corpus, S9's counts, S10's key of each head
// and S11's Jensen–Shannon matrix.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>

#include "attnscope/analysis/head_survey.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"

namespace attnscope::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// S11: Clark's head_distances.py smooths every row as 0.001 / n + 0.999 A before the JS.
constexpr double kJsSmoothing = 0.001;

// Index of each S3 score in SentenceSurvey::means (surveyMeanScoreNames() order).
enum Mean : int {
    First,
    Last,
    Self,
    Prev,
    Next,
    Punct,
    Period,
    Special,
    Entropy,
    EntropyNorm,
    TlFirst,  // 18 detector scores: detector-major, then mul/abs/abs_tl, then with/without BOS
    FirstMass = TlFirst + 18,
    SinkRate,
    MeanCount
};

// Python's round(x, 3): correctly rounded from the exact binary value, as glibc's printf is.
double roundTo3(double x) {
    char text[64];
    std::snprintf(text, sizeof text, "%.3f", x);
    return std::strtod(text, nullptr);
}

double plogp(double p) {
    return p > 0 ? p * std::log(p) : 0.0;
}

// Mean of values over kept rows; NaN when none (S3 "undefined").
struct RowMean {
    double sum = 0;
    int count = 0;

    void add(double v) {
        sum += v;
        ++count;
    }

    double value() const { return count > 0 ? sum / count : kNaN; }
};

struct Sentence {
    int n = 0;
    const std::vector<std::int32_t>& ids;
    const BoolMatrix& allowed;
    std::vector<int> allowedKeys;       // [n] m_i of S5
    std::vector<std::uint8_t> special;  // [n]
    std::vector<std::uint8_t> punct;    // [n]
    std::vector<std::uint8_t> period;   // [n]
    std::vector<double> templates[3];   // S6 prev, dup, induction [n * n]
};

std::vector<std::uint8_t> membership(const std::vector<std::int32_t>& ids,
                                     const std::vector<std::int32_t>& set) {
    const std::set<std::int32_t> s(set.begin(), set.end());
    std::vector<std::uint8_t> out(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        out[i] = s.count(ids[i]) ? 1 : 0;
    }
    return out;
}

// S6 templates; position 0 plays BOS.
void buildTemplates(Sentence& s) {
    const int n = s.n;
    for (auto& t : s.templates) {
        t.assign(static_cast<std::size_t>(n) * n, 0.0);
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const std::size_t c = static_cast<std::size_t>(i) * n + j;
            s.templates[0][c] = j == i - 1 ? 1.0 : 0.0;
            s.templates[1][c] = (j < i && s.ids[i] == s.ids[j]) ? 1.0 : 0.0;
            s.templates[2][c] = (j >= 1 && j <= i && s.ids[j - 1] == s.ids[i]) ? 1.0 : 0.0;
        }
    }
}

// S6 for one head and one template, written to out[0..5] (mul, abs, abs_tl; then _nobos).
void detector(const float* a, const Sentence& s, const std::vector<double>& d, double* out) {
    const int n = s.n;
    for (int bos = 0; bos < 2; ++bos) {
        double total = 0;
        double hit = 0;
        double err = 0;
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                const std::size_t c = static_cast<std::size_t>(i) * n + j;
                if (bos == 1 && j == 0) {
                    // mul zeroes the attention there, abs the difference (TL's abs_diff[:, 0] =
                    // 0): column 0 adds nothing to either, not |0 - D[i][0]| to abs.
                    continue;
                }
                const auto v = static_cast<double>(a[c]);
                total += v;
                hit += v * d[c];
                err += std::abs(v - d[c]);
            }
        }
        err /= n;
        // Layout (mul, abs, abs_tl) x (bos, nobos): index m * 2 + bos.
        out[0 * 2 + bos] = total > 0 ? hit / total : kNaN;
        out[1 * 2 + bos] = 1.0 - err;
        out[2 * 2 + bos] = 1.0 - roundTo3(err);
    }
}

bool rowValid(const float* a, const Sentence& s, int i) {
    // S2: some key allowed and sum_j A[i][j] > 0 (weights are >= 0).
    if (s.allowedKeys[static_cast<std::size_t>(i)] == 0) {
        return false;
    }
    double sum = 0;
    for (int j = 0; j < s.n; ++j) {
        sum += a[static_cast<std::size_t>(i) * s.n + j];
    }
    return sum > 0;
}

// S4, S5, S8 for one head: means[name * K + k].
void rowStatistics(const float* a, const std::vector<std::uint8_t>& valid, const Sentence& s,
                   const SurveyOptions& options, double* out) {
    const int n = s.n;
    RowMean m[MeanCount];
    for (int i = 0; i < n; ++i) {
        if (!valid[static_cast<std::size_t>(i)]) {
            continue;
        }
        const float* row = a + static_cast<std::size_t>(i) * n;
        m[First].add(row[0]);
        m[Last].add(row[n - 1]);
        m[Self].add(row[i]);
        m[Prev].add(i > 0 ? row[i - 1] : 0.0);
        m[Next].add(i < n - 1 ? row[i + 1] : 0.0);
        double punct = 0, period = 0, special = 0, h = 0;
        for (int j = 0; j < n; ++j) {
            const double v = row[j];
            punct += s.punct[static_cast<std::size_t>(j)] ? v : 0.0;
            period += s.period[static_cast<std::size_t>(j)] ? v : 0.0;
            special += s.special[static_cast<std::size_t>(j)] ? v : 0.0;
            h -= plogp(v);
        }
        m[Punct].add(punct);
        m[Period].add(period);
        m[Special].add(special);
        m[Entropy].add(h);
        const int mi = s.allowedKeys[static_cast<std::size_t>(i)];
        if (mi >= 2) {
            m[EntropyNorm].add(h / std::log(static_cast<double>(mi)));
        }
        if (i >= 1) {
            m[FirstMass].add(row[0]);
        }
        if (s.allowed(i, 0)) {
            m[SinkRate].add(row[0]);  // alpha of S8, thresholded below
        }
    }
    for (int c : {First, Last, Self, Prev, Next, Special, Entropy, EntropyNorm, FirstMass}) {
        out[c] = m[c].value();
    }
    out[Punct] = options.punctIds.empty() ? kNaN : m[Punct].value();
    out[Period] = options.periodIds.empty() ? kNaN : m[Period].value();
    const double alpha = m[SinkRate].value();
    out[SinkRate] = std::isnan(alpha) ? kNaN : (alpha > options.sinkEps ? 1.0 : 0.0);
    if (n < 2) {
        out[FirstMass] = kNaN;  // S8: undefined for n < 2
    }
}

// S10: the candidate j maximising the mean over counted rows that can see j; -1 when none.
int rareKey(const float* a, const std::vector<std::uint8_t>& valid, const Sentence& s) {
    const int n = s.n;
    int best = -1;
    double bestAlpha = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < n; ++j) {
        if (s.special[static_cast<std::size_t>(j)]) {
            continue;
        }
        RowMean alpha;
        for (int i = 0; i < n; ++i) {
            if (valid[static_cast<std::size_t>(i)] && !s.special[static_cast<std::size_t>(i)] &&
                s.allowed(i, j)) {
                alpha.add(a[static_cast<std::size_t>(i) * n + j]);
            }
        }
        if (alpha.count > 0 && alpha.value() > bestAlpha) {
            best = j;
            bestAlpha = alpha.value();
        }
    }
    return best;
}

// S11 (Clark's head_distances.py): the sum over rows valid in both heads of the row JS (nats) of
// the smoothed rows P = s/n + (1 - s) A, s = kJsSmoothing; NaN when no row is. logP / logQ hold
// ln P of every cell. Cells equal in both heads add exactly 0 and are skipped, which makes the
// masked cells of causal maps free.
double pairJs(const float* p, const float* q, const std::vector<double>& logP,
              const std::vector<double>& logQ, const std::vector<std::uint8_t>& validP,
              const std::vector<std::uint8_t>& validQ, int n) {
    const double floor = kJsSmoothing / n;
    double total = 0;
    bool any = false;
    for (int i = 0; i < n; ++i) {
        if (!validP[static_cast<std::size_t>(i)] || !validQ[static_cast<std::size_t>(i)]) {
            continue;
        }
        any = true;
        double sum = 0;
        for (int j = 0; j < n; ++j) {
            const std::size_t c = static_cast<std::size_t>(i) * n + j;
            if (p[c] == q[c]) {
                continue;  // then M == P == Q: both terms are exactly 0
            }
            const double a = floor + (1.0 - kJsSmoothing) * p[c];
            const double b = floor + (1.0 - kJsSmoothing) * q[c];
            const double logM = std::log(0.5 * (a + b));
            sum += a * (logP[c] - logM) + b * (logQ[c] - logM);
        }
        total += 0.5 * sum;
    }
    return any ? total : kNaN;
}

}  // namespace

SentenceSurvey surveyMaps(const std::vector<const float*>& maps, int n,
                          const std::vector<std::int32_t>& ids, const BoolMatrix& allowed,
                          const SurveyOptions& options) {
    if (n < 1 || ids.size() != static_cast<std::size_t>(n) || allowed.rows() != n ||
        allowed.cols() != n || maps.empty()) {
        throw InvalidArgument("head survey: a sentence's maps, ids and mask disagree in size");
    }
    const int k = static_cast<int>(maps.size());
    Sentence s{n,
               ids,
               allowed,
               {},
               membership(ids, options.specialIds),
               membership(ids, options.punctIds),
               membership(ids, options.periodIds),
               {}};
    s.allowedKeys.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        s.allowedKeys[static_cast<std::size_t>(i)] =
            static_cast<int>(allowed.row(i).cast<int>().sum());
    }
    buildTemplates(s);
    SentenceSurvey out;
    out.ids = ids;
    out.means.assign(static_cast<std::size_t>(MeanCount) * k, kNaN);
    out.rareKey.assign(static_cast<std::size_t>(k), -1);
    out.positions.assign(static_cast<std::size_t>(k), RelativePositionAccumulator{});
    std::vector<std::vector<std::uint8_t>> valid(static_cast<std::size_t>(k));
    std::vector<std::vector<double>> logs(static_cast<std::size_t>(k));
    const std::size_t cells = static_cast<std::size_t>(n) * n;
    const std::span<const std::uint8_t> allowedSpan(allowed.data(), cells);
    for (int h = 0; h < k; ++h) {
        const float* a = maps[static_cast<std::size_t>(h)];
        auto& v = valid[static_cast<std::size_t>(h)];
        v.resize(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            v[static_cast<std::size_t>(i)] = rowValid(a, s, i) ? 1 : 0;
        }
        double head[MeanCount];
        rowStatistics(a, v, s, options, head);
        for (int d = 0; d < 3; ++d) {
            detector(a, s, s.templates[d], head + TlFirst + 6 * d);
        }
        if (n < 2) {
            std::fill(head + TlFirst, head + FirstMass, kNaN);  // S6: TL asserts 1 < n
        }
        for (int c = 0; c < MeanCount; ++c) {
            out.means[static_cast<std::size_t>(c) * k + h] = head[c];
        }
        // S9 is relative_position.h's rule: special queries out, first key on ties.
        out.positions[static_cast<std::size_t>(h)].add(std::span<const float>(a, cells), n,
                                                       s.special, allowedSpan);
        out.rareKey[static_cast<std::size_t>(h)] = rareKey(a, v, s);
        auto& lg = logs[static_cast<std::size_t>(h)];
        lg.resize(cells);
        for (std::size_t c = 0; c < cells; ++c) {
            lg[c] = std::log(kJsSmoothing / n + (1.0 - kJsSmoothing) * a[c]);  // S11's ln P
        }
    }
    out.js.assign(static_cast<std::size_t>(k) * k, 0.0);
    for (int x = 0; x < k; ++x) {
        for (int y = x; y < k; ++y) {
            const auto ux = static_cast<std::size_t>(x);
            const auto uy = static_cast<std::size_t>(y);
            const double js =
                pairJs(maps[ux], maps[uy], logs[ux], logs[uy], valid[ux], valid[uy], n);
            out.js[ux * k + uy] = js;
            out.js[uy * k + ux] = js;
        }
    }
    return out;
}

SentenceSurvey surveySentence(const model::Model& model, const forward::ForwardResult& result,
                              const SurveyOptions& options) {
    if (!result.windowedLayers.empty()) {
        // S2-S11 take one mask for all heads (allowed keys, templates, S10's visible keys).
        throw UnsupportedModel("head survey: " + model.spec.modelType +
                               "'s local and global layers use different masks, which the "
                               "survey does not handle yet");
    }
    const int k = result.nLayers * result.nHeads;
    std::vector<Matrix> owned;
    std::vector<const float*> maps(static_cast<std::size_t>(k));
    if (!result.mapsRecorded) {
        owned.reserve(static_cast<std::size_t>(k));
    }
    for (int h = 0; h < k; ++h) {
        const HeadId id{h / result.nHeads, h % result.nHeads};
        if (result.mapsRecorded) {
            maps[static_cast<std::size_t>(h)] = result.attention(id).data();
        } else {
            owned.push_back(forward::recomputeHead(model, result, id, options.cancel).probs);
            maps[static_cast<std::size_t>(h)] = owned.back().data();
        }
    }
    return surveyMaps(maps, result.nTokens, result.tokenIds, result.allowed, options);
}

}  // namespace attnscope::analysis
