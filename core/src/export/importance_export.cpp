#include "attnscope/export/importance_export.h"

#include <cstdint>
#include <vector>

#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::ImportanceResult;

namespace {

// A result built by hand could disagree with itself; a file must not. The order must be a
// permutation of the units (rank reads it as one).
void checkShape(const fs::path& path, const ImportanceResult& r) {
    const auto units = static_cast<std::size_t>(r.nLayers) * static_cast<std::size_t>(r.nUnits);
    if (r.nLayers <= 0 || r.nUnits <= 0 || r.deltaLoss.size() != units ||
        r.ablatedLoss.size() != units || r.ablatedAccuracy.size() != units ||
        r.order.size() != units) {
        throw InvalidArgument(path.string() + ": importance result of " +
                              std::to_string(r.nLayers) + " x " + std::to_string(r.nUnits) +
                              " units holds arrays of another size");
    }
    std::vector<bool> seen(units, false);
    for (const int u : r.order) {
        if (u < 0 || static_cast<std::size_t>(u) >= units || seen[static_cast<std::size_t>(u)]) {
            throw InvalidArgument(path.string() + ": importance order: unit " + std::to_string(u) +
                                  " is outside [0, " + std::to_string(units) + ") or repeated");
        }
        seen[static_cast<std::size_t>(u)] = true;
    }
}

// rank[u]: 1 for the most important unit (last in the pruning order).
std::vector<std::int64_t> ranks(const ImportanceResult& r) {
    std::vector<std::int64_t> out(r.order.size(), 0);
    for (std::size_t k = 0; k < r.order.size(); ++k) {
        out.at(static_cast<std::size_t>(r.order[k])) =
            static_cast<std::int64_t>(r.order.size() - k);
    }
    return out;
}

// The masked LM's targets as three parallel int64 arrays under masked/.
void writeMasked(const Writer& w, const std::vector<analysis::ImportanceMaskedTarget>& masked) {
    using Target = analysis::ImportanceMaskedTarget;
    w.column("masked/sentence", masked,
             [](const Target& t) { return static_cast<std::int64_t>(t.sentence); });
    w.column("masked/position", masked, [](const Target& t) { return std::int64_t{t.position}; });
    w.column("masked/target_id", masked,
             [](const Target& t) { return std::int64_t{t.originalId}; });
}

}  // namespace

std::string objectiveName(analysis::ImportanceObjective objective) {
    return objective == analysis::ImportanceObjective::CausalLm ? "causal LM" : "masked LM";
}

std::string unitName(const ImportanceResult& result) {
    return result.kvGroups ? "kv group" : "head";
}

void writeImportanceCsv(const fs::path& path, const ImportanceResult& r) {
    checkShape(path, r);
    CsvWriter csv({"record", "layer", "head", "group", "delta_loss", "ablated_loss",
                   "ablated_accuracy", "rank", "fraction", "removed", "loss", "accuracy",
                   "sentence", "position", "target_id"});
    const std::vector<std::int64_t> rank = ranks(r);
    const std::string none;
    for (int layer = 0; layer < r.nLayers; ++layer) {
        for (int unit = 0; unit < r.nUnits; ++unit) {
            const auto u = static_cast<std::size_t>(layer * r.nUnits + unit);
            const CsvValue id = std::int64_t{unit};
            csv.addRow({std::string("unit"), std::int64_t{layer}, r.kvGroups ? none : id,
                        r.kvGroups ? id : none, r.deltaLoss[u], r.ablatedLoss[u],
                        r.ablatedAccuracy[u], rank[u], none, none, none, none, none, none, none});
        }
    }
    for (const analysis::PruningPoint& p : r.pruning) {
        csv.addRow({std::string("pruning"), none, none, none, none, none, none, none, p.fraction,
                    std::int64_t{p.removed}, p.loss, p.accuracy, none, none, none});
    }
    for (const analysis::ImportanceMaskedTarget& t : r.masked) {
        csv.addRow({std::string("masked"), none, none, none, none, none, none, none, none, none,
                    none, none, static_cast<std::int64_t>(t.sentence), std::int64_t{t.position},
                    std::int64_t{t.originalId}});
    }
    csv.writeFile(path);
}

void writeImportanceH5(const fs::path& path, const ImportanceResult& r,
                       const ImportanceRunInfo& info) {
    checkShape(path, r);
    writeHdf5Atomically(path, [&](hid_t file) {
        const Writer w(file, path.string());
        const std::vector<hsize_t> dims = {static_cast<hsize_t>(r.nLayers),
                                           static_cast<hsize_t>(r.nUnits)};
        w.dataset("delta_loss", H5T_NATIVE_DOUBLE, dims, r.deltaLoss.data());
        w.dataset("ablated_loss", H5T_NATIVE_DOUBLE, dims, r.ablatedLoss.data());
        w.dataset("ablated_accuracy", H5T_NATIVE_DOUBLE, dims, r.ablatedAccuracy.data());
        const std::vector<std::int64_t> order(r.order.begin(), r.order.end());
        w.dataset("order", H5T_NATIVE_INT64, {order.size()}, order.data());
        using Point = analysis::PruningPoint;
        w.column("pruning/fraction", r.pruning, [](const Point& p) { return p.fraction; });
        w.column("pruning/removed", r.pruning,
                 [](const Point& p) { return std::int64_t{p.removed}; });
        w.column("pruning/loss", r.pruning, [](const Point& p) { return p.loss; });
        w.column("pruning/accuracy", r.pruning, [](const Point& p) { return p.accuracy; });
        if (!r.masked.empty()) {
            writeMasked(w, r.masked);
        }
        w.runAttributes({{"model", info.model},
                         {"corpus", info.corpus},
                         {"objective", objectiveName(r.objective)},
                         {"kind", forward::ablationKindName(r.kind)},
                         {"units", unitName(r)}});
        w.numberAttribute<std::uint64_t>("seed", H5T_NATIVE_UINT64, {r.seed});
        w.numberAttribute<double>("mask_fraction", H5T_NATIVE_DOUBLE, {r.maskFraction});
        w.numberAttribute<double>("clean_loss", H5T_NATIVE_DOUBLE, {r.cleanLoss});
        w.numberAttribute<double>("clean_accuracy", H5T_NATIVE_DOUBLE, {r.cleanAccuracy});
        w.int64Attributes({{"items", static_cast<std::int64_t>(r.items)}, {"targets", r.targets}});
    });
}

}  // namespace attnscope::exporting
