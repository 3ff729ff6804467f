// Files of a generation (attnscope-cli generate; forward/generation.h):
//  * CSV in long form, one row per step × layer × head × key: step, token_id, token, probability
//    (the chosen token's softmax probability), layer, head, key (0-based position of the key),
//    weight.
//  * HDF5 (h5py-readable): int64 prompt_ids [n], generated [steps], keys [steps] (each step's
//    row length, n + step); float32 probability, sampled_probability [steps], rows
//    [steps, layers, heads, n + steps − 1] (a step's row over its keys, 0 beyond), entropy
//    [steps, layers, heads]; strings tokens [steps]; attributes model, sampler (temperature,
//    top_k, top_p, seed as text), attnscope_version.
// Written by output_file.h's rules; errors throw Error naming the file. Thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/forward/generation.h"

namespace attnscope::exporting {

struct GenerationRun {
    std::string model;
    std::string sampler;              // as the command describes its settings
    std::vector<std::string> pieces;  // [steps] the chosen tokens as text
    const forward::Generation* generation = nullptr;
};

void writeGenerationCsv(const std::filesystem::path& path, const GenerationRun& run);
void writeGenerationHdf5(const std::filesystem::path& path, const GenerationRun& run);

}  // namespace attnscope::exporting
