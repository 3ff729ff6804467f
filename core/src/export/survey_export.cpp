#include "attnscope/export/survey_export.h"

#include <cstdint>
#include <vector>

#include "attnscope/base/error.h"
#include "attnscope/base/version.h"
#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::HeadSurvey;

namespace {

// A survey built by hand could disagree with itself; a file must not.
void checkShape(const fs::path& path, const HeadSurvey& s) {
    const std::string where = path.string() + ": head survey of " + std::to_string(s.nLayers) +
                              " x " + std::to_string(s.nHeads) + " heads: ";
    if (s.nLayers <= 0 || s.nHeads <= 0) {
        throw InvalidArgument(where + "no heads");
    }
    const auto n = static_cast<std::size_t>(s.nLayers) * static_cast<std::size_t>(s.nHeads);
    for (const std::string& name : analysis::surveyScoreNames()) {
        const auto it = s.scores.find(name);
        if (it == s.scores.end() || it->second.size() != n) {
            throw InvalidArgument(where + "score " + name + " is missing or of another size");
        }
    }
    if (s.distance.size() != n * n) {
        throw InvalidArgument(where + "the distance matrix is of another size");
    }
    if (!s.mds.empty() && (s.mds.size() != n * 2 || s.mdsEigenvalues.size() != 2)) {
        throw InvalidArgument(where + "the MDS map is of another size");
    }
}

// HDF5 refuses a null buffer even for no elements.
void idDataset(const Writer& w, const char* name, const std::vector<std::int32_t>& ids) {
    std::vector<std::int64_t> values(ids.begin(), ids.end());
    const std::int64_t none = 0;
    w.dataset(name, H5T_NATIVE_INT64, {values.size()}, values.empty() ? &none : values.data());
}

void writeOptions(const Writer& w, const analysis::SurveyOptions& o) {
    idDataset(w, "options/special_ids", o.specialIds);
    idDataset(w, "options/punct_ids", o.punctIds);
    idDataset(w, "options/period_ids", o.periodIds);
    w.numberAttribute<double>("sink_eps", H5T_NATIVE_DOUBLE, {o.sinkEps});
    w.numberAttribute<double>("positional_threshold", H5T_NATIVE_DOUBLE, {o.positionalThreshold});
    w.numberAttribute<std::int64_t>("rare_top", H5T_NATIVE_INT64, {std::int64_t{o.rareTop}});
    w.numberAttribute<std::int64_t>("probe_repeats", H5T_NATIVE_INT64,
                                    {std::int64_t{o.probeRepeats}});
    w.numberAttribute<std::int64_t>("probe_length", H5T_NATIVE_INT64,
                                    {std::int64_t{o.probeLength}});
    w.numberAttribute<std::uint64_t>("probe_seed", H5T_NATIVE_UINT64, {o.probeSeed});
    if (o.bosId) {
        w.numberAttribute<std::int64_t>("probe_bos", H5T_NATIVE_INT64, {std::int64_t{*o.bosId}});
    }
}

void checkExtras(const fs::path& path, const HeadSurvey& s, const SurveyExtras& extras) {
    const auto n = static_cast<std::size_t>(s.nLayers) * static_cast<std::size_t>(s.nHeads);
    if ((!extras.labels.empty() && extras.labels.size() != n) ||
        (!extras.bestRelations.empty() && extras.bestRelations.size() != n)) {
        throw InvalidArgument(path.string() + ": head survey of " + std::to_string(n) +
                              " heads: the labels or best relations are for another number");
    }
}

std::string tags(const std::vector<analysis::HeadLabel>& labels) {
    std::string out;
    for (const auto& l : labels) {
        out += (out.empty() ? "" : " ") + l.tag;
    }
    return out;
}

void writeExtras(const Writer& w, const HeadSurvey& s, const SurveyExtras& extras) {
    if (!extras.labels.empty()) {
        std::vector<std::string> values;
        for (const auto& l : extras.labels) {
            values.push_back(tags(l));
        }
        w.strings("labels/tags", values);
    }
    if (extras.bestRelations.empty()) {
        return;
    }
    std::vector<std::string> relation;
    std::vector<double> accuracy;
    std::vector<double> baseline;
    std::vector<std::int64_t> offset;
    for (const auto& b : extras.bestRelations) {
        relation.push_back(b.relation);
        accuracy.push_back(b.accuracy);
        baseline.push_back(b.baseline);
        offset.push_back(b.baselineOffset);
    }
    const std::vector<hsize_t> heads = {static_cast<hsize_t>(s.nLayers),
                                        static_cast<hsize_t>(s.nHeads)};
    w.strings("dependency/relation", relation);
    w.dataset("dependency/accuracy", H5T_NATIVE_DOUBLE, heads, accuracy.data());
    w.dataset("dependency/baseline", H5T_NATIVE_DOUBLE, heads, baseline.data());
    w.dataset("dependency/baseline_offset", H5T_NATIVE_INT64, heads, offset.data());
}

}  // namespace

