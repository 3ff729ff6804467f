#include "attnscope/analysis/partial_state.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/base/error.h"
#include "attnscope/base/head_id.h"
#include "attnscope/io/json_text.h"

namespace attnscope::analysis {

namespace {

using io::JsonAt;
using nlohmann::json;

// Relation labels and skip reasons are short words; a longer one is not from attnscope-cli.
constexpr std::size_t kMaxNameBytes = 1024;

std::string checkedName(const json& value, const JsonAt& at) {
    std::string name = io::asString(value, at);
    if (name.empty() || name.size() > kMaxNameBytes) {
        io::failAt(at, "expected a name of 1 to " + std::to_string(kMaxNameBytes) +
                           " bytes, found " + std::to_string(name.size()) + " bytes");
    }
    return name;
}

// An array of exactly `n` counts, each at most `limit`.
std::vector<std::int64_t> countArray(const json& value, const JsonAt& at, std::size_t n,
                                     std::int64_t limit = kMaxPartialCount) {
    io::expectArray(value, at);
    if (value.size() != n) {
        io::failAt(
            at, "expected " + std::to_string(n) + " counts, found " + std::to_string(value.size()));
    }
    std::vector<std::int64_t> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = io::asInt(value[i], at[i], 0, limit);
    }
    return out;
}

std::size_t headSlots(PartialShape shape) {
    return static_cast<std::size_t>(shape.layers) * static_cast<std::size_t>(shape.heads);
}

DependencyAccumulator::RelationCounts relationFromState(const json& r, const JsonAt& at,
                                                        std::size_t slots) {
    DependencyAccumulator::RelationCounts c;
    c.total = partialCount(io::member(r, at, "total"), at["total"]);
    c.correct = countArray(io::member(r, at, "correct"), at["correct"], slots, c.total);
    c.noPrediction =
        countArray(io::member(r, at, "no_prediction"), at["no_prediction"], slots, c.total);
    for (std::size_t s = 0; s < slots; ++s) {
        if (c.correct[s] + c.noPrediction[s] > c.total) {
            io::failAt(at["correct"][s],
                       "correct plus no prediction exceeds the total " + std::to_string(c.total));
        }
    }
    const auto offsets = countArray(io::member(r, at, "offset_correct"), at["offset_correct"],
                                    c.offsetCorrect.size(), c.total);
    std::copy(offsets.begin(), offsets.end(), c.offsetCorrect.begin());
    return c;
}

}  // namespace

std::int64_t partialCount(const json& value, const JsonAt& at) {
    return io::asInt(value, at, 0, kMaxPartialCount);
}

json dependencyState(const DependencyAccumulator& acc) {
    json relations = json::array();
    for (const auto& [name, c] : acc.relationCounts()) {
        relations.push_back({{"name", name},
                             {"total", c.total},
                             {"correct", c.correct},
                             {"no_prediction", c.noPrediction},
                             {"offset_correct", c.offsetCorrect}});
    }
    json reasons = json::object();
    for (const auto& [reason, n] : acc.skipReasons()) {
        reasons[reason] = n;
    }
    return {{"scored", acc.sentencesScored()},
            {"skip_reasons", std::move(reasons)},
            {"relations", std::move(relations)}};
}

DependencyAccumulator dependencyFromState(const json& state, const JsonAt& at, PartialShape shape,
                                          const ScoreOptions& options) {
    io::expectObject(state, at);
    DependencyAccumulator acc(shape.layers, shape.heads, options);
    const std::size_t slots = static_cast<std::size_t>(kDirections) * headSlots(shape);
    DependencyAccumulator::RelationMap relations;
    const json& list = io::member(state, at, "relations");
    io::expectArray(list, at["relations"]);
    for (std::size_t i = 0; i < list.size(); ++i) {
        const JsonAt where = at["relations"][i];
        io::expectObject(list[i], where);
        std::string name = checkedName(io::member(list[i], where, "name"), where["name"]);
        if (relations.count(name) != 0) {
            io::failAt(where["name"], "relation '" + name + "' listed twice");
        }
        relations.emplace(std::move(name), relationFromState(list[i], where, slots));
    }
    DependencyAccumulator::ReasonMap reasons;
    const json& skipped = io::member(state, at, "skip_reasons");
    io::expectObject(skipped, at["skip_reasons"]);
    for (const auto& [reason, n] : skipped.items()) {
        const JsonAt where = at["skip_reasons"][reason];
        (void)checkedName(json(reason), where);
        reasons.emplace(reason, partialCount(n, where));
    }
    acc.restore(std::move(relations), partialCount(io::member(state, at, "scored"), at["scored"]),
                std::move(reasons));
    return acc;
}

