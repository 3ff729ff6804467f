#include "attnscope/export/ablation_export.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::AblationEffects;

namespace {

// Effects and info built by hand could disagree with each other; a file must not.
void checkShape(const fs::path& path, const AblationEffects& e, const AblationFileInfo& info) {
    const auto heads = static_cast<std::size_t>(e.nLayers) * static_cast<std::size_t>(e.nHeads);
    const std::size_t n = info.tokenIds.size();
    bool ok = e.nLayers > 0 && e.nHeads > 0 && e.js.size() == heads &&
              info.headAblated.size() == heads && info.tokens.size() == n;
    if (e.causal) {
        const analysis::CausalEffects& c = *e.causal;
        ok = ok && c.kl.size() == n && c.topIds.size() == n && c.pTopClean.size() == n &&
             c.pTopAblated.size() == n && c.deltaPTop.size() == n;
    }
    for (const analysis::MaskedTargetEffect& t : e.masked) {
        ok = ok && t.target.position >= 0 && static_cast<std::size_t>(t.target.position) < n;
    }
    if (!ok) {
        throw InvalidArgument(path.string() + ": ablation effects of " + std::to_string(e.nLayers) +
                              " x " + std::to_string(e.nHeads) + " heads and " + std::to_string(n) +
                              " tokens hold arrays of another size");
    }
}

std::string pieceOf(const AblationFileInfo& info, std::int32_t id) {
    if (info.piece) {
        return info.piece(id);
    }
    std::string out = "#";  // not "#" + to_string: GCC 12 warns of a false overlap (-Wrestrict)
    return out.append(std::to_string(id));
}

bool inText(const AblationFileInfo& info, int position) {
    return std::find(info.textMasks.begin(), info.textMasks.end(), position) !=
           info.textMasks.end();
}

// The rows of the causal LM's measures.
void addCausalRows(CsvWriter& csv, const analysis::CausalEffects& c, const AblationFileInfo& info) {
    const std::string none;
    csv.addRow({std::string("nll"), none, none, none, none, none, none, none, none, c.nllClean,
                c.nllAblated, c.deltaNll, none});
    for (std::size_t i = 0; i < c.kl.size(); ++i) {
        csv.addRow({std::string("next"), none, none, none, none, static_cast<std::int64_t>(i),
                    info.tokens[i], pieceOf(info, c.topIds[i]), std::int64_t{c.topIds[i]},
                    c.pTopClean[i], c.pTopAblated[i], c.deltaPTop[i], c.kl[i]});
    }
    if (c.logitDiff) {
        const analysis::LogitDiffEffect& d = *c.logitDiff;
        const auto at = static_cast<std::size_t>(d.request.position);
        csv.addRow({std::string("logit_diff"), none, none, none, none,
                    std::int64_t{d.request.position},
                    at < info.tokens.size() ? info.tokens[at] : none,
                    pieceOf(info, d.request.a) + " - " + pieceOf(info, d.request.b), none, d.clean,
                    d.ablated, d.delta, none});
    }
}

void writeMaskedH5(const Writer& w, const AblationEffects& e, const AblationFileInfo& info) {
    using Effect = analysis::MaskedTargetEffect;
    w.column("masked/position", e.masked,
             [](const Effect& t) { return std::int64_t{t.target.position}; });
    w.column("masked/target_id", e.masked,
             [](const Effect& t) { return std::int64_t{t.target.originalId}; });
    w.column("masked/in_text", e.masked, [&](const Effect& t) {
        return static_cast<std::int8_t>(inText(info, t.target.position) ? 1 : 0);
    });
    w.column("masked/logp_clean", e.masked, [](const Effect& t) { return t.logpClean; });
    w.column("masked/logp_ablated", e.masked, [](const Effect& t) { return t.logpAblated; });
    w.column("masked/delta_logp", e.masked, [](const Effect& t) { return t.deltaLogp; });
}

void writeCausalH5(const Writer& w, const analysis::CausalEffects& c) {
    const std::vector<hsize_t> dims = {c.kl.size()};
    const std::vector<std::int64_t> top(c.topIds.begin(), c.topIds.end());
    w.dataset("causal/top_clean_id", H5T_NATIVE_INT64, dims, top.data());
    w.dataset("causal/p_top_clean", H5T_NATIVE_DOUBLE, dims, c.pTopClean.data());
    w.dataset("causal/p_top_ablated", H5T_NATIVE_DOUBLE, dims, c.pTopAblated.data());
    w.dataset("causal/delta_p_top", H5T_NATIVE_DOUBLE, dims, c.deltaPTop.data());
    w.dataset("causal/kl", H5T_NATIVE_DOUBLE, dims, c.kl.data());
    w.numberAttribute<double>("nll_clean", H5T_NATIVE_DOUBLE, {c.nllClean});
    w.numberAttribute<double>("nll_ablated", H5T_NATIVE_DOUBLE, {c.nllAblated});
    w.numberAttribute<double>("delta_nll", H5T_NATIVE_DOUBLE, {c.deltaNll});
    if (c.logitDiff) {
        const analysis::LogitDiffEffect& d = *c.logitDiff;
        w.int64Attributes({{"logit_diff_position", d.request.position},
                           {"logit_diff_a", d.request.a},
                           {"logit_diff_b", d.request.b}});
        w.numberAttribute<double>("logit_diff_clean", H5T_NATIVE_DOUBLE, {d.clean});
        w.numberAttribute<double>("logit_diff_ablated", H5T_NATIVE_DOUBLE, {d.ablated});
        w.numberAttribute<double>("logit_diff_delta", H5T_NATIVE_DOUBLE, {d.delta});
    }
}

}  // namespace

