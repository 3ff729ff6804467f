#include "attnscope/export/circuits_export.h"

#include <cmath>

#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::WeightCircuits;

namespace {

CsvValue none() {
    return std::string();
}

void addHeadRows(CsvWriter& csv, const WeightCircuits& w) {
    for (std::size_t i = 0; i < w.heads.size(); ++i) {
        const analysis::HeadWeights& h = w.heads[i];
        const std::int64_t layer = static_cast<std::int64_t>(i) / w.nHeads;
        const std::int64_t head = static_cast<std::int64_t>(i) % w.nHeads;
        for (const auto& [name, values] :
             {std::pair{"qk_singular", &h.qkSingular}, std::pair{"ov_singular", &h.ovSingular}}) {
            for (std::size_t k = 0; k < values->size(); ++k) {
                csv.addRow({std::string(name), layer, head, static_cast<std::int64_t>(k + 1),
                            none(), none(), (*values)[k]});
            }
        }
        for (const auto& [name, value] : {std::pair{"copying", h.copying},
                                          std::pair{"positional_previous", h.positionalPrevious}}) {
            if (!std::isnan(value)) {
                csv.addRow({std::string(name), layer, head, none(), none(), none(), value});
            }
        }
    }
}

void addCompositionRows(CsvWriter& csv, const WeightCircuits& w) {
    const auto heads = static_cast<int>(w.heads.size());
    for (const auto& [name, scores] : {std::pair{"comp_q", &w.compQ}, std::pair{"comp_k", &w.compK},
                                       std::pair{"comp_v", &w.compV}}) {
        for (int h1 = 0; h1 < heads; ++h1) {
            for (int h2 = (h1 / w.nHeads + 1) * w.nHeads; h2 < heads; ++h2) {
                csv.addRow({std::string(name), std::int64_t{h1 / w.nHeads},
                            std::int64_t{h1 % w.nHeads}, none(), std::int64_t{h2 / w.nHeads},
                            std::int64_t{h2 % w.nHeads}, w.composition(*scores, h1, h2)});
            }
        }
    }
}

// A [layers, heads, k] array of one spectrum, padded with NaN where a head has fewer values.
std::vector<double> spectra(const WeightCircuits& w, bool qk, std::size_t& width) {
    width = 0;
    for (const auto& h : w.heads) {
        width = std::max(width, (qk ? h.qkSingular : h.ovSingular).size());
    }
    std::vector<double> out(w.heads.size() * width, std::nan(""));
    for (std::size_t i = 0; i < w.heads.size(); ++i) {
        const auto& v = qk ? w.heads[i].qkSingular : w.heads[i].ovSingular;
        std::copy(v.begin(), v.end(), out.begin() + static_cast<std::ptrdiff_t>(i * width));
    }
    return out;
}

}  // namespace

void writeCircuitsCsv(const fs::path& path, const WeightCircuits& w) {
    CsvWriter csv({"score", "layer", "head", "index", "layer2", "head2", "value"});
    addHeadRows(csv, w);
    addCompositionRows(csv, w);
    csv.writeFile(path);
}

void writeCircuitsHdf5(const fs::path& path, const WeightCircuits& w, const std::string& model) {
    writeHdf5Atomically(path, [&](hid_t file) {
        const Writer writer(file, path.string());
        const auto layers = static_cast<hsize_t>(w.nLayers);
        const auto heads = static_cast<hsize_t>(w.nHeads);
        for (const bool qk : {true, false}) {
            std::size_t width = 0;
            const std::vector<double> values = spectra(w, qk, width);
            writer.dataset(qk ? "qk_singular" : "ov_singular", H5T_NATIVE_DOUBLE,
                           {layers, heads, static_cast<hsize_t>(width)}, values.data());
        }
        std::vector<double> copying;
        std::vector<double> positional;
        for (const auto& h : w.heads) {
            copying.push_back(h.copying);
            positional.push_back(h.positionalPrevious);
        }
        writer.dataset("copying", H5T_NATIVE_DOUBLE, {layers, heads}, copying.data());
        writer.dataset("positional_previous", H5T_NATIVE_DOUBLE, {layers, heads},
                       positional.data());
        const hsize_t all = layers * heads;
        writer.dataset("comp_q", H5T_NATIVE_DOUBLE, {all, all}, w.compQ.data());
        writer.dataset("comp_k", H5T_NATIVE_DOUBLE, {all, all}, w.compK.data());
        writer.dataset("comp_v", H5T_NATIVE_DOUBLE, {all, all}, w.compV.data());
        writer.runAttributes({{"model", model}});
        writer.numberAttribute<double>("baseline", H5T_NATIVE_DOUBLE, {w.baseline});
    });
}

}  // namespace attnscope::exporting
