// What each head does over a corpus (issue 18): Clark's surface statistics, entropy, the
// TransformerLens detectors, the repeated-token probe, sinks, Voita's positional and rare-word
// heads, head-to-head Jensen–Shannon distances and their classical MDS map. The rules are
// S1–S12 of tests/reference/survey_reference.py, the independent reference this code is
// checked against; comments in the sources cite them by number.
//
// Usage:
//   SurveyAccumulator acc(nLayers, nHeads, options);
//   for (each sentence, in corpus order) acc.add(surveySentence(model, result, options));
//   HeadSurvey s = acc.finish();            // no probe; surveyCorpus adds it
// or surveyCorpus(model, sentences, options, executor) for the whole thing.
//
// Threads: surveySentence is pure and const on the model, so shares may run it concurrently;
// sums are then taken in sentence order by one accumulator, so the result does not depend on
// the number of shares. No Qt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/analysis/relative_position.h"
#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/cancel.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

struct SurveyOptions {
    std::vector<std::int32_t> specialIds;  // S1 special (S4 special mass, S9/S10 left out)
    std::vector<std::int32_t> punctIds;    // S4 punct; empty: NaN everywhere
    std::vector<std::int32_t> periodIds;   // S4 period; empty: NaN everywhere
    double sinkEps = 0.3;                  // S8, strict alpha > eps
    double positionalThreshold = kVoitaPositionalThreshold;  // S9
    int rareTop = 500;                                       // S10's K
    int probeRepeats = 4;                                    // S7 (0: no probe)
    int probeLength = 10;                                    // S7 N, >= 2
    std::uint64_t probeSeed = 0;
    // S7 BOS of the probe; without it the tokenizer's BOS, else the corpus's first id.
    std::optional<std::int32_t> bosId;
    std::size_t shares = 1;  // parallel shares of surveyCorpus, each taking the next sentence
    CancelToken cancel;      // checked before every pass
    ProgressFn progress;     // fraction of passes done, from any thread: must be thread-safe
    // After each corpus sentence's pass (not the probe's), on its share's thread: one caller
    // per share at a time, so per-share state needs no lock. May be empty.
    std::function<void(std::size_t share, std::size_t sentence, const forward::ForwardResult&)>
        passed;
};

// Score names, exactly survey_reference.SCORES, in its order.
const std::vector<std::string>& surveyScoreNames();

// The S3-averaged scores (survey_reference.MEAN_SCORES), a prefix of surveyScoreNames().
const std::vector<std::string>& surveyMeanScoreNames();

// The unit of a score as the files name it (survey_export.h), e.g. "nats" for entropy and
// "fraction of sentences (0-1; Gu et al. print 100x)" for sink_rate. InvalidArgument for a name
// not in surveyScoreNames().
std::string surveyScoreUnit(const std::string& name);

// One sentence's contribution, before any corpus-level rule. Heads k = layer * nHeads + head.
struct SentenceSurvey {
    std::vector<std::int32_t> ids;
    std::vector<double> means;  // [meanScores * K], name-major; NaN = undefined here (S3)
    std::vector<double> js;     // [K * K] S11 summed row JS of this sentence; NaN = no shared row
    std::vector<RelativePositionAccumulator> positions;  // [K] S9 counts of this sentence
    std::vector<int> rareKey;  // [K] S10 the head's key position, -1 when none or ineligible
};

// S2–S11 for one sentence from given maps: maps[k] is head k's [n, n] map (row-major floats),
// allowed [n, n] (1 = key allowed). InvalidArgument for inconsistent sizes.
SentenceSurvey surveyMaps(const std::vector<const float*>& maps, int n,
                          const std::vector<std::int32_t>& ids, const BoolMatrix& allowed,
                          const SurveyOptions& options);

// The same for a forward result: its recorded maps, or recomputeHead when the map budget
// dropped them.
SentenceSurvey surveySentence(const model::Model& model, const forward::ForwardResult& result,
                              const SurveyOptions& options);

struct HeadSurvey {
    int nLayers = 0;
    int nHeads = 0;
    // name -> [nLayers * nHeads] (positional_offset as a double); NaN = undefined.
    std::map<std::string, std::vector<double>> scores;
    std::vector<double> distance;        // [N * N] S11, N = nLayers * nHeads
    std::vector<double> mds;             // [N * 2] S12; empty when a distance is undefined
    std::vector<double> mdsEigenvalues;  // [2]
    std::string mdsError;                // why mds is empty
    std::size_t sentences = 0;           // surveyed
    std::size_t skipped = 0;             // empty sentences (no pass)
    // S10: sentences whose rarest token lies outside the corpus's rareTop most frequent ids, and
    // why rare_top1 / rare_top2 are undefined for every head (empty when some head has them).
    std::size_t rareSentences = 0;
    std::string rareError;
    // S7: the probe's sequences [bos, t_1..t_N, t_1..t_N] in repeat order; empty without a probe.
    std::vector<std::vector<std::int32_t>> probeSequences;

    const std::vector<double>& score(const std::string& name) const;
};

// Sums in the order sentences are added (S3, S9, S10, S11).
class SurveyAccumulator {
public:
    SurveyAccumulator(int nLayers, int nHeads, const SurveyOptions& options);

    void add(const SentenceSurvey& sentence);

    // Appends other's sentences after this one's. Equal to adding them one by one up to the
    // rounding of the sums' order.
    void merge(const SurveyAccumulator& other);

    std::size_t sentences() const { return m_sentences; }

    // Every score but probe_induction (NaN here), the distance matrix and its MDS.
    HeadSurvey finish() const;

private:
    int m_nLayers = 0;
    int m_nHeads = 0;
    SurveyOptions m_options;
    std::size_t m_sentences = 0;
    std::vector<double> m_sums;  // [meanScores * K]
    std::vector<std::int64_t> m_counts;
    std::vector<double> m_jsSums;  // [K * K]
    std::vector<std::int64_t> m_jsCounts;
    std::vector<RelativePositionAccumulator> m_positions;  // [K]
    std::map<std::int32_t, std::int64_t> m_frequency;      // S10 f(id) over every sentence
    std::vector<std::vector<std::int32_t>> m_ids;          // per sentence, for S10
    std::vector<std::vector<int>> m_rareKeys;              // per sentence [K]
};

// S12: classical MDS of a finite symmetric [n * n] matrix. InvalidArgument when an entry is not
// finite. coords [n * dims], eigenvalues [dims] (descending).
void classicalMds(const std::vector<double>& distance, int n, int dims, std::vector<double>& coords,
                  std::vector<double>& eigenvalues);

// S7: one probe sequence [bos, t_1..t_N, t_1..t_N].
std::vector<std::int32_t> probeTokens(int vocabSize, const std::vector<std::int32_t>& specialIds,
                                      std::uint64_t seed, int repeat, int length, std::int32_t bos);

// Runs every sentence's plain pass (the model's default mask) on `run`'s shares, sums them in
// sentence order, and runs the probe for causal models. Cancelled when cancelled;
// InvalidArgument for an id outside the vocabulary, a sentence longer than the model's
// positions, an empty corpus or a bad option.
HeadSurvey surveyCorpus(const model::Model& model,
                        const std::vector<std::vector<std::int32_t>>& sentences,
                        const SurveyOptions& options, const ShareExecutor& run);

}  // namespace attnscope::analysis
