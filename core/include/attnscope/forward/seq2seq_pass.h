// One forward pass of an encoder-decoder model (T5, BART, mBART, Marian): the encoder over the
// source, then the decoder over its input (teacher forcing: the start token and the target's
// tokens), each decoder layer attending causally to the target so far and, through
// cross-attention, to the encoder's output. Records every head of all three kinds.
//
// The stacks are run by the one-stack pass's own code (forward_pass.h), so each kind's record
// has the same form and meaning as a ForwardResult of an encoder or a decoder; cross-attention's
// maps are [target tokens, source tokens] (ForwardResult::nKeys). Thread-safe on a const Model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/forward/forward_pass.h"

namespace attnscope::forward {

enum class AttentionKind { Encoder, Decoder, Cross };

// "encoder", "decoder", "cross" (export dataset prefixes, CLI values) and their titles.
std::string attentionKindName(AttentionKind kind);
std::string attentionKindTitle(AttentionKind kind);  // "Encoder self-attention", ...

struct Seq2SeqInput {
    std::vector<std::int32_t> sourceIds;
    // The decoder's input, as given: its first token is normally the model's decoder start
    // token (decoderInputIds adds it).
    std::vector<std::int32_t> decoderIds;
    int sourcePadding = 0;  // the last N source tokens are padding: no query may see them
};

struct Seq2SeqResult {
    ForwardResult encoder;  // [encoder layers, heads, S, S] over the source
    ForwardResult decoder;  // [decoder layers, heads, T, T] over the decoder input, causal
    ForwardResult cross;    // [decoder layers, heads, T, S]: decoder queries, source keys

    const ForwardResult& of(AttentionKind kind) const;
};

// The decoder input for target tokens: the model's decoder start token, then the tokens.
// InvalidArgument when the model is not an encoder-decoder or has no start token.
std::vector<std::int32_t> decoderInputIds(const model::Model& model,
                                          const std::vector<std::int32_t>& targetIds);

// `options` applies as follows: mask to the decoder's self-attention (ModelDefault: causal);
// the encoder sees the whole source and cross-attention every source token, both without
// the source's padding; scale to all three kinds; cancel and progress over both stacks (the
// encoder is the first share of the layers). Maps are always recorded (the map budget is
// not applied) and interventions are refused (InvalidArgument), as are empty inputs, ids
// outside the vocabulary and inputs longer than the model's positions.
// `encoder`, when given, is this model's encoder pass over input.sourceIds with the same
// padding and scale (the encoder of an earlier Seq2SeqResult): it is reused instead of run
// again, as greedy decoding does at every step; InvalidArgument when its tokens differ.
Seq2SeqResult runSeq2Seq(const model::Model& model, const Seq2SeqInput& input,
                         const ForwardOptions& options = {},
                         const ForwardResult* encoder = nullptr);

}  // namespace attnscope::forward