json corefState(const CorefAccumulator& acc) {
    json heads = json::array();
    for (const Counts& c : acc.headCounts()) {
        heads.push_back({c.correct, c.noPrediction, c.total});
    }
    json baselines = json::array();
    for (int b = 0; b < kCorefBaselines; ++b) {
        json row = json::array();
        for (int g = 0; g < kMentionGroups; ++g) {
            row.push_back(
                acc.baselineCorrect(static_cast<CorefBaseline>(b), static_cast<MentionGroup>(g)));
        }
        baselines.push_back(std::move(row));
    }
    json scored = json::array();
    for (int g = 0; g < kMentionGroups; ++g) {
        scored.push_back(acc.scored(static_cast<MentionGroup>(g)));
    }
    const CorefCounts& c = acc.counts;
    return {
        {"heads", std::move(heads)},           {"baselines", std::move(baselines)},
        {"scored", std::move(scored)},         {"windows", c.windows},
        {"scored_mentions", c.scoredMentions}, {"mentions_without_token", c.mentionsWithoutToken}};
}

CorefAccumulator corefFromState(const json& state, const JsonAt& at, PartialShape shape) {
    io::expectObject(state, at);
    const auto groups = static_cast<std::size_t>(kMentionGroups);
    const auto scoredList = countArray(io::member(state, at, "scored"), at["scored"], groups);
    CorefAccumulator::GroupCounts scored{};
    std::copy(scoredList.begin(), scoredList.end(), scored.begin());
    const json& heads = io::member(state, at, "heads");
    io::expectArray(heads, at["heads"]);
    const std::size_t n = headSlots(shape) * groups;
    if (heads.size() != n) {
        io::failAt(at["heads"], "expected " + std::to_string(n) +
                                    " head counts (layers x heads x " + "groups), found " +
                                    std::to_string(heads.size()));
    }
    std::vector<Counts> counts(n);
    for (std::size_t i = 0; i < n; ++i) {
        // [correct, no prediction, total]; total is the group's scored mentions for every head.
        const std::int64_t total = scored[i % groups];
        const auto v = countArray(heads[i], at["heads"][i], 3, total);
        if (v[2] != total || v[0] + v[1] > total) {
            io::failAt(at["heads"][i], "counts do not fit the group's " + std::to_string(total) +
                                           " scored mentions");
        }
        counts[i] = {v[0], v[2], v[1]};
    }
    const json& baselines = io::member(state, at, "baselines");
    io::expectArray(baselines, at["baselines"]);
    if (baselines.size() != static_cast<std::size_t>(kCorefBaselines)) {
        io::failAt(at["baselines"], "expected " + std::to_string(kCorefBaselines) +
                                        " baselines, found " + std::to_string(baselines.size()));
    }
    CorefAccumulator::BaselineCounts correct{};
    for (std::size_t b = 0; b < correct.size(); ++b) {
        const auto row = countArray(baselines[b], at["baselines"][b], groups);
        for (std::size_t g = 0; g < groups; ++g) {
            if (row[g] > scored[g]) {
                io::failAt(at["baselines"][b][g], "more correct than scored mentions");
            }
            correct[b][g] = row[g];
        }
    }
    CorefAccumulator acc(shape.layers, shape.heads);
    acc.restore(std::move(counts), correct, scored);
    acc.counts.windows = partialCount(io::member(state, at, "windows"), at["windows"]);
    acc.counts.scoredMentions =
        partialCount(io::member(state, at, "scored_mentions"), at["scored_mentions"]);
    acc.counts.mentionsWithoutToken =
        partialCount(io::member(state, at, "mentions_without_token"), at["mentions_without_token"]);
    return acc;
}

