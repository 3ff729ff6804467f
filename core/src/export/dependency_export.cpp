#include "attnscope/export/dependency_export.h"

#include <algorithm>
#include <cmath>

#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::Direction;

namespace {

constexpr Direction kDirectionsInOrder[] = {Direction::DepToHead, Direction::HeadToDep};

// Per relation: correct and no-prediction counts and accuracies [layers, heads, 2], baseline
// counts [6].
void writeCounts(const Writer& w, const analysis::DependencyAccumulator& acc,
                 const std::vector<std::string>& relations) {
    const auto r = static_cast<hsize_t>(relations.size());
    const auto layers = static_cast<hsize_t>(acc.nLayers());
    const auto heads = static_cast<hsize_t>(acc.nHeads());
    std::vector<std::int64_t> counts, correct, noPrediction, baseline;
    std::vector<double> accuracy;
    for (const std::string& rel : relations) {
        counts.push_back(acc.count(rel));
        for (int layer = 0; layer < acc.nLayers(); ++layer) {
            for (int head = 0; head < acc.nHeads(); ++head) {
                for (const Direction d : kDirectionsInOrder) {
                    const analysis::Counts c = acc.counts(rel, {layer, head}, d);
                    correct.push_back(c.correct);
                    noPrediction.push_back(c.noPrediction);
                    accuracy.push_back(c.accuracy());
                }
            }
        }
        for (int offset = analysis::kMinOffset; offset <= analysis::kMaxOffset; ++offset) {
            baseline.push_back(acc.baselineCounts(rel, offset).correct);
        }
    }
    std::vector<std::int64_t> offsets;
    for (int offset = analysis::kMinOffset; offset <= analysis::kMaxOffset; ++offset) {
        offsets.push_back(offset);
    }
    w.dataset("counts", H5T_NATIVE_INT64, {r}, counts.data());
    w.dataset("correct", H5T_NATIVE_INT64, {r, layers, heads, 2}, correct.data());
    w.dataset("no_prediction", H5T_NATIVE_INT64, {r, layers, heads, 2}, noPrediction.data());
    w.dataset("accuracy", H5T_NATIVE_DOUBLE, {r, layers, heads, 2}, accuracy.data());
    w.dataset("baseline_offsets", H5T_NATIVE_INT64, {offsets.size()}, offsets.data());
    w.dataset("baseline_correct", H5T_NATIVE_INT64, {r, offsets.size()}, baseline.data());
}

void writeBest(const Writer& w, const analysis::DependencyAccumulator& acc,
               const std::vector<std::string>& relations) {
    std::vector<std::int64_t> layer, head, direction, noPrediction, offset;
    std::vector<double> accuracy, baselineAccuracy;
    for (const std::string& rel : relations) {
        const auto best = acc.bestHead(rel);
        layer.push_back(best ? best->head.layer : -1);
        head.push_back(best ? best->head.head : -1);
        direction.push_back(best && best->direction == Direction::HeadToDep ? 1 : 0);
        accuracy.push_back(best ? best->counts.accuracy() : std::nan(""));
        noPrediction.push_back(best ? best->counts.noPrediction : 0);
        const auto base = acc.bestOffset(rel);
        offset.push_back(base ? base->offset : 0);
        baselineAccuracy.push_back(base ? base->counts.accuracy() : std::nan(""));
    }
    const hsize_t r = relations.size();
    w.dataset("best_layer", H5T_NATIVE_INT64, {r}, layer.data());
    w.dataset("best_head", H5T_NATIVE_INT64, {r}, head.data());
    w.dataset("best_direction", H5T_NATIVE_INT64, {r}, direction.data());
    w.dataset("best_accuracy", H5T_NATIVE_DOUBLE, {r}, accuracy.data());
    w.dataset("best_no_prediction", H5T_NATIVE_INT64, {r}, noPrediction.data());
    w.dataset("baseline_best_offset", H5T_NATIVE_INT64, {r}, offset.data());
    w.dataset("baseline_accuracy", H5T_NATIVE_DOUBLE, {r}, baselineAccuracy.data());
}

}  // namespace

void writeDependencyResults(const fs::path& path, const analysis::DependencyAccumulator& acc,
                            const DependencyRunInfo& info) {
    writeHdf5Atomically(path, [&](hid_t file) {
        const std::string name = path.string();
        const Writer w(file, name);
        const std::vector<std::string> relations = acc.relations();
        w.strings("relations", relations);
        writeCounts(w, acc, relations);
        writeBest(w, acc, relations);
        w.runAttributes({{"model", info.model},
                         {"treebank", info.treebank},
                         {"from_mode", info.fromMode},
                         {"mwt", info.multiword}});
        w.int64Attributes({{"merge_subtypes", info.mergeSubtypes ? 1 : 0},
                           {"sentences_scored", acc.sentencesScored()},
                           {"sentences_skipped", acc.sentencesSkipped()}});
    });
}

void writeDependencyTableCsv(const fs::path& path, const analysis::DependencyAccumulator& acc,
                             std::int64_t minCount, const std::vector<std::string>& only) {
    CsvWriter csv({"relation", "count", "best_layer", "best_head", "direction", "accuracy",
                   "no_prediction", "baseline_offset", "baseline_accuracy", "rare"});
    const analysis::RelationTable table = acc.relationTable(minCount);
    const auto keep = [&](const std::string& rel) {
        return only.empty() || rel == analysis::kAllRelations ||
               std::find(only.begin(), only.end(), rel) != only.end();
    };
    for (const auto* rows : {&table.rows, &table.rare}) {
        for (const analysis::RelationRow& row : *rows) {
            if (!keep(row.relation)) {
                continue;
            }
            csv.addRow({row.relation, row.count, static_cast<std::int64_t>(row.best.head.layer),
                        static_cast<std::int64_t>(row.best.head.head),
                        std::string(analysis::directionName(row.best.direction)),
                        row.best.counts.accuracy(), row.best.counts.noPrediction,
                        static_cast<std::int64_t>(row.baseline.offset),
                        row.baseline.counts.accuracy(),
                        static_cast<std::int64_t>(rows == &table.rare ? 1 : 0)});
        }
    }
    csv.writeFile(path);
}

void writeAttentionDump(const fs::path& path, const std::vector<DumpedSentence>& sentences) {
    writeHdf5Atomically(path, [&](hid_t file) {
        const std::string name = path.string();
        const Writer w(file, name);
        for (std::size_t k = 0; k < sentences.size(); ++k) {
            const DumpedSentence& s = sentences[k];
            const std::string group = "sentences/" + std::to_string(k);
            const auto n = static_cast<hsize_t>(s.special.size());
            std::vector<std::int64_t> flat;
            for (const auto& [b, e] : s.offsets) {
                flat.push_back(b);
                flat.push_back(e);
            }
            w.dataset((group + "/attention").c_str(), H5T_NATIVE_FLOAT,
                      {static_cast<hsize_t>(s.nLayers), static_cast<hsize_t>(s.nHeads), n, n},
                      s.attention.data());
            w.dataset((group + "/offsets").c_str(), H5T_NATIVE_INT64, {n, 2}, flat.data());
            w.dataset((group + "/special").c_str(), H5T_NATIVE_UINT8, {n}, s.special.data());
            Handle g(H5Gopen2(file, group.c_str(), H5P_DEFAULT), H5Gclose, name + ": " + group);
            w.numberAttribute<std::int64_t>("line", H5T_NATIVE_INT64, {s.line}, g);
            w.stringAttributeOn(g, "sent_id", s.sentId);
            w.stringAttributeOn(g, "text", s.text);
        }
    });
}

}  // namespace attnscope::exporting