void writeAblationCsv(const fs::path& path, const AblationEffects& e,
                      const AblationFileInfo& info) {
    checkShape(path, e, info);
    CsvWriter csv({"record", "layer", "head", "head_ablated", "js", "position", "token", "target",
                   "target_id", "clean", "ablated", "delta", "kl"});
    const std::string none;
    for (int layer = 0; layer < e.nLayers; ++layer) {
        for (int head = 0; head < e.nHeads; ++head) {
            const auto k = static_cast<std::size_t>(headIndex({layer, head}, e.nHeads));
            csv.addRow({std::string("head"), std::int64_t{layer}, std::int64_t{head},
                        std::int64_t{info.headAblated[k] ? 1 : 0}, e.js[k], none, none, none, none,
                        none, none, none, none});
        }
    }
    for (const analysis::MaskedTargetEffect& t : e.masked) {
        const int p = t.target.position;
        csv.addRow({std::string(inText(info, p) ? "masked_text" : "masked"), none, none, none, none,
                    std::int64_t{p}, info.tokens[static_cast<std::size_t>(p)],
                    pieceOf(info, t.target.originalId), std::int64_t{t.target.originalId},
                    t.logpClean, t.logpAblated, t.deltaLogp, none});
    }
    if (e.causal) {
        addCausalRows(csv, *e.causal, info);
    }
    csv.writeFile(path);
}

void writeAblationH5(const fs::path& path, const AblationEffects& e, const AblationFileInfo& info) {
    checkShape(path, e, info);
    writeHdf5Atomically(path, [&](hid_t file) {
        const Writer w(file, path.string());
        const std::vector<std::int64_t> ids(info.tokenIds.begin(), info.tokenIds.end());
        w.dataset("token_ids", H5T_NATIVE_INT64, {ids.size()}, ids.data());
        w.strings("tokens", info.tokens);
        const std::vector<hsize_t> heads = {static_cast<hsize_t>(e.nLayers),
                                            static_cast<hsize_t>(e.nHeads)};
        w.dataset("js", H5T_NATIVE_DOUBLE, heads, e.js.data());
        const std::vector<std::int8_t> ablated(info.headAblated.begin(), info.headAblated.end());
        w.dataset("head_ablated", H5T_NATIVE_INT8, heads, ablated.data());
        if (!e.masked.empty()) {
            writeMaskedH5(w, e, info);
        }
        if (e.causal) {
            writeCausalH5(w, *e.causal);
        }
        w.runAttributes({{"model", info.model},
                         {"objective", info.objective},
                         {"kind", info.kind},
                         {"ablations", info.ablations},
                         {"mean_corpus", info.meanCorpus}});
        w.int64Attributes({{"num_layers", e.nLayers}, {"num_heads", e.nHeads}});
    });
}

}  // namespace attnscope::exporting
