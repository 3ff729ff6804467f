// The one of three per-kind values (encoder self-attention, decoder self-attention,
// cross-attention) that a kind names: what Seq2SeqResult::of and Seq2SeqAnalysis::of return.
#pragma once

#include "attnscope/forward/seq2seq_pass.h"

namespace attnscope::forward {

template <class T>
const T& byAttentionKind(AttentionKind kind, const T& encoder, const T& decoder, const T& cross) {
    switch (kind) {
        case AttentionKind::Encoder:
            return encoder;
        case AttentionKind::Decoder:
            return decoder;
        case AttentionKind::Cross:
            break;
    }
    return cross;
}

}  // namespace attnscope::forward
