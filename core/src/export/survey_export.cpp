#include "attnscope/export/survey_export.h"

#include <cstdint>
#include <vector>

#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::HeadSurvey;

namespace {

constexpr const char* kProbeRule =
    "S7: repeat r is [bos, t_1..t_N, t_1..t_N]; SplitMix64 seeded with probe_seed + r (mod 2^64), "
    "t_k = C[next() % |C|] for k = 1..N, C = the ids 0..vocab-1 not in options/special_ids, "
    "ascending";

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
    for (const auto& seq : s.probeSequences) {
        if (seq.empty() || seq.size() != s.probeSequences.front().size()) {
            throw InvalidArgument(where + "the probe's sequences differ in length");
        }
    }
}

// S7's sequences as a [repeats, 2N + 1] table, with the rule that drew them.
void writeProbe(const Writer& w, hid_t file, const HeadSurvey& s) {
    if (s.probeSequences.empty()) {
        return;
    }
    std::vector<std::int64_t> values;
    for (const auto& seq : s.probeSequences) {
        values.insert(values.end(), seq.begin(), seq.end());
    }
    w.dataset("probe/tokens", H5T_NATIVE_INT64,
              {s.probeSequences.size(), s.probeSequences.front().size()}, values.data());
    const Handle set(H5Dopen2(file, "probe/tokens", H5P_DEFAULT), H5Dclose,
                     "probe/tokens: cannot reopen");
    w.stringAttributeOn(set, "rule", std::string(kProbeRule));
}

// Every score's unit on its dataset (sink_rate: a fraction, where Gu et al. print percent).
void writeUnits(const Writer& w, hid_t file) {
    for (const std::string& name : analysis::surveyScoreNames()) {
        const std::string path = "scores/" + name;
        const Handle set(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose,
                         path + ": cannot reopen");
        w.stringAttributeOn(set, "unit", analysis::surveyScoreUnit(name));
    }
}

void writeProbeCsv(const fs::path& csv, const HeadSurvey& s) {
    if (s.probeSequences.empty()) {
        return;
    }
    CsvWriter table({"repeat", "position", "id"});
    for (std::size_t r = 0; r < s.probeSequences.size(); ++r) {
        for (std::size_t i = 0; i < s.probeSequences[r].size(); ++i) {
            table.addRow({static_cast<std::int64_t>(r), static_cast<std::int64_t>(i),
                          std::int64_t{s.probeSequences[r][i]}});
        }
    }
    table.writeFile(surveyProbeCsvPath(csv));
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
    w.int64Attributes({{"rare_top", std::int64_t{o.rareTop}},
                       {"probe_repeats", std::int64_t{o.probeRepeats}},
                       {"probe_length", std::int64_t{o.probeLength}}});
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

fs::path surveyProbeCsvPath(const fs::path& csv) {
    fs::path out = csv;
    out.replace_extension(".probe.csv");
    return out;
}

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
    writeProbeCsv(path, s);
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
        writeUnits(w, file);
        const auto n = static_cast<hsize_t>(s.nLayers) * static_cast<hsize_t>(s.nHeads);
        w.dataset("distance", H5T_NATIVE_DOUBLE, {n, n}, s.distance.data());
        if (!s.mds.empty()) {
            w.dataset("mds", H5T_NATIVE_DOUBLE, {n, 2}, s.mds.data());
            w.dataset("mds_eigenvalues", H5T_NATIVE_DOUBLE, {2}, s.mdsEigenvalues.data());
        } else {
            w.stringAttribute("mds_error",
                              s.mdsError.empty() ? std::string("not computed") : s.mdsError);
        }
        w.runAttributes({{"model", info.model}, {"corpus", info.corpus}});
        w.int64Attributes({{"sentences", static_cast<std::int64_t>(s.sentences)},
                           {"skipped", static_cast<std::int64_t>(s.skipped)},
                           {"too_long", static_cast<std::int64_t>(info.tooLong)},
                           {"rare_sentences", static_cast<std::int64_t>(s.rareSentences)}});
        if (!s.rareError.empty()) {
            w.stringAttribute("rare_error", s.rareError);
        }
        writeOptions(w, options);
        writeProbe(w, file, s);
        writeExtras(w, s, extras);
    });
}

}  // namespace attnscope::exporting
