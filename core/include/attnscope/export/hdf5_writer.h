// Writes the HDF5 interchange file: everything one forward pass recorded, readable with h5py
// alone. Layout (documented in the README):
//   tokens      vlen UTF-8 string [n]
//   token_ids   int64   [n]
//   offsets     int64   [n, 2]    code-point span of each token in `text` ([0, 0] for specials)
//   attention   float32 [layers, heads, n, n]   row = query, column = key; chunked per head
//   logits      float32 [layers, heads, n, n]   scaled, before the mask; chunked per head
//   mask        uint8   [n, n]    1 = allowed (the same for every head)
//   entropy     float32 [layers, heads, n]      nats, per query row
//   hidden      float32 [n, d_model]            final hidden states
//   root attributes: model, model_type, num_layers, num_heads, scale (scalar, or one per layer
//   when layers differ), mask_kind, text, attnscope_version
// The file is written by output_file.h's rules (a temporary file renamed into place, devices and
// pipes written through), so a failed export never leaves a half-written file or destroys an
// older one.
// Throws Error naming the file on failure. Calls into HDF5 are serialized (Debian's HDF5 is
// not built thread-safe), so concurrent exports are safe but not parallel.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/forward/forward_result.h"

// (The namespace is "exporting" because "export" is a C++ keyword.)
namespace attnscope::exporting {

struct ExportTokens {
    std::vector<std::string> text;                               // [n] token strings
    std::vector<std::pair<std::int64_t, std::int64_t>> offsets;  // [n] code-point spans
};

struct ExportMetadata {
    std::string model;      // the model folder
    std::string modelType;  // config.json's model_type
    std::string text;       // the input sentence ("" when token ids were given)
};

void writeInterchangeFile(const std::filesystem::path& path, const forward::ForwardResult& result,
                          const ExportTokens& tokens, const ExportMetadata& metadata);

}  // namespace attnscope::exporting
