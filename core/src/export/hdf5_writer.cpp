#include "attnscope/export/hdf5_writer.h"

#include <algorithm>
#include <mutex>
#include <system_error>

#include "attnscope/base/error.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;

namespace {

void writeTokens(const Writer& w, const ExportTokens& tokens) {
    w.strings("tokens", tokens.text);
    const hsize_t n = tokens.text.size();
    std::vector<std::int64_t> flat;
    for (const auto& [b, e] : tokens.offsets) {
        flat.push_back(b);
        flat.push_back(e);
    }
    w.dataset("offsets", H5T_NATIVE_INT64, {n, 2}, flat.data());
}

void writeResult(const Writer& w, const forward::ForwardResult& r) {
    const auto n = static_cast<hsize_t>(r.nTokens);
    const auto layers = static_cast<hsize_t>(r.nLayers);
    const auto heads = static_cast<hsize_t>(r.nHeads);
    const std::vector<std::int64_t> ids(r.tokenIds.begin(), r.tokenIds.end());
    w.dataset("token_ids", H5T_NATIVE_INT64, {n}, ids.data());
    w.dataset("attention", H5T_NATIVE_FLOAT, {layers, heads, n, n}, r.probs.data(), {1, 1, n, n});
    w.dataset("logits", H5T_NATIVE_FLOAT, {layers, heads, n, n}, r.logits.data(), {1, 1, n, n});
    w.dataset("mask", H5T_NATIVE_UINT8, {n, n}, r.allowed.data());
    if (!r.windowedLayers.empty()) {
        // Gemma 2/3: the local layers' mask, and which layers used it (1) instead of "mask".
        w.dataset("mask_windowed", H5T_NATIVE_UINT8, {n, n}, r.windowedAllowed.data());
        w.dataset("windowed_layers", H5T_NATIVE_UINT8, {layers}, r.windowedLayers.data());
    }
    w.dataset("entropy", H5T_NATIVE_FLOAT, {layers, heads, n}, r.entropy.data());
    w.dataset("hidden", H5T_NATIVE_FLOAT, {n, static_cast<hsize_t>(r.hidden.cols())},
              r.hidden.data());
}

// Fills the open `file`; messages name `target`, the file the user asked for.
void writeFile(hid_t file, const fs::path& target, const forward::ForwardResult& result,
               const ExportTokens& tokens, const ExportMetadata& meta) {
    const std::string name = target.string();
    const Writer w(file, name);
    writeTokens(w, tokens);
    writeResult(w, result);
    // An ablated pass's maps look like any other's: the file must say what was ablated.
    std::string ablations;
    for (const forward::HeadAblation& a : result.interventions.ablations) {
        ablations += (ablations.empty() ? "" : ", ") + forward::describe(a);
    }
    w.runAttributes({{"model", meta.model},
                     {"model_type", meta.modelType},
                     {"mask_kind", result.maskKind},
                     {"ablations", ablations},
                     {"text", meta.text}});
    w.int64Attributes({{"num_layers", result.nLayers}, {"num_heads", result.nHeads}});
    std::vector<float> scales = result.scales;
    if (std::all_of(scales.begin(), scales.end(), [&](float s) { return s == scales.front(); })) {
        scales.resize(1);
    }
    w.numberAttribute<float>("scale", H5T_NATIVE_FLOAT, scales);
}

}  // namespace

void writeInterchangeFile(const fs::path& path, const forward::ForwardResult& result,
                          const ExportTokens& tokens, const ExportMetadata& metadata) {
    const auto n = static_cast<std::size_t>(result.nTokens);
    if (tokens.text.size() != n || tokens.offsets.size() != n) {
        throw InvalidArgument(path.string() + ": " + std::to_string(tokens.text.size()) +
                              " token strings and " + std::to_string(tokens.offsets.size()) +
                              " offsets for " + std::to_string(n) + " tokens");
    }
    if (!result.mapsRecorded) {
        throw InvalidArgument(path.string() +
                              ": the attention maps of this sentence were not kept (they exceed "
                              "the memory budget); raise the budget or use attnscope-cli "
                              "attention, which always records them");
    }
    writeHdf5Atomically(path, [&](hid_t file) { writeFile(file, path, result, tokens, metadata); });
}

}  // namespace attnscope::exporting
