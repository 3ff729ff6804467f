// One layer's attention, shared by the forward pass and the on-demand recompute of a single
// head (head_record.h). Both run these functions, so a recomputed head equals the recorded one
// bit for bit. Internal to attnscope_core.
#pragma once

#include <vector>

#include "attnscope/forward/attention_what_if.h"
#include "attnscope/forward/forward_result.h"
#include "attnscope/model/model.h"
#include "attnscope/ops/attention.h"
#include "attnscope/ops/rope.h"

namespace attnscope::forward::detail {

// What every layer's attention shares in one forward pass.
struct AttentionContext {
    Matrix bias;          // [nQueries, nKeys] mask as an additive bias
    ops::RopeTable rope;  // empty without RoPE
    // T5: each head's relative position bias [nQueries, nKeys], and bias + that (what its
    // softmax adds, in the order T5 adds them). Empty for other models.
    std::vector<Matrix> relative;
    std::vector<Matrix> headBias;
    // The QK-norm and soft-cap what-ifs, and the unit-weight norm the Unit QK-norm uses
    // (setWhatIf).
    AttentionWhatIf whatIf;
    ops::Norm unitNorm;
    // Keep q and k as projected before their QK-norm (Projections::qUnnormed), for
    // ForwardResult::rowMaxAbsUnnormed.
    bool keepUnnormed = false;

    const Matrix& biasFor(int head) const {
        return headBias.empty() ? bias : headBias[static_cast<std::size_t>(head)];
    }
};

// Fills ctx.relative and ctx.headBias for a model with a relative position bias (T5), over
// queries and keys at positions 0, 1, ...; does nothing for other models. ctx.bias must be set.
void addRelativeBias(const model::Model& m, AttentionContext& ctx);

// T5's bucket for a key `relative` positions after the query (negative: before), as
// transformers computes it, in float32 like torch, so that borderline distances fall in the
// same bucket.
int relativeBucket(int relative, bool bidirectional, int buckets, int maxDistance);

// Sets ctx's what-ifs for `spec` (and the unit norm, [headDimK] ones, when needed). Throws
// InvalidArgument for a soft-cap that is negative or not finite.
void setWhatIf(const model::ModelSpec& spec, const AttentionWhatIf& whatIf, AttentionContext& ctx);

// Whether the heads' logits are soft-capped under ctx's what-ifs.
bool capsLogits(const model::ModelSpec& spec, const AttentionContext& ctx);

// Position ids of a sequence (RoBERTa skips pads; RoPE models count from 0).
std::vector<int> positionIds(const model::ModelSpec& spec, const std::vector<std::int32_t>& ids);

// A layer's projections for query heads [firstHead, …) and key/value heads [firstKvHead, …).
struct Projections {
    Matrix q;  // [n, heads * headDimK], rotated when the model uses RoPE
    Matrix k;  // [n, kv heads * headDimK], rotated likewise
    Matrix v;  // [n, kv heads * headDimV]
    int firstHead = 0;
    int firstKvHead = 0;
    // With AttentionContext::keepUnnormed on a layer that normalises q and k: both as projected,
    // before the norm, rotated like q and k. Empty otherwise.
    Matrix qUnnormed;
    Matrix kUnnormed;
};

// The whole layer's projections, every head.
Projections project(const model::Model& m, int layer, const Matrix& h, const AttentionContext& ctx);

// Only `head`'s query and its key/value head: a twelfth (or less) of the work, and the same
// bits as project() gives for those columns, since every output of ops::linearRows is its own
// chain of operations and RoPE works head by head.
Projections projectHead(const model::Model& m, int layer, int head, const Matrix& h,
                        const AttentionContext& ctx);

// One query head (reading its key/value head under GQA) into `out`; returns the fully masked
// rows. `p` must hold that head (project or projectHead). The recorded logits include the
// head's relative position bias, when the model has one. When the logits are soft-capped and
// `scaledRowMaxAbs` is given, it receives each row's largest |scaled logit| before the cap
// over the allowed keys ([nQueries]).
std::vector<int> attendHead(const model::ModelSpec& spec, const Projections& p, int head,
                            float scale, const AttentionContext& ctx, ops::AttentionOutputs out,
                            float* scaledRowMaxAbs = nullptr);

// ForwardResult::rowMaxAbsUnnormed of every head of `layer` from its projections `p` (made with
// keepUnnormed): q·kᵀ·scale of the unnormed q and k; on a layer without QK-norm, a copy of
// rowMaxAbsScaled.
void recordUnnormed(const model::ModelSpec& spec, int layer, const Projections& p,
                    const AttentionContext& ctx, float scale, ForwardResult& r);

}  // namespace attnscope::forward::detail