json corefTotals(const CorefCounts& c) {
    return {{"documents", c.documents},
            {"sentences", c.sentences},
            {"sentences_skipped", c.sentencesSkipped},
            {"mentions", c.mentions},
            {"discontinuous", c.discontinuous},
            {"unclosed", c.unclosed},
            {"unmatched", c.unmatched},
            {"malformed_sentences", c.malformedSentences}};
}

void applyCorefTotals(const json& totals, const JsonAt& at, CorefCounts& c) {
    io::expectObject(totals, at);
    const auto read = [&](const char* key) {
        return partialCount(io::member(totals, at, key), at[key]);
    };
    c.documents = read("documents");
    c.sentences = read("sentences");
    c.sentencesSkipped = read("sentences_skipped");
    c.mentions = read("mentions");
    c.discontinuous = read("discontinuous");
    c.unclosed = read("unclosed");
    c.unmatched = read("unmatched");
    c.malformedSentences = read("malformed_sentences");
}

namespace {

ExactSum exactSum(const json& value, const JsonAt& at) {
    ExactSum sum;
    if (!ExactSum::fromText(io::asString(value, at), sum)) {
        io::failAt(at, "expected an exact sum (lowercase hexadecimal, inf, -inf or nan), found " +
                           io::quoteJson(value));
    }
    return sum;
}

json headState(const RelativePositionAccumulator& acc) {
    json bins = json::array();
    for (const RelativePositionAccumulator::Bin& b : acc.bins()) {
        bins.push_back({b.sum.toText(), b.queries, b.allowed, b.argmax});
    }
    return {{"max_offset", acc.maxOffset()},
            {"bins", std::move(bins)},
            {"confidence", acc.confidenceSum().toText()},
            {"queries", acc.countedQueries()},
            {"skipped", acc.skippedQueries()},
            {"sentences", acc.sentences()}};
}

// Every counted query adds one argmax and at most one key per offset; allowed keys are keys.
RelativePositionAccumulator headFromState(const json& h, const JsonAt& at, PartialShape shape,
                                          const RelativePositionOptions& options) {
    io::expectObject(h, at);
    const auto maxOffset = static_cast<int>(io::asInt(
        io::member(h, at, "max_offset"), at["max_offset"], 0, std::max(shape.maxTokens - 1, 0)));
    RelativePositionAccumulator::Totals totals;
    totals.queries = partialCount(io::member(h, at, "queries"), at["queries"]);
    totals.skipped = partialCount(io::member(h, at, "skipped"), at["skipped"]);
    totals.sentences = partialCount(io::member(h, at, "sentences"), at["sentences"]);
    const json& list = io::member(h, at, "bins");
    io::expectArray(list, at["bins"]);
    const std::size_t n = 2 * static_cast<std::size_t>(maxOffset) + 1;
    if (list.size() != n) {
        io::failAt(at["bins"], "expected " + std::to_string(n) + " bins (offsets -" +
                                   std::to_string(maxOffset) + " to +" + std::to_string(maxOffset) +
                                   "), found " + std::to_string(list.size()));
    }
    std::vector<RelativePositionAccumulator::Bin> bins(n);
    std::int64_t argmax = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const JsonAt where = at["bins"][i];
        io::expectArray(list[i], where);
        if (list[i].size() != 4) {
            io::failAt(where,
                       "expected [sum, queries, allowed, argmax], found " + io::quoteJson(list[i]));
        }
        RelativePositionAccumulator::Bin& b = bins[i];
        b.sum = exactSum(list[i][0], where[0]);
        b.queries = io::asInt(list[i][1], where[1], 0, totals.queries);
        b.allowed = io::asInt(list[i][2], where[2], 0, b.queries);
        b.argmax = io::asInt(list[i][3], where[3], 0, totals.queries);
        argmax += b.argmax;
    }
    if (argmax != totals.queries) {
        io::failAt(at["bins"], "argmax counts add up to " + std::to_string(argmax) +
                                   ", not to the " + std::to_string(totals.queries) +
                                   " counted queries");
    }
    RelativePositionAccumulator acc(options);
    acc.restore(maxOffset, std::move(bins),
                exactSum(io::member(h, at, "confidence"), at["confidence"]), totals);
    return acc;
}

}  // namespace

