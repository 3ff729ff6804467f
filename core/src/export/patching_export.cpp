#include "attnscope/export/patching_export.h"

#include <cmath>

#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::PatchingGrid;
using analysis::PatchSweep;

namespace {

CsvValue optionalIndex(int v) {
    return v < 0 ? CsvValue(std::string()) : CsvValue(std::int64_t{v});
}

CsvValue optionalNumber(double v) {
    return std::isnan(v) ? CsvValue(std::string()) : CsvValue(v);
}

void addGrid(CsvWriter& csv, const PatchingGrid& g) {
    const bool perHead = g.sweep == PatchSweep::Head || g.sweep == PatchSweep::HeadPosition;
    for (int layer = 0; layer < g.nLayers; ++layer) {
        for (int unit = 0; unit < g.nUnits; ++unit) {
            for (int position = 0; position < g.nPositions; ++position) {
                const std::size_t i = g.index(layer, unit, position);
                const int pos = g.sweep == PatchSweep::HeadPosition ? position
                                : perHead                           ? -1
                                                                    : unit;
                csv.addRow({analysis::sweepName(g.sweep), analysis::directionName(g.direction),
                            std::int64_t{layer}, optionalIndex(perHead ? unit : -1),
                            optionalIndex(pos), std::string(), g.ld[i],
                            optionalNumber(g.metric[i])});
            }
        }
    }
}

void checkRun(const fs::path& path, const PatchingRun& run) {
    if (run.base == nullptr) {
        throw InvalidArgument(path.string() +
                              ": a patching run without its clean and corrupted "
                              "passes");
    }
}

std::vector<hsize_t> gridDims(const PatchingGrid& g) {
    std::vector<hsize_t> dims = {static_cast<hsize_t>(g.nLayers), static_cast<hsize_t>(g.nUnits)};
    if (g.sweep == PatchSweep::HeadPosition) {
        dims.push_back(static_cast<hsize_t>(g.nPositions));
    }
    return dims;
}

std::vector<std::int64_t> ids(const std::vector<std::int32_t>& v) {
    return {v.begin(), v.end()};
}

}  // namespace

void writePatchingCsv(const fs::path& path, const PatchingRun& run) {
    checkRun(path, run);
    CsvWriter csv({"experiment", "direction", "layer", "head", "position", "path", "ld", "metric"});
    for (const PatchingGrid& g : run.grids) {
        addGrid(csv, g);
    }
    for (const auto& [spec, result] : run.paths) {
        csv.addRow({std::string("path"), analysis::directionName(spec.direction), std::string(),
                    std::string(), std::string(), analysis::describe(spec), result.ld,
                    optionalNumber(result.metric)});
    }
    csv.writeFile(path);
}

void writePatchingHdf5(const fs::path& path, const PatchingRun& run) {
    checkRun(path, run);
    const analysis::PatchingBase& base = *run.base;
    writeHdf5Atomically(path, [&](hid_t file) {
        const Writer w(file, path.string());
        const auto clean = ids(base.setup.clean);
        const auto corrupted = ids(base.setup.corrupted);
        w.dataset("clean_ids", H5T_NATIVE_INT64, {clean.size()}, clean.data());
        w.dataset("corrupted_ids", H5T_NATIVE_INT64, {corrupted.size()}, corrupted.data());
        const double ends[2] = {base.ldClean, base.ldCorrupted};
        w.dataset("ld_endpoints", H5T_NATIVE_DOUBLE, {2}, ends);
        for (const PatchingGrid& g : run.grids) {
            const std::string group =
                analysis::directionName(g.direction) + "/" + analysis::sweepName(g.sweep);
            w.dataset((group + "/ld").c_str(), H5T_NATIVE_DOUBLE, gridDims(g), g.ld.data());
            w.dataset((group + "/metric").c_str(), H5T_NATIVE_DOUBLE, gridDims(g), g.metric.data());
        }
        if (!run.paths.empty()) {
            std::vector<std::string> specs;
            for (const auto& p : run.paths) {
                specs.push_back(analysis::describe(p.first));
            }
            w.strings("paths/spec", specs);
            w.column("paths/ld", run.paths, [](const auto& p) { return p.second.ld; });
            w.column("paths/metric", run.paths, [](const auto& p) { return p.second.metric; });
        }
        w.runAttributes({{"model", run.model},
                         {"target_piece", run.targetPiece},
                         {"distractor_piece", run.distractorPiece}});
        w.int64Attributes({{"target", base.setup.target},
                           {"distractor", base.setup.distractor},
                           {"position", base.setup.position}});
    });
}

}  // namespace attnscope::exporting
