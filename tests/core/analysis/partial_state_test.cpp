// Partial results of corpus jobs split into shards (issue 35): the accumulators survive the
// JSON round trip exactly, shards merged in order equal one accumulator over everything, and
// every corrupted or mismatched part is refused with a message naming the file, the place and
// the reason (export/partial_result.h, analysis/partial_state.h).
#include "attnscope/analysis/partial_state.h"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "attnscope/base/error.h"
#include "attnscope/export/partial_result.h"

namespace attnscope::analysis {
namespace {

using exporting::PartialResult;
using nlohmann::json;

constexpr int kLayers = 2;
constexpr int kHeads = 3;
constexpr int kMaxTokens = 40;

// "the cat sat": det, root, obj; predictions vary with the head so counts differ per head.
void addDepsSentence(DependencyAccumulator& acc, int seed) {
    GoldSentence gold;
    gold.words = {"the", "cat", "sat"};
    gold.heads = {2, 3, 0};
    gold.relations = {"det", "nsubj", "root"};
    std::vector<std::vector<int>> predictions;
    for (int h = 0; h < kLayers * kHeads * kDirections; ++h) {
        const int p = (h + seed) % 4;
        predictions.push_back({p == 3 ? kNoPrediction : p, (p + 1) % 3, p % 3});
    }
    ASSERT_TRUE(acc.addPredictions(gold, predictions).scored);
}

json depsState(int sentences) {
    DependencyAccumulator acc(kLayers, kHeads);
    for (int s = 0; s < sentences; ++s) {
        addDepsSentence(acc, s);
    }
    acc.addSkipped("longer than the model's 40 positions");
    return dependencyState(acc);
}

PartialResult part(const std::string& file, std::size_t index, std::size_t count) {
    PartialResult p;
    p.file = file;
    p.command = "deps";
    p.options = {{"from", "mean"}, {"min_count", 1}};
    p.model = {{"path", "/m/bert"}, {"name", "bert"},           {"layers", kLayers},
               {"heads", kHeads},   {"max_tokens", kMaxTokens}, {"parameters", 11838}};
    p.corpus = {{"path", "ud.conllu"},
                {"name", "ud.conllu"},
                {"bytes", 100},
                {"fnv1a64", "0123456789abcdef"},
                {"units", 9}};
    p.shard = {index, count};
    p.totals = {{"malformed", 0}};
    p.state = depsState(static_cast<int>(index) + 1);
    return p;
}

// The JSON writePartial writes for `p`.
json document(const PartialResult& p) {
    return {{"format", "attnscope-partial"},
            {"version", 1},
            {"command", p.command},
            {"options", p.options},
            {"model", p.model},
            {"corpus", p.corpus},
            {"shard", {{"index", p.shard.index}, {"count", p.shard.count}}},
            {"totals", p.totals},
            {"state", p.state}};
}

// Parses the document and reads its state as merge does.
void readDeps(const json& doc) {
    const PartialResult p = exporting::parsePartial(doc.dump(), "p.part.json");
    (void)dependencyFromState(p.state, io::JsonAt{p.file}["state"], p.shape(), {});
}

TEST(PartialState, DependencyCountsRoundTripAndMergeLikeOneRun) {
    DependencyAccumulator whole(kLayers, kHeads);
    std::vector<DependencyAccumulator> shards(3, DependencyAccumulator(kLayers, kHeads));
    for (int s = 0; s < 8; ++s) {
        addDepsSentence(whole, s);
        addDepsSentence(shards[static_cast<std::size_t>(s % 3)], s);
    }
    DependencyAccumulator merged(kLayers, kHeads);
    for (const auto& shard : shards) {
        const json text = json::parse(dependencyState(shard).dump());
        merged.merge(dependencyFromState(text, {"x"}, {kLayers, kHeads, kMaxTokens}, {}));
    }
    EXPECT_EQ(dependencyState(merged), dependencyState(whole));
    EXPECT_EQ(merged.sentencesScored(), 8);
}

TEST(PartialState, CorefCountsRoundTrip) {
    CorefAccumulator acc(kLayers, kHeads);
    ScoredMention a;
    a.type = MentionGroup::Pronoun;
    a.headWord = 2;
    a.antecedentWords = {0};
    a.baselineCorrect = {true, false, true};
    ScoredMention b;
    b.headWord = -1;  // no token: counted apart
    std::vector<std::vector<int>> predictions(kLayers * kHeads, {0, 0});
    predictions[1] = {1, 0};
    predictions[2] = {kNoPrediction, 0};
    acc.addWindow({a, b}, predictions);
    const CorefAccumulator back =
        corefFromState(json::parse(corefState(acc).dump()), {"x"}, {kLayers, kHeads, kMaxTokens});
    EXPECT_EQ(corefState(back), corefState(acc));
    EXPECT_EQ(back.at({0, 1}, MentionGroup::Pronoun).correct, 0);
    EXPECT_EQ(back.at({0, 0}, MentionGroup::All).correct, 1);
    EXPECT_EQ(back.counts.mentionsWithoutToken, 1);
}

TEST(PartialState, PositionSumsMergeBitForBit) {
    const RelativePositionOptions options;
    RelativePositionAccumulator whole(options);
    std::vector<RelativePositionAccumulator> shards(2, RelativePositionAccumulator(options));
    for (int s = 0; s < 7; ++s) {
        const int n = 2 + (s * 5) % 9;
        std::vector<float> probs(static_cast<std::size_t>(n * n));
        for (std::size_t i = 0; i < probs.size(); ++i) {
            probs[i] = 1.0f / static_cast<float>(3 + (i * 7 + static_cast<std::size_t>(s)) % 11);
        }
        whole.add(probs, n);
        shards[static_cast<std::size_t>(s % 2)].add(probs, n);
    }
    ModelPositions one(1, 1, options);
    one.restoreHead({0, 0}, whole);
    ModelPositions merged(1, 1, options);
    for (const auto& shard : shards) {
        ModelPositions p(1, 1, options);
        p.restoreHead({0, 0}, shard);
        merged.merge(positionsFromState(json::parse(positionsState(p).dump()), {"x"},
                                        {1, 1, kMaxTokens}, options));
    }
    EXPECT_EQ(positionsState(merged), positionsState(one));
    for (int d = -9; d <= 9; ++d) {
        const double a = merged.head({0, 0}).at(d).meanAttention;
        const double b = whole.at(d).meanAttention;
        EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << d;
    }
    EXPECT_EQ(merged.head({0, 0}).verdict().confidence, whole.verdict().confidence);
}

TEST(PartialState, SaturationSumsRoundTripBitForBit) {
    SaturationAccumulator acc;
    forward::ForwardResult r;
    r.nLayers = 1;
    r.nHeads = 2;
    r.nTokens = 3;
    r.entropy = {0.5f, 1.25f, 0.1f, 2.0f, 0.3f, 0.7f};
    r.rowMax = {0.995f, 0.4f, 0.6f, 0.999f, 0.2f, 0.5f};
    r.rowMaxAbsLogit = {3.0f, 1.5f, 0.25f, 9.0f, 2.0f, 1.0f};
    r.rowMaxAbsScaled = r.rowMaxAbsLogit;
    acc.add(r);
    r.entropy[0] = 0.123f;
    acc.add(r);
    const SaturationAccumulator back =
        saturationFromState(json::parse(saturationState(acc).dump()), {"x"}, {1, 2, kMaxTokens});
    EXPECT_EQ(saturationState(back), saturationState(acc));
    EXPECT_EQ(back.result()[0].meanEntropy, acc.result()[0].meanEntropy);
    EXPECT_EQ(back.result()[1].maxAbsLogit, 9.0f);
    EXPECT_FALSE(back.hasUnnormed());
    // No pass: no heads, whatever the model.
    EXPECT_EQ(
        saturationFromState(saturationState(SaturationAccumulator()), {"x"}, {1, 2, kMaxTokens})
            .sentences(),
        0);
    testing::expectError<FormatError>(
        [&] {
            json bad = saturationState(acc);
            bad["heads"][1][1] = 7;  // more one-hot rows than its 6 rows
            (void)saturationFromState(bad, {"s.part.json"}, {1, 2, kMaxTokens});
        },
        {"s.part.json: $.heads[1][1]"});
}

struct Corruption {
    const char* name;
    std::function<void(json&)> mutate;
    const char* expected;  // a fragment of the FormatError's message
};

TEST(PartialState, CorruptedPartsAreRefusedByName) {
    const std::vector<Corruption> table = {
        {"not an object", [](json& d) { d = json::array(); }, "p.part.json: $: expected an object"},
        {"other format", [](json& d) { d["format"] = "hdf5"; }, "$.format"},
        {"newer version", [](json& d) { d["version"] = 2; }, "version 2; this attnscope-cli reads"},
        {"version as text", [](json& d) { d["version"] = "1"; }, "$.version"},
        {"command missing", [](json& d) { d.erase("command"); }, "$.command: missing"},
        {"options not an object", [](json& d) { d["options"] = 3; }, "$.options"},
        {"zero layers", [](json& d) { d["model"]["layers"] = 0; }, "$.model.layers"},
        {"huge heads", [](json& d) { d["model"]["heads"] = 1 << 30; }, "$.model.heads"},
        {"too many heads in all",
         [](json& d) {
             d["model"]["layers"] = 4096;
             d["model"]["heads"] = 4096;
         },
         "heads in all"},
        {"no max_tokens", [](json& d) { d["model"].erase("max_tokens"); }, "$.model.max_tokens"},
        {"negative corpus units", [](json& d) { d["corpus"]["units"] = -1; }, "$.corpus.units"},
        {"shard index = count", [](json& d) { d["shard"]["index"] = 3; }, "$.shard.index"},
        {"zero shards", [](json& d) { d["shard"]["count"] = 0; }, "$.shard.count"},
        {"shard as float", [](json& d) { d["shard"]["index"] = 0.5; }, "$.shard.index"},
        {"state not an object", [](json& d) { d["state"] = "x"; }, "$.state"},
        {"negative scored", [](json& d) { d["state"]["scored"] = -4; }, "$.state.scored"},
        {"huge count", [](json& d) { d["state"]["scored"] = std::int64_t{1} << 60; },
         "$.state.scored"},
        {"correct array too short", [](json& d) { d["state"]["relations"][0]["correct"].erase(0); },
         "$.state.relations[0].correct: expected 12 counts, found 11"},
        {"correct array too long",
         [](json& d) { d["state"]["relations"][0]["correct"].push_back(0); },
         "expected 12 counts, found 13"},
        {"count as string", [](json& d) { d["state"]["relations"][0]["no_prediction"][2] = "1"; },
         "$.state.relations[0].no_prediction[2]"},
        {"correct above total", [](json& d) { d["state"]["relations"][0]["correct"][0] = 1000; },
         "$.state.relations[0].correct[0]"},
        {"correct + no prediction above total",
         [](json& d) {
             auto& r = d["state"]["relations"][0];
             r["correct"][0] = r["total"];
             r["no_prediction"][0] = 1;
         },
         "exceeds the total"},
        {"offsets too few",
         [](json& d) { d["state"]["relations"][0]["offset_correct"] = json::array(); },
         "$.state.relations[0].offset_correct"},
        {"relation twice",
         [](json& d) { d["state"]["relations"].push_back(d["state"]["relations"][0]); },
         "listed twice"},
        {"empty relation name", [](json& d) { d["state"]["relations"][0]["name"] = ""; }, "name"},
        {"skip reasons as array", [](json& d) { d["state"]["skip_reasons"] = json::array(); },
         "$.state.skip_reasons"},
        {"not JSON", [](json& d) { d = "{\"format\":"; }, "p.part.json"},
    };
    const json good = document(part("p.part.json", 0, 3));
    ASSERT_NO_THROW(readDeps(good));
    for (const Corruption& c : table) {
        SCOPED_TRACE(c.name);
        json doc = good;
        c.mutate(doc);
        if (doc.is_string()) {  // raw text rather than a document
            testing::expectError<FormatError>(
                [&] { (void)exporting::parsePartial(doc.get<std::string>(), "p.part.json"); },
                {c.expected});
            continue;
        }
        testing::expectError<FormatError>([&] { readDeps(doc); }, {c.expected});
    }
}

struct Mismatch {
    const char* name;
    std::function<void(std::vector<PartialResult>&)> mutate;
    const char* expected;  // a fragment of the InvalidArgument's message
};

TEST(PartialState, PartsOfOtherJobsOrMissingShardsAreRefused) {
    const std::vector<Mismatch> table = {
        {"other command", [](auto& p) { p[1].command = "coref"; }, "b.part.json: the command"},
        {"other option", [](auto& p) { p[2].options["from"] = "max"; },
         "c.part.json: the options differ"},
        {"other model", [](auto& p) { p[1].model["parameters"] = 1; }, "$.parameters: 1 vs 11838"},
        {"other corpus", [](auto& p) { p[1].corpus["fnv1a64"] = "ffff"; }, "the corpus differ"},
        {"other shard count", [](auto& p) { p[1].shard.count = 4; }, "the shard count"},
        {"other totals", [](auto& p) { p[2].totals["malformed"] = 2; }, "the corpus totals"},
        {"duplicate shard", [](auto& p) { p[2].shard.index = 1; }, "shard 1/3 again"},
        {"missing shard", [](auto& p) { p.pop_back(); }, "shard 2/3 is missing"},
        {"no parts", [](auto& p) { p.clear(); }, "no partial results"},
    };
    for (const Mismatch& m : table) {
        SCOPED_TRACE(m.name);
        std::vector<PartialResult> parts = {part("a.part.json", 0, 3), part("b.part.json", 1, 3),
                                            part("c.part.json", 2, 3)};
        m.mutate(parts);
        testing::expectError<InvalidArgument>([&] { exporting::checkParts(parts); }, {m.expected});
    }
    // Paths may differ (another machine's mount point); the parts come back in shard order.
    std::vector<PartialResult> parts = {part("c.part.json", 2, 3), part("a.part.json", 0, 3),
                                        part("b.part.json", 1, 3)};
    parts[1].model["path"] = "/other/bert";
    ASSERT_NO_THROW(exporting::checkParts(parts));
    EXPECT_EQ(parts.front().file, "a.part.json");
    EXPECT_EQ(parts.back().file, "c.part.json");
}

TEST(PartialState, ShardArgument) {
    EXPECT_EQ(exporting::parseShard("2/8").index, 2u);
    EXPECT_EQ(exporting::parseShard("2/8").count, 8u);
    for (const char* bad : {"8/8", "1", "/8", "1/", "-1/8", "1/0", "a/b", "1/8x", "1/99999999"}) {
        testing::expectError<InvalidArgument>([&] { (void)exporting::parseShard(bad); },
                                              {"--shard"});
    }
    const exporting::Shard shard{1, 3};
    EXPECT_TRUE(shard.owns(1));
    EXPECT_TRUE(shard.owns(4));
    EXPECT_FALSE(shard.owns(3));
}

}  // namespace
}  // namespace attnscope::analysis
