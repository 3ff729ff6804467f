// Files of one ablation (attnscope-cli ablate --out): every measure analysis::measureAblation
// returned, at full precision (the terminal shows 6 significant digits).
//
//  * a CSV table, one header for every kind of row, `record` saying which:
//      record, layer, head, head_ablated, js, position, token, target, target_id, clean,
//      ablated, delta, kl
//    - "head": one per query head, layer-major: head_ablated (1 for the heads the ablation
//      itself hit, which the printed list leaves out) and js (nan where no row is left to
//      compare, e.g. a zero-ablated head).
//    - "masked" (masked LM): one per --mask position: position, token (the original),
//      target and target_id (the original token), clean / ablated = log p of it, delta.
//    - "masked_text" (masked LM): the same for a mask token typed into the text; target is the
//      clean pass's top prediction.
//    - "nll" (causal LM): clean, ablated, delta = the mean next-token NLL.
//    - "next" (causal LM): one per position: token, target / target_id = the clean top token,
//      clean / ablated = its probability, delta, kl = KL(clean ‖ ablated).
//    - "logit_diff" (causal LM, when asked): position, token, target "A - B", clean, ablated,
//      delta of l_A − l_B.
//    Columns a row does not use are empty; numbers are written exactly (csv_writer.h).
//  * an .h5 file (h5py-readable): int64 `token_ids` [n] (the input as fed, masks in place),
//    UTF-8 `tokens` [n] (the original tokens); float64 `js` and int8 `head_ablated`
//    [layers, heads]; masked LM: `masked/position`, `masked/target_id` int64, `masked/in_text`
//    int8, `masked/logp_clean`, `masked/logp_ablated`, `masked/delta_logp` float64 [targets];
//    causal LM: `causal/top_clean_id` int64 and `causal/p_top_clean`, `causal/p_top_ablated`,
//    `causal/delta_p_top`, `causal/kl` float64 [n]. Root attributes: model, objective
//    ("masked LM" / "causal LM" / "none"), kind, ablations (e.g. "1-0 (zero), 1-g1 (zero)"),
//    mean_corpus, attnscope_version (strings); num_layers, num_heads (int64); causal LM:
//    nll_clean, nll_ablated, delta_nll (float64); with a logit difference:
//    logit_diff_position, logit_diff_a, logit_diff_b (int64), logit_diff_clean,
//    logit_diff_ablated, logit_diff_delta (float64).
// Written by output_file.h's rules (temporary file renamed into place); errors throw Error
// naming the file. Thread-safe (HDF5 calls are serialized).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "attnscope/analysis/ablation_effects.h"

namespace attnscope::exporting {

struct AblationFileInfo {
    std::string model;       // the model folder, as given
    std::string objective;   // "masked LM", "causal LM" or "none"
    std::string kind;        // "zero", "mean", "sink"
    std::string ablations;   // what was ablated, as printed
    std::string meanCorpus;  // mean kind: the sentence file, or "the input itself"; else empty
    std::vector<std::int32_t> tokenIds;              // [n] as fed to the model (masks in place)
    std::vector<std::string> tokens;                 // [n] readable labels of the original tokens
    std::vector<bool> headAblated;                   // [layers * heads], headIndex order
    std::vector<int> textMasks;                      // positions holding a mask token in the text
    std::function<std::string(std::int32_t)> piece;  // readable label of a vocabulary id
};

void writeAblationCsv(const std::filesystem::path& path, const analysis::AblationEffects& effects,
                      const AblationFileInfo& info);

void writeAblationH5(const std::filesystem::path& path, const analysis::AblationEffects& effects,
                     const AblationFileInfo& info);

}  // namespace attnscope::exporting
