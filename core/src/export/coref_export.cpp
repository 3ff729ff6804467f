#include "attnscope/export/coref_export.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using analysis::CorefAccumulator;
using analysis::CorefBaseline;
using analysis::MentionGroup;

namespace {

constexpr MentionGroup kGroups[] = {MentionGroup::All, MentionGroup::Pronoun, MentionGroup::Proper,
                                    MentionGroup::Nominal};
constexpr CorefBaseline kBaselines[] = {CorefBaseline::Nearest, CorefBaseline::HeadMatch,
                                        CorefBaseline::Sieve};

// The corpus counts under the names the Python reference reads.
std::vector<std::pair<const char*, std::int64_t>> namedCounts(const analysis::CorefCounts& c) {
    return {{"documents", c.documents},
            {"sentences", c.sentences},
            {"windows", c.windows},
            {"sentences_skipped", c.sentencesSkipped},
            {"mentions", c.mentions},
            {"scored_mentions", c.scoredMentions},
            {"mentions_without_token", c.mentionsWithoutToken},
            {"discontinuous", c.discontinuous},
            {"unclosed", c.unclosed},
            {"unmatched", c.unmatched},
            {"malformed_sentences", c.malformedSentences}};
}

std::vector<std::string> names(auto nameOf, const auto& values) {
    std::vector<std::string> out;
    for (const auto v : values) {
        out.emplace_back(nameOf(v));
    }
    return out;
}

void writeHeads(const Writer& w, const CorefAccumulator& acc) {
    std::vector<std::int64_t> correct, noPrediction, total;
    std::vector<double> accuracy;
    for (int layer = 0; layer < acc.layers(); ++layer) {
        for (int head = 0; head < acc.heads(); ++head) {
            for (const MentionGroup g : kGroups) {
                const analysis::Counts& c = acc.at({layer, head}, g);
                correct.push_back(c.correct);
                noPrediction.push_back(c.noPrediction);
                total.push_back(c.total);
                accuracy.push_back(c.accuracy());
            }
        }
    }
    const std::vector<hsize_t> dims = {static_cast<hsize_t>(acc.layers()),
                                       static_cast<hsize_t>(acc.heads()), analysis::kMentionGroups};
    w.dataset("heads/correct", H5T_NATIVE_INT64, dims, correct.data());
    w.dataset("heads/no_prediction", H5T_NATIVE_INT64, dims, noPrediction.data());
    w.dataset("heads/total", H5T_NATIVE_INT64, dims, total.data());
    w.dataset("heads/accuracy", H5T_NATIVE_DOUBLE, dims, accuracy.data());
}

void writeBaselines(const Writer& w, const CorefAccumulator& acc) {
    std::vector<std::int64_t> correct, total;
    for (const CorefBaseline b : kBaselines) {
        for (const MentionGroup g : kGroups) {
            correct.push_back(acc.baselineCorrect(b, g));
        }
    }
    for (const MentionGroup g : kGroups) {
        total.push_back(acc.scored(g));
    }
    w.strings("baselines/names", names(analysis::corefBaselineName, kBaselines));
    w.dataset("baselines/correct", H5T_NATIVE_INT64,
              {analysis::kCorefBaselines, analysis::kMentionGroups}, correct.data());
    w.dataset("baselines/total", H5T_NATIVE_INT64, {analysis::kMentionGroups}, total.data());
}

}  // namespace

void writeCorefResults(const fs::path& path, const CorefAccumulator& acc,
                       const CorefRunInfo& info) {
    writeHdf5Atomically(path, [&](hid_t file) {
        const Writer w(file, path.string());
        w.strings("groups", names(analysis::mentionGroupName, kGroups));
        writeHeads(w, acc);
        writeBaselines(w, acc);
        w.runAttributes({{"model", info.model},
                         {"treebank", info.treebank},
                         {"mwt", info.multiword},
                         {"from", info.fromMode}});
        w.numberAttribute<std::int64_t>("limit", H5T_NATIVE_INT64,
                                        {static_cast<std::int64_t>(info.limit)});
        for (const auto& [name, value] : namedCounts(acc.counts)) {
            w.numberAttribute<std::int64_t>(name, H5T_NATIVE_INT64, {value});
        }
    });
}

void writeCorefCsv(const fs::path& path, const CorefAccumulator& acc) {
    CsvWriter csv({"kind", "name", "layer", "head", "group", "correct", "predicted",
                   "no_prediction", "total", "accuracy"});
    for (int layer = 0; layer < acc.layers(); ++layer) {
        for (int head = 0; head < acc.heads(); ++head) {
            const HeadId id{layer, head};
            for (const MentionGroup g : kGroups) {
                const analysis::Counts& c = acc.at(id, g);
                csv.addRow({std::string("head"), id.toString(), std::int64_t{layer},
                            std::int64_t{head}, std::string(analysis::mentionGroupName(g)),
                            c.correct, c.predicted(), c.noPrediction, c.total, c.accuracy()});
            }
        }
    }
    for (const CorefBaseline b : kBaselines) {
        for (const MentionGroup g : kGroups) {
            const analysis::Counts c{acc.baselineCorrect(b, g), acc.scored(g), 0};
            csv.addRow({std::string("baseline"), std::string(analysis::corefBaselineName(b)),
                        std::string(), std::string(), std::string(analysis::mentionGroupName(g)),
                        c.correct, c.predicted(), c.noPrediction, c.total, c.accuracy()});
        }
    }
    csv.writeFile(path);
}

}  // namespace attnscope::exporting
