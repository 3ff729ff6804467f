// The HDF5 interchange file of an encoder-decoder run (issue 20): the three kinds of attention
// side by side, each in its own group with the tokens of its rows and columns, readable with
// h5py alone. Layout (documented in the README):
//   encoder/  rows and columns: the source tokens
//   decoder/  rows and columns: the decoder input (start token + target shifted right)
//   cross/    rows: the decoder input; columns: the source tokens
//   each group:
//     attention        float32 [layers, heads, rows, cols]   chunked per head
//     logits           float32 [layers, heads, rows, cols]   scaled, before the mask
//     mask             uint8   [rows, cols]                 1 = allowed
//     entropy          float32 [layers, heads, rows]        nats, per query row
//     row_tokens, column_tokens          vlen UTF-8 string [rows] / [cols]
//     row_token_ids, column_token_ids    int64 [rows] / [cols]
//     row_offsets, column_offsets        int64 [rows, 2] / [cols, 2]: code-point spans in
//                                        source_text (source tokens) or target_text (target
//                                        tokens); [0, 0] for specials and for token ids given
//     hidden  float32 [rows, d_model]    encoder/ and decoder/ only: the stack's final states
//     attributes: kind, num_layers, num_heads, scale (one, or one per layer), mask_kind
//   target_tokens, target_token_ids, target_offsets: the target, one token per decoder row
//     (row t's label: the token it produces)
//   root attributes: file_kind "encoder-decoder", model, model_type, source_text, target_text,
//     teacher_forcing (the rule in words), decoder_start_token_id, attnscope_version
// The one-stack file (hdf5_writer.h) is unchanged; a reader tells the two apart by file_kind.
// Written by output_file.h's rules; throws Error naming the file.
#pragma once

#include <filesystem>
#include <string>

#include "attnscope/analysis/seq2seq_analysis.h"

namespace attnscope::exporting {

struct Seq2SeqMetadata {
    std::string model;      // the model folder
    std::string modelType;  // config.json's model_type
    int decoderStartTokenId = 0;
};

// The rule written to the teacher_forcing attribute.
extern const char* const kTeacherForcingRule;

// InvalidArgument (nothing written) when the analysis' tokens do not match its passes.
void writeSeq2SeqInterchangeFile(const std::filesystem::path& path,
                                 const analysis::Seq2SeqAnalysis& analysis,
                                 const Seq2SeqMetadata& metadata);

}  // namespace attnscope::exporting