void writeSurveyCsv(const fs::path& path, const HeadSurvey& s, const SurveyExtras& extras) {
    checkShape(path, s);
    checkExtras(path, s, extras);
    const std::vector<std::string>& names = analysis::surveyScoreNames();
    std::vector<std::string> header = {"layer", "head"};
    header.insert(header.end(), names.begin(), names.end());
    if (!extras.labels.empty()) {
        header.emplace_back("labels");
    }
    if (!extras.bestRelations.empty()) {
        header.insert(header.end(),
                      {"dep_relation", "dep_accuracy", "dep_baseline", "dep_baseline_offset"});
    }
    CsvWriter csv(header);
    std::vector<const std::vector<double>*> columns;
    for (const std::string& name : names) {
        columns.push_back(&s.score(name));
    }
    for (int layer = 0; layer < s.nLayers; ++layer) {
        for (int head = 0; head < s.nHeads; ++head) {
            const auto k = static_cast<std::size_t>(layer * s.nHeads + head);
            std::vector<CsvValue> row = {std::int64_t{layer}, std::int64_t{head}};
            for (const std::vector<double>* column : columns) {
                row.emplace_back((*column)[k]);
            }
            if (!extras.labels.empty()) {
                row.emplace_back(tags(extras.labels[k]));
            }
            if (!extras.bestRelations.empty()) {
                const auto& b = extras.bestRelations[k];
                row.emplace_back(b.relation);
                row.emplace_back(b.accuracy);
                row.emplace_back(b.baseline);
                row.emplace_back(std::int64_t{b.baselineOffset});
            }
            csv.addRow(row);
        }
    }
    csv.writeFile(path);
}

void writeSurveyH5(const fs::path& path, const HeadSurvey& s,
                   const analysis::SurveyOptions& options, const SurveyRunInfo& info,
                   const SurveyExtras& extras) {
    checkShape(path, s);
    checkExtras(path, s, extras);
    writeHdf5Atomically(path, [&](hid_t file) {
        const Writer w(file, path.string());
        const std::vector<hsize_t> heads = {static_cast<hsize_t>(s.nLayers),
                                            static_cast<hsize_t>(s.nHeads)};
        for (const std::string& name : analysis::surveyScoreNames()) {
            w.dataset(("scores/" + name).c_str(), H5T_NATIVE_DOUBLE, heads, s.score(name).data());
        }
        const auto n = static_cast<hsize_t>(s.nLayers) * static_cast<hsize_t>(s.nHeads);
        w.dataset("distance", H5T_NATIVE_DOUBLE, {n, n}, s.distance.data());
        if (!s.mds.empty()) {
            w.dataset("mds", H5T_NATIVE_DOUBLE, {n, 2}, s.mds.data());
            w.dataset("mds_eigenvalues", H5T_NATIVE_DOUBLE, {2}, s.mdsEigenvalues.data());
        } else {
            w.stringAttribute("mds_error",
                              s.mdsError.empty() ? std::string("not computed") : s.mdsError);
        }
        w.stringAttribute("model", info.model);
        w.stringAttribute("corpus", info.corpus);
        w.stringAttribute("attnscope_version", std::string(version()));
        w.numberAttribute<std::int64_t>("sentences", H5T_NATIVE_INT64,
                                        {static_cast<std::int64_t>(s.sentences)});
        w.numberAttribute<std::int64_t>("skipped", H5T_NATIVE_INT64,
                                        {static_cast<std::int64_t>(s.skipped)});
        w.numberAttribute<std::int64_t>("too_long", H5T_NATIVE_INT64,
                                        {static_cast<std::int64_t>(info.tooLong)});
        writeOptions(w, options);
        writeExtras(w, s, extras);
    });
}

}  // namespace attnscope::exporting