json positionsState(const ModelPositions& positions) {
    json heads = json::array();
    for (int layer = 0; layer < positions.nLayers(); ++layer) {
        for (int head = 0; head < positions.nHeads(); ++head) {
            heads.push_back(headState(positions.head({layer, head})));
        }
    }
    return {{"heads", std::move(heads)}};
}

ModelPositions positionsFromState(const json& state, const JsonAt& at, PartialShape shape,
                                  const RelativePositionOptions& options) {
    io::expectObject(state, at);
    const json& heads = io::member(state, at, "heads");
    io::expectArray(heads, at["heads"]);
    if (heads.size() != headSlots(shape)) {
        io::failAt(at["heads"], "expected " + std::to_string(headSlots(shape)) +
                                    " heads (layers x heads), found " +
                                    std::to_string(heads.size()));
    }
    ModelPositions positions(shape.layers, shape.heads, options);
    for (int layer = 0; layer < shape.layers; ++layer) {
        for (int head = 0; head < shape.heads; ++head) {
            const auto i = static_cast<std::size_t>(headIndex({layer, head}, shape.heads));
            positions.restoreHead({layer, head},
                                  headFromState(heads[i], at["heads"][i], shape, options));
        }
    }
    return positions;
}

json saturationState(const SaturationAccumulator& acc) {
    json heads = json::array();
    for (const SaturationAccumulator::Sums& h : acc.sums()) {
        heads.push_back({h.rows, h.oneHot, h.entropy.toText(), h.rowMaxAbsLogit.toText(),
                         std::bit_cast<std::uint32_t>(h.maxUnnormed),
                         std::bit_cast<std::uint32_t>(h.maxScaled),
                         std::bit_cast<std::uint32_t>(h.maxLogit)});
    }
    return {{"passes", acc.sentences()},
            {"unnormed_everywhere", acc.unnormedEverywhere()},
            {"heads", std::move(heads)}};
}

SaturationAccumulator saturationFromState(const json& state, const JsonAt& at, PartialShape shape) {
    io::expectObject(state, at);
    const auto passes = static_cast<int>(io::asInt(io::member(state, at, "passes"), at["passes"], 0,
                                                   std::numeric_limits<int>::max()));
    const bool unnormed =
        io::asBool(io::member(state, at, "unnormed_everywhere"), at["unnormed_everywhere"]);
    const json& list = io::member(state, at, "heads");
    io::expectArray(list, at["heads"]);
    const std::size_t n = passes == 0 ? 0 : headSlots(shape);
    if (list.size() != n) {
        io::failAt(at["heads"], "expected " + std::to_string(n) + " heads after " +
                                    std::to_string(passes) + " passes, found " +
                                    std::to_string(list.size()));
    }
    constexpr std::int64_t kFloatBits = 0xFFFFFFFF;
    std::vector<SaturationAccumulator::Sums> heads(n);
    for (std::size_t i = 0; i < n; ++i) {
        const JsonAt where = at["heads"][i];
        io::expectArray(list[i], where);
        if (list[i].size() != 7) {
            io::failAt(where,
                       "expected [rows, one-hot rows, entropy sum, row-max |logit| sum, "
                       "max |unnormed|, max |scaled|, max |logit|], found " +
                           io::quoteJson(list[i]));
        }
        SaturationAccumulator::Sums& h = heads[i];
        h.rows = partialCount(list[i][0], where[0]);
        h.oneHot = io::asInt(list[i][1], where[1], 0, h.rows);
        h.entropy = exactSum(list[i][2], where[2]);
        h.rowMaxAbsLogit = exactSum(list[i][3], where[3]);
        const auto floatAt = [&](std::size_t k) {
            return std::bit_cast<float>(
                static_cast<std::uint32_t>(io::asInt(list[i][k], where[k], 0, kFloatBits)));
        };
        h.maxUnnormed = floatAt(4);
        h.maxScaled = floatAt(5);
        h.maxLogit = floatAt(6);
    }
    SaturationAccumulator acc;
    acc.restore(shape.layers, shape.heads, passes, unnormed, std::move(heads));
    return acc;
}

}  // namespace attnscope::analysis
