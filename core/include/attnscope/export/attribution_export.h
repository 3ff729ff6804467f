// The HDF5 file of one sentence's attribution maps (issue 19; attnscope-cli attribution, the
// app's File ▸ Export). Its dataset names, shapes and ids are those tests/reference/
// attribution_reference.py writes into its safetensors, flat at the root, so the two files
// compare name by name. h5py-readable:
//   input_ids                  int64   [n]
//   tokens                     vlen UTF-8 string [n]
//   attention                  float32 [L, H, n, n]   A3, always (the raw Attribution)
//   norm_head                  float32 [L, H, n, n]   A5
//   norm_layer                 float64 [L, n, n]      A5
//   transformed_norm           float64 [L, H, n]      A5, ‖f^h(x_j)‖ per key j
//   rollout                    float64 [L, n, n]      A6, cumulative
//   flow, flow_raw             float64 [L, n, n]      A7, cumulative
//   alti                       float64 [L, n, n]      A11, cumulative
//   alti_layer                 float64 [L, n, n]      A11
//   alti_reconstruction_error  float64 [L]            A10
//   value_zeroing              float64 [L, n, n]      A13
//   value_zeroing_raw          float64 [L, n, n]      A12
// Each dataset's attributes: method, rule, cumulative (int64 0/1), dims ("layer, head, query,
// key", ...; rows are query positions, columns key positions), description. Root attributes:
// model, model_type, mask_kind, text, methods ("raw,norm,..." in the order above),
// attnscope_version (strings), num_layers, num_heads, num_tokens (int64).
// Written by output_file.h's rules (temporary file renamed into place). InvalidArgument naming
// the file when the attributions disagree with each other or with the tokens; Error on a write
// failure. Thread-safe (HDF5 calls are serialized).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/analysis/attribution.h"

namespace attnscope::exporting {

struct AttributionFileInfo {
    std::string model;                   // the model folder, as given
    std::string modelType;               // config.json's model_type
    std::string maskKind;                // the pass's ForwardResult::maskKind
    std::string text;                    // the sentence; "" when token ids were given
    std::vector<std::int32_t> tokenIds;  // [n]
    std::vector<std::string> tokens;     // [n] vocabulary pieces
};

// `attributions`: one per method, any order, one of them AttributionMethod::Raw (it gives
// /attention); every one of the same pass (the same layers, heads and tokens).
void writeAttributionHdf5(const std::filesystem::path& path,
                          const std::vector<analysis::Attribution>& attributions,
                          const AttributionFileInfo& info);

}  // namespace attnscope::exporting
