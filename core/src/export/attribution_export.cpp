#include "attnscope/export/attribution_export.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/base/enum_names.h"
#include "attnscope/base/error.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::Attribution;
using analysis::AttributionMethod;

namespace {

// Which array of an Attribution a dataset holds, which fixes its shape and type.
enum class Part { Heads, Layers, PerLayer, TransformedNorm, ReconstructionError };

struct DatasetSpec {
    const char* name;
    AttributionMethod method;
    Part part;
    const char* rule;  // of tests/reference/attribution_reference.py
    bool cumulative;
    const char* description;
};

// The reference's names, in its order; the file lists every dataset of each method it holds.
constexpr DatasetSpec kDatasets[] = {
    {"attention", AttributionMethod::Raw, Part::Heads, "A3", false,
     "post-softmax attention probabilities of every query head"},
    {"norm_head", AttributionMethod::Norm, Part::Heads, "A5", false,
     "A[l,h,i,j] * ||f^h(x_j)||, f^h(x) = v W_O^h (b_V inside, b_O not)"},
    {"norm_layer", AttributionMethod::Norm, Part::Layers, "A5", false,
     "||sum over heads of A[l,h,i,j] f^h(x_j)||, heads summed before the norm; rows not "
     "normalised"},
    {"transformed_norm", AttributionMethod::Norm, Part::TransformedNorm, "A5", false,
     "||f^h(x_j)||, the size of key j's transformed value vector"},
    {"rollout", AttributionMethod::Rollout, Part::Layers, "A6", true,
     "R_l = At_l R_(l-1), At_l = (mean over heads + I) row-normalised; mixing after layers 0..l"},
    {"flow", AttributionMethod::Flow, Part::Layers, "A7", true,
     "max-flow from query i after layer l to input token j, each row divided by its sum"},
    {"flow_raw", AttributionMethod::Flow, Part::PerLayer, "A7", true,
     "the max-flow values before row normalisation"},
    {"alti", AttributionMethod::Alti, Part::Layers, "A11", true,
     "ALTI contributions of layers 0..l, aggregated by rollout"},
    {"alti_layer", AttributionMethod::Alti, Part::PerLayer, "A11", false,
     "layer l's own ALTI contributions C_l (residual included), rows sum to 1"},
    {"alti_reconstruction_error", AttributionMethod::Alti, Part::ReconstructionError, "A10", false,
     "max |yhat - y| of each layer's decomposition in this run's (float32) arithmetic"},
    {"value_zeroing", AttributionMethod::ValueZeroing, Part::Layers, "A13", false,
     "value_zeroing_raw with forbidden cells and scores < 1e-5 set to 0, rows divided by their "
     "sums"},
    {"value_zeroing_raw", AttributionMethod::ValueZeroing, Part::PerLayer, "A12", false,
     "1 - cos(h_i, h~_i): how much zeroing key j's values in layer l changes token i's output; "
     "for the last layer h is the model's last hidden state, after its final norm where it has "
     "one (pre-LN models; inseq's rule)"},
};

// A part's axes, outermost first: they give both its dims and its "dims" attribute.
enum class Axis { Layer, Head, Query, Key };

std::vector<Axis> axesOf(Part part) {
    using enum Axis;
    switch (part) {
        case Part::Heads:
            return {Layer, Head, Query, Key};
        case Part::TransformedNorm:
            return {Layer, Head, Key};
        case Part::ReconstructionError:
            return {Layer};
        default:
            return {Layer, Query, Key};
    }
}

std::string dimsOf(Part part) {
    static constexpr EnumName<Axis> kNames[] = {
        {Axis::Layer, "layer"}, {Axis::Head, "head"}, {Axis::Query, "query"}, {Axis::Key, "key"}};
    std::string dims;
    for (const Axis axis : axesOf(part)) {
        dims.append(dims.empty() ? "" : ", ").append(nameIn(kNames, axis, "?"));
    }
    return dims;
}

struct Shape {
    hsize_t layers, heads, n;

    std::vector<hsize_t> dims(Part part) const {
        std::vector<hsize_t> sizes;
        for (const Axis axis : axesOf(part)) {
            sizes.push_back(axis == Axis::Layer ? layers : axis == Axis::Head ? heads : n);
        }
        return sizes;
    }

    std::size_t count(Part part) const {
        std::size_t total = 1;
        for (const hsize_t d : dims(part)) {
            total *= static_cast<std::size_t>(d);
        }
        return total;
    }
};

// Where a part's values are and how many there are: one switch for the size check and the
// write (the head maps are float, the rest double).
struct PartValues {
    const void* data = nullptr;
    std::size_t size = 0;
};

template <class Values>
PartValues valuesOf(const Values& v) {
    return {v.data(), v.size()};
}

PartValues partValues(const Attribution& a, Part part) {
    switch (part) {
        case Part::Heads:
            return valuesOf(a.heads);
        case Part::Layers:
            return valuesOf(a.layers.values);
        case Part::PerLayer:
            return valuesOf(a.perLayer.values);
        case Part::TransformedNorm:
            return valuesOf(a.transformedNorm);
        case Part::ReconstructionError:
            return valuesOf(a.reconstructionError);
    }
    return {};
}

const Attribution* find(const std::vector<Attribution>& all, AttributionMethod method) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [method](const Attribution& a) { return a.method == method; });
    return it == all.end() ? nullptr : &*it;
}

