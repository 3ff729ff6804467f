#include "attnscope/export/saturation_export.h"

#include <cmath>

#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::HeadSaturation;

namespace {

void checkShape(const fs::path& path, const SaturationRun& run) {
    const auto heads = static_cast<std::size_t>(run.nLayers) * static_cast<std::size_t>(run.nHeads);
    for (const SaturationSetting* s : {&run.asIs, &run.changed}) {
        if (s != &run.changed || !s->heads.empty()) {
            if (s->heads.size() != heads) {
                throw InvalidArgument(path.string() + ": " + std::to_string(s->heads.size()) +
                                      " head statistics for " + std::to_string(run.nLayers) +
                                      " x " + std::to_string(run.nHeads) + " heads");
            }
        }
    }
}

void addRows(CsvWriter& csv, const char* setting, const std::vector<HeadSaturation>& heads) {
    for (const HeadSaturation& h : heads) {
        const CsvValue unnormed =
            std::isnan(h.maxAbsUnnormed) ? CsvValue(std::string()) : CsvValue(h.maxAbsUnnormed);
        csv.addRow({std::string(setting), std::int64_t{h.head.layer}, std::int64_t{h.head.head},
                    h.rows, h.meanEntropy, unnormed, h.maxAbsScaled, h.maxAbsLogit,
                    h.meanRowMaxAbsLogit, h.oneHotShare, h.oneHotRows});
    }
}

void writeSetting(const Writer& w, const std::string& group, const SaturationRun& run,
                  const SaturationSetting& s) {
    const std::vector<hsize_t> dims = {static_cast<hsize_t>(run.nLayers),
                                       static_cast<hsize_t>(run.nHeads)};
    const auto floats = [&](const char* name, auto field) {
        std::vector<float> v;
        for (const HeadSaturation& h : s.heads) {
            v.push_back(field(h));
        }
        w.dataset((group + "/" + name).c_str(), H5T_NATIVE_FLOAT, dims, v.data());
    };
    const auto ints = [&](const char* name, auto field) {
        std::vector<std::int64_t> v;
        for (const HeadSaturation& h : s.heads) {
            v.push_back(field(h));
        }
        w.dataset((group + "/" + name).c_str(), H5T_NATIVE_INT64, dims, v.data());
    };
    floats("mean_entropy", [](const HeadSaturation& h) { return h.meanEntropy; });
    floats("max_abs_unnormed", [](const HeadSaturation& h) { return h.maxAbsUnnormed; });
    floats("max_abs_scaled", [](const HeadSaturation& h) { return h.maxAbsScaled; });
    floats("max_abs_logit", [](const HeadSaturation& h) { return h.maxAbsLogit; });
    floats("mean_row_max_abs_logit", [](const HeadSaturation& h) { return h.meanRowMaxAbsLogit; });
    floats("one_hot_share", [](const HeadSaturation& h) { return h.oneHotShare; });
    ints("rows", [](const HeadSaturation& h) { return h.rows; });
    ints("one_hot_rows", [](const HeadSaturation& h) { return h.oneHotRows; });
    if (s.pass == nullptr) {
        return;
    }
    const forward::ForwardResult& r = *s.pass;
    const std::vector<hsize_t> rowDims = {dims[0], dims[1], static_cast<hsize_t>(r.nTokens)};
    const std::pair<const char*, const std::vector<float>*> rows[] = {
        {"entropy", &r.entropy},
        {"row_max_weight", &r.rowMax},
        {"row_max_abs_unnormed", &r.rowMaxAbsUnnormed},
        {"row_max_abs_scaled", &r.rowMaxAbsScaled},
        {"row_max_abs_logit", &r.rowMaxAbsLogit}};
    for (const auto& [name, values] : rows) {
        if (!values->empty()) {
            w.dataset((group + "/" + name).c_str(), H5T_NATIVE_FLOAT, rowDims, values->data());
        }
    }
}

}  // namespace

void writeSaturationCsv(const fs::path& path, const SaturationRun& run) {
    checkShape(path, run);
    CsvWriter csv({"setting", "layer", "head", "rows", "mean_entropy", "max_abs_unnormed",
                   "max_abs_scaled", "max_abs_logit", "mean_row_max_abs_logit", "one_hot_share",
                   "one_hot_rows"});
    addRows(csv, "model", run.asIs.heads);
    addRows(csv, "what-if", run.changed.heads);
    csv.writeFile(path);
}

void writeSaturationHdf5(const fs::path& path, const SaturationRun& run) {
    checkShape(path, run);
    writeHdf5Atomically(path, [&](hid_t file) {
        const Writer w(file, path.string());
        writeSetting(w, "model", run, run.asIs);
        if (!run.changed.heads.empty()) {
            writeSetting(w, "what_if", run, run.changed);
        }
        w.runAttributes({{"model", run.model}, {"input", run.input}, {"what_if", run.whatIf}});
        w.int64Attributes({{"sentences", run.sentences}});
        w.numberAttribute<double>("one_hot_weight", H5T_NATIVE_DOUBLE,
                                  {static_cast<double>(analysis::kOneHotWeight)});
    });
}

}  // namespace attnscope::exporting
