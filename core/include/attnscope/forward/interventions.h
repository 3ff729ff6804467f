// Interventions on a forward pass: heads ablated after their softmax, before the layer's output
// projection, in their layer only, so later layers see the changed residual stream
// (methods.md §3.1; Michel et al. 2019). Plain values; no model needed to build one.
//
// Kinds, per ablated query head:
//  - Zero: HF `head_mask` semantics. The head's output (probs·V) is 0 and its recorded probs
//    are 0 (rows sum to 0, entropy 0); its logits stay as computed (they are pre-softmax).
//  - Sink: every query row attends only to key 0 (the first token, visible under any causal
//    mask): recorded probs are that one-hot map, entropy 0, and each output row is V row 0.
//  - Mean: every output row is replaced by a fixed vector mu[layer][head] (HeadMeans); the
//    recorded probs and entropy stay as computed.
// A target is one query head, or one key/value group: every query head h with
// h / (nHeads / nKvHeads) == g (HF repeat_kv). Without grouped-query attention a group is one
// head.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/base/head_id.h"
#include "attnscope/base/tensor.h"

namespace attnscope::forward {

enum class AblationKind : std::uint8_t { Zero, Mean, Sink };

// "zero", "mean", "sink".
std::string ablationKindName(AblationKind kind);

struct HeadAblation {
    int layer = 0;
    int target = 0;  // query head, or key/value group when kvGroup
    bool kvGroup = false;
    AblationKind kind = AblationKind::Zero;
};

// "3-7 (zero)", "5-g1 (mean)": how errors and reports name an ablation.
std::string describe(const HeadAblation& a);

// Every head's mean output (context row), [nLayers][nHeads] x headDimV, from computeHeadMeans
// (forward_pass.h) or built by hand.
struct HeadMeans {
    int nLayers = 0;
    int nHeads = 0;
    int headDimV = 0;
    std::vector<float> values;  // [nLayers, nHeads, headDimV]
    std::int64_t rows = 0;      // context rows pooled into each mean

    Eigen::Map<const RowVector> of(HeadId h) const {
        return {values.data() + headIndex(h, nHeads) * headDimV, headDimV};
    }
};

struct Interventions {
    std::vector<HeadAblation> ablations;
    std::shared_ptr<const HeadMeans> means;  // required iff some ablation is Mean

    bool empty() const { return ablations.empty(); }
};

// Parses "3-7,5-g1" (LAYER-HEAD for a query head, LAYER-gGROUP for a key/value group, 0-based,
// comma-separated, spaces allowed), every item of kind `kind`. Throws InvalidArgument naming
// the item. Ranges are checked later, against a model (resolveAblations).
std::vector<HeadAblation> parseAblationList(std::string_view text,
                                            AblationKind kind = AblationKind::Zero);

// The kind each query head gets, [nLayers * nHeads] in [layer][head] order (nullopt: clean).
// Throws InvalidArgument naming the item for a layer, head or group outside the model, a head
// ablated twice (a duplicate, or a head inside an ablated group), a Mean ablation without
// means, or means of another shape. nKvHeads 0 means no grouped-query attention.
std::vector<std::optional<AblationKind>> resolveAblations(const Interventions& interventions,
                                                          int nLayers, int nHeads, int nKvHeads,
                                                          int headDimV);

// The lowest layer with an ablated head; nLayers when none.
int firstAblatedLayer(const std::vector<std::optional<AblationKind>>& resolved, int nLayers,
                      int nHeads);

}  // namespace attnscope::forward