// Attributions built by hand, or of two different passes, could disagree; a file must not.
Shape checkedShape(const fs::path& path, const std::vector<Attribution>& all,
                   const AttributionFileInfo& info) {
    const std::string file = path.string() + ": ";
    const Attribution* raw = find(all, AttributionMethod::Raw);
    if (raw == nullptr) {
        throw InvalidArgument(file +
                              "no raw attention among the attributions (it gives "
                              "/attention, which every attribution file holds)");
    }
    const Shape shape{static_cast<hsize_t>(std::max(raw->nLayers, 0)),
                      static_cast<hsize_t>(std::max(raw->nHeads, 0)),
                      static_cast<hsize_t>(std::max(raw->nTokens, 0))};
    if (shape.layers == 0 || shape.heads == 0 || shape.n == 0 || info.tokenIds.size() != shape.n ||
        info.tokens.size() != shape.n) {
        throw InvalidArgument(file + std::to_string(info.tokenIds.size()) + " token ids and " +
                              std::to_string(info.tokens.size()) + " token strings for maps of " +
                              std::to_string(raw->nLayers) + " layers x " +
                              std::to_string(raw->nHeads) + " heads x " +
                              std::to_string(raw->nTokens) + " tokens");
    }
    for (const Attribution& a : all) {
        const std::string what = file + analysis::attributionMethodName(a.method) + " attribution";
        if (&a != find(all, a.method)) {
            throw InvalidArgument(what + " given twice");
        }
        if (a.nLayers != raw->nLayers || a.nHeads != raw->nHeads || a.nTokens != raw->nTokens) {
            throw InvalidArgument(what + " is of another pass (" + std::to_string(a.nLayers) +
                                  " layers x " + std::to_string(a.nHeads) + " heads x " +
                                  std::to_string(a.nTokens) + " tokens)");
        }
        for (const DatasetSpec& d : kDatasets) {
            if (d.method == a.method && partValues(a, d.part).size != shape.count(d.part)) {
                throw InvalidArgument(what + ": " + d.name + " holds " +
                                      std::to_string(partValues(a, d.part).size) + " values, not " +
                                      std::to_string(shape.count(d.part)));
            }
        }
    }
    return shape;
}

void writeDataset(hid_t file, const fs::path& path, const DatasetSpec& d, const Attribution& a,
                  const Shape& shape) {
    const Writer w(file, path.string());
    const std::vector<hsize_t> dims = shape.dims(d.part);
    // Head maps stay float32 as the pass computed them; the derived maps are float64.
    const hid_t type = d.part == Part::Heads ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    // A chunk per map (per head, or per layer), as the interchange file chunks per head.
    std::vector<hsize_t> chunk;
    if (dims.size() > 1) {
        chunk.assign(dims.size(), 1);
        std::copy(dims.end() - 2, dims.end(), chunk.end() - 2);
    }
    w.dataset(d.name, type, dims, partValues(a, d.part).data, chunk);
    const Handle set(H5Dopen2(file, d.name, H5P_DEFAULT), H5Dclose,
                     path.string() + ": " + d.name + ": cannot open dataset");
    w.stringAttributeOn(set, "method", analysis::attributionMethodName(d.method));
    w.stringAttributeOn(set, "rule", d.rule);
    w.numberAttribute<std::int64_t>("cumulative", H5T_NATIVE_INT64, {d.cumulative ? 1 : 0}, set);
    w.stringAttributeOn(set, "dims", dimsOf(d.part));
    w.stringAttributeOn(set, "description", d.description);
}

void writeFile(hid_t file, const fs::path& path, const std::vector<Attribution>& all,
               const AttributionFileInfo& info, const Shape& shape) {
    const Writer w(file, path.string());
    const std::vector<std::int64_t> ids(info.tokenIds.begin(), info.tokenIds.end());
    w.dataset("input_ids", H5T_NATIVE_INT64, {shape.n}, ids.data());
    w.strings("tokens", info.tokens);
    for (const DatasetSpec& d : kDatasets) {
        if (const Attribution* a = find(all, d.method)) {
            writeDataset(file, path, d, *a, shape);
        }
    }
    std::string methods;
    for (const AttributionMethod m : analysis::kAttributionMethods) {
        if (find(all, m) != nullptr) {
            methods.append(methods.empty() ? "" : ",").append(analysis::attributionMethodName(m));
        }
    }
    w.runAttributes({{"model", info.model},
                     {"model_type", info.modelType},
                     {"mask_kind", info.maskKind},
                     {"text", info.text},
                     {"methods", methods}});
    w.int64Attributes({{"num_layers", static_cast<std::int64_t>(shape.layers)},
                       {"num_heads", static_cast<std::int64_t>(shape.heads)},
                       {"num_tokens", static_cast<std::int64_t>(shape.n)}});
}

}  // namespace

void writeAttributionHdf5(const fs::path& path, const std::vector<Attribution>& attributions,
                          const AttributionFileInfo& info) {
    const Shape shape = checkedShape(path, attributions, info);
    writeHdf5Atomically(path,
                        [&](hid_t file) { writeFile(file, path, attributions, info, shape); });
}

}  // namespace attnscope::exporting
