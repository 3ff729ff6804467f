// Training checkpoints as a series (issue 33): Pythia's step1000, step2000, … folders (or any
// list of model folders of one architecture), each run on the same token ids, with per-head
// statistics against the step — how heads form and saturate over training.
//
// Per head, over the sequences given (fully masked rows left out):
//   meanEntropy      mean row entropy, nats (methods.md §8.1)
//   maxAbsLogit      largest |logit| the softmax saw over allowed cells (§8.2)
//   sinkMass         first-token mass (1/(n−1))·Σ_{i≥1} A[i,0], row 0 left out (§11.3); the
//                    mean of the sequences' values (sequences of one token have none)
//   prevTokenScore   TransformerLens's previous-token detector, "mul" measure, no exclusions:
//                    Σ_i A[i,i−1] / Σ_ij A[i,j] over all rows (§11.1); mean over sequences
//   oneHotShare      share of rows with a largest weight >= kOneHotWeight (saturation.h)
//   inductionProbe   the head survey's repeated-random-token probe S7 (methods.md §11.2): on
//                    [BOS, r_1..r_N, r_1..r_N], the mean over i = N+1..2N of A[i][i−N+1], mean
//                    over the repeats; the model's default mask. Not on the sequences above: on
//                    probe sequences drawn once for the whole series (drawInductionProbe), so
//                    every checkpoint reads the same ones. NaN for bidirectional models and
//                    without a probe. Defaults as the survey's: 4 repeats of N = 10, seed 0.
// Pure functions; thread-compatible.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/analysis/saturation.h"
#include "attnscope/base/cancel.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

struct SeriesCheckpoint {
    std::filesystem::path path;
    std::optional<std::int64_t> step;  // from the folder's name, when it carries one
    std::string label;                 // the folder's name: "step1000"
};

// The step a folder's name gives: "step1000", "step-1000", "global_step1000" and
// "checkpoint-1000" (Hugging Face's Trainer) give 1000; nullopt otherwise.
std::optional<std::int64_t> stepOfName(const std::string& name);

// The checkpoints under `parent`: its subfolders whose names give a step, by step. Throws
// InvalidArgument naming the folder when it is not one or has fewer than two such subfolders,
// or two give the same step.
std::vector<SeriesCheckpoint> seriesFromFolder(const std::filesystem::path& parent);

// `paths` in the order given, each labelled by its name and step (when its name gives one).
// Throws InvalidArgument for fewer than two paths.
std::vector<SeriesCheckpoint> seriesFromPaths(const std::vector<std::filesystem::path>& paths);

// Throws InvalidArgument naming `what` unless `other` has the layers, heads, key/value heads
// and vocabulary of `first` (a series compares the same heads on the same ids).
void checkSameShape(const model::ModelSpec& first, const model::ModelSpec& other,
                    const std::string& what);

struct HeadTrainingStats {
    float meanEntropy = 0;
    float maxAbsLogit = 0;
    float sinkMass = 0;
    float prevTokenScore = 0;
    float oneHotShare = 0;
    float inductionProbe = std::numeric_limits<float>::quiet_NaN();
};

// S7's settings (head_survey.h's SurveyOptions has the same, with the same defaults).
struct InductionProbeOptions {
    int repeats = 4;  // 0: no probe (NaN)
    int length = 10;  // N, >= 2; 2N + 1 must fit the model's positions
    std::uint64_t seed = 0;
    // The BOS; without it the first checkpoint's BOS role, else the first sequence's first id.
    std::optional<std::int32_t> bosId;
    // Left out of the draw, with the first checkpoint's special roles ([CLS], [SEP], BOS, EOS,
    // pad, mask, unk) as far as its vocabulary tells them.
    std::vector<std::int32_t> specialIds;
};

// The probe sequences of a series: probeTokens's [BOS, r_1..r_N, r_1..r_N] in repeat order.
struct InductionProbe {
    int length = 0;
    std::vector<std::vector<std::int32_t>> sequences;  // empty: no probe
};

// S7's sequences for the series whose first checkpoint is `first` (its vocabulary and
// positions; `sequences` its input, for the BOS fallback). Empty for a bidirectional model or
// no repeats. InvalidArgument for repeats < 0, N < 2, a probe longer than the positions, or a
// BOS outside the vocabulary.
InductionProbe drawInductionProbe(const model::Model& first,
                                  const std::vector<std::vector<std::int32_t>>& sequences,
                                  const InductionProbeOptions& options = {});

// Accumulates the statistics of one checkpoint pass by pass.
class TrainingStatsAccumulator {
public:
    // `r` a pass of `model` (whose heads are recomputed when r kept no maps).
    void add(const model::Model& model, const forward::ForwardResult& r);

    // The induction probe of `model` on `probe`'s sequences (nothing for a bidirectional model
    // or an empty probe: inductionProbe stays NaN). InvalidArgument when they do not fit it.
    void addProbe(const model::Model& model, const InductionProbe& probe,
                  const CancelToken& cancel = {});

    // [layer][head]; empty before the first add.
    std::vector<HeadTrainingStats> result() const;

private:
    // Entropy, max |logit| and one-hot rows are the saturation lab's, pooled over rows.
    SaturationAccumulator m_rows;
    // Per head ([layer][head]), summed over sequences: first-token mass (sequences with two
    // tokens or more) and previous-token score.
    std::vector<double> m_sink;
    std::vector<double> m_prev;
    int m_sequences = 0;
    int m_sinkSequences = 0;
    std::vector<double> m_induction;  // per head; empty: no probe ran
};

// One checkpoint on every sequence of `sequences` with `options` (maps are recomputed head by
// head when the options' budget keeps none), and its induction probe on `probe` (cancelled by
// the options' token).
std::vector<HeadTrainingStats> trainingStats(
    const model::Model& model, const std::vector<std::vector<std::int32_t>>& sequences,
    const forward::ForwardOptions& options, const InductionProbe& probe = {});

}  // namespace attnscope::analysis
