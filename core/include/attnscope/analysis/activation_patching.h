// Activation patching and path patching (issue 34; methods.md §12.3; Wang et al. 2022, IOI,
// Appendix B; TransformerLens's patching.py): which activations carry the difference between a
// clean and a corrupted prompt of the same token length.
//
// Metric: the logit difference LD = logit[target] − logit[distractor] at the metric position, on
// the model's output logits (after any final soft-cap; the MLM head for the BERT family), and
// the normalised metric (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted) — 1 means the
// patch restores the clean behaviour, 0 the corrupted one; NaN when LD_clean = LD_corrupted. Raw
// values are kept beside it.
//  - Denoising: the corrupted run with one clean activation patched in.
//  - Noising: the clean run with one corrupted activation patched in.
// Every patched run restarts from the run it patches at the patched layer (runForwardFrom), so
// a per-head sweep costs the layers above each head, not whole passes.
//
// Path patching (IOI Appendix B), from sender heads to the queries, keys or values of receiver
// heads. "Original" is the run being patched (the clean one when noising, the corrupted one when
// denoising), "new" the other:
//  1. the original prompt with the senders' outputs z (every position) taken from the new run and
//     every other head's output frozen to its original value; MLPs, norms and everything else
//     recompute. Its receivers' queries, keys or values are saved.
//  2. the original prompt with only those saved inputs patched into the receivers (every
//     position). The metric is read from run 2. A key or value patch acts on the receiver's
//     whole key/value group (grouped-query attention: the model has no per-query-head keys).
// Without receivers, the metric is read from run 1: the senders' effect on the logits through
// MLPs and norms but through no other head.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/base/cancel.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::analysis {

struct PatchingSetup {
    std::vector<std::int32_t> clean;
    std::vector<std::int32_t> corrupted;
    std::int32_t target = 0;
    std::int32_t distractor = 0;
    int position = -1;  // where the metric is read; -1: the last token
};

// The clean and corrupted runs every patched run restarts from, with their logit differences.
struct PatchingBase {
    PatchingSetup setup;              // position resolved
    forward::ForwardOptions options;  // mask, scale and what-ifs every run shares
    std::shared_ptr<const forward::ForwardResult> clean;
    std::shared_ptr<const forward::ForwardResult> corrupted;
    double ldClean = 0;
    double ldCorrupted = 0;

    // (ld − ldCorrupted) / (ldClean − ldCorrupted); NaN when the two are equal.
    double normalised(double ld) const;
};

// Runs the clean and corrupted prompts (recording their activations) under `options`' mask,
// scale and what-ifs (its patches, interventions and progress are not used). Throws
// InvalidArgument for prompts of different or zero length, a target or distractor outside the
// vocabulary or equal to each other, a position outside the prompts, a model without a
// prediction head or an encoder-decoder model; Cancelled.
PatchingBase runPatchingBase(const model::Model& model, PatchingSetup setup,
                             const forward::ForwardOptions& options);

// LD of one run at the setup's position.
double logitDifference(const model::Model& model, const forward::ForwardResult& r,
                       const PatchingSetup& setup);

enum class PatchDirection : std::uint8_t { Denoise, Noise };

// "denoise", "noise".
std::string directionName(PatchDirection direction);

enum class PatchSweep : std::uint8_t { Head, HeadPosition, Residual, AttnOut, MlpOut };

// "head", "head-position", "resid", "attn-out", "mlp-out".
std::string sweepName(PatchSweep sweep);

// One value per patched run: [nLayers][nUnits][nPositions], where units are query heads (Head,
// HeadPosition) or positions (Residual, AttnOut, MlpOut), and nPositions is the token count for
// HeadPosition and 1 otherwise.
struct PatchingGrid {
    PatchSweep sweep = PatchSweep::Head;
    PatchDirection direction = PatchDirection::Denoise;
    int nLayers = 0;
    int nUnits = 0;
    int nPositions = 1;
    std::vector<double> ld;      // raw LD of each patched run
    std::vector<double> metric;  // normalised

    std::size_t index(int layer, int unit, int position = 0) const {
        return (static_cast<std::size_t>(layer) * static_cast<std::size_t>(nUnits) +
                static_cast<std::size_t>(unit)) *
                   static_cast<std::size_t>(nPositions) +
               static_cast<std::size_t>(position);
    }
};

// Every site of the sweep patched alone. Progress: fraction of the runs done.
PatchingGrid patchSweep(const model::Model& model, const PatchingBase& base, PatchSweep sweep,
                        PatchDirection direction, const CancelToken& cancel = {},
                        const ProgressFn& progress = {});

// One path: senders (query heads) to receivers' queries, keys or values (PatchSite Query, Key,
// Value).
struct PathSpec {
    std::vector<HeadId> senders;
    std::vector<HeadId> receivers;  // empty: to the logits
    forward::PatchSite site = forward::PatchSite::Query;
    PatchDirection direction = PatchDirection::Noise;
};

// "0-1,0-2->1-0,1-3:k (noise)": how reports name a path.
std::string describe(const PathSpec& path);

// Parses "SENDERS->RECEIVERS:SITE" (head lists as parseHeadList reads them, SITE q, k or v) or
// "SENDERS->logits"; spaces allowed around the parts. Throws InvalidArgument "path '<text>':
// <reason>" (the text cut to 40 characters). Heads are checked against a model later, by
// pathPatch. The direction is left at `direction`.
PathSpec parsePathSpec(std::string_view text, PatchDirection direction = PatchDirection::Noise);

struct PathResult {
    double ld = 0;
    double metric = 0;
};

// Throws InvalidArgument for no sender, a head outside the model, a receiver not in a layer
// after every sender, a site other than q, k or v; Cancelled.
PathResult pathPatch(const model::Model& model, const PatchingBase& base, const PathSpec& path,
                     const CancelToken& cancel = {});

}  // namespace attnscope::analysis
