// Head importance on a corpus (issue 17): the seeded masking rule, the corpus items of each
// objective, every unit's delta loss against a direct full pass with that ablation computed
// here, the pruning curve, shares, cancellation and errors.
#include "attnscope/analysis/head_importance.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <ostream>
#include <thread>

#include <gtest/gtest.h>

#include "../support/executors.h"
#include "../support/fixture_model.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"

namespace attnscope {
namespace {

using testing::fixtureModel;

using analysis::ImportanceItem;
using analysis::ImportanceOptions;
using analysis::ImportanceResult;
using forward::AblationKind;
using forward::HeadAblation;

const std::vector<std::string> kSentences = {
    "the cat sat on the mat and looked at the door",
    "a dog ran to the park",
    "",
    "she said that it was late",
};

constexpr auto inline_ = testing::runInline;
constexpr auto threads = testing::runOnThreads;

struct Score {
    double loss = 0;
    double accuracy = 0;
};

// The objective computed the plain way: a full pass per item with `ablations`, each target's
// logits on their own, log-softmax and argmax written out here.
Score directScore(const model::Model& m, const std::vector<ImportanceItem>& items,
                  const std::vector<HeadAblation>& ablations,
                  std::shared_ptr<const forward::HeadMeans> means = nullptr) {
    forward::ForwardOptions o;
    o.interventions.ablations = ablations;
    o.interventions.means = std::move(means);
    double loss = 0;
    double correct = 0;
    double n = 0;
    for (const ImportanceItem& item : items) {
        const auto r = forward::runForward(m, {item.ids, item.tokenTypeIds}, o);
        for (const auto& [position, id] : item.targets) {
            const Matrix logits = forward::vocabularyLogits(m, r.hidden.row(position));
            Eigen::Index best = 0;
            const double top = logits.row(0).maxCoeff(&best);
            double sum = 0;
            for (Eigen::Index j = 0; j < logits.cols(); ++j) {
                sum += std::exp(static_cast<double>(logits(0, j)) - top);
            }
            loss -= static_cast<double>(logits(0, id)) - top - std::log(sum);
            correct += best == id ? 1 : 0;
            n += 1;
        }
    }
    return {loss / n, correct / n};
}

// Batched decoder products round differently from one row at a time.
void expectNear(double expected, double actual, const std::string& what) {
    EXPECT_NEAR(expected, actual, 1e-5 * std::max(1.0, std::abs(expected))) << what;
}

TEST(MaskedPositions, FollowsSplitMix64AndFisherYates) {
    // Values from a Python transcription of the rule (SplitMix64's first output from state 0
    // is 0xE220A8397B1DCDAF).
    const std::vector<int> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    EXPECT_EQ(analysis::maskedPositions(ten, 0.15, 0, 0), (std::vector<int>{2, 6}));
    EXPECT_EQ(analysis::maskedPositions(ten, 0.15, 0, 1), (std::vector<int>{6, 9}));
    std::vector<int> twenty;
    for (int i = 1; i <= 20; ++i) {
        twenty.push_back(i);
    }
    EXPECT_EQ(analysis::maskedPositions(twenty, 0.15, 7, 3), (std::vector<int>{6, 7, 8}));
    EXPECT_EQ(analysis::maskedPositions(twenty, 0.5, 0, 0),
              (std::vector<int>{1, 3, 4, 5, 6, 8, 16, 17, 18, 20}));
    // seed + index is taken mod 2^64.
    EXPECT_EQ(analysis::maskedPositions(ten, 0.15, std::numeric_limits<std::uint64_t>::max(), 1),
              analysis::maskedPositions(ten, 0.15, 0, 0));
}

TEST(MaskedPositions, RoundsHalfUpWithAtLeastOneAndAtMostAll) {
    const auto count = [](std::size_t m, double f) {
        std::vector<int> c(m);
        for (std::size_t i = 0; i < m; ++i) {
            c[i] = static_cast<int>(2 * i + 1);
        }
        return analysis::maskedPositions(c, f, 5, 0).size();
    };
    EXPECT_EQ(count(10, 0.15), 2u);  // 1.5 rounds up
    EXPECT_EQ(count(10, 0.25), 3u);  // 2.5 rounds up
    EXPECT_EQ(count(10, 0.12), 1u);
    EXPECT_EQ(count(3, 0.15), 1u);  // 0.45 rounds to 0: at least one
    EXPECT_EQ(count(7, 1.0), 7u);
    EXPECT_EQ(count(0, 0.15), 0u);
    EXPECT_EQ(analysis::maskedPositions({2, 5, 9}, 1.0, 0, 0), (std::vector<int>{2, 5, 9}));
    EXPECT_THROW(analysis::maskedPositions({1, 2}, 0.0, 0, 0), InvalidArgument);
    EXPECT_THROW(analysis::maskedPositions({1, 2}, 1.5, 0, 0), InvalidArgument);
    EXPECT_THROW(analysis::maskedPositions({1, 2}, std::nan(""), 0, 0), InvalidArgument);
}

TEST(ImportanceCorpus, MasksNonSpecialTokensOfMaskedLms) {
    const auto m = fixtureModel("bert_f32");
    EXPECT_EQ(analysis::importanceObjective(*m), analysis::ImportanceObjective::MaskedLm);
    ImportanceOptions o;
    o.seed = 3;
    const auto corpus = analysis::importanceCorpus(*m, kSentences, o);
    EXPECT_EQ(corpus.sentences, 4u);
    EXPECT_EQ(corpus.skipped, 1u);  // the empty line: [CLS] [SEP] only
    EXPECT_EQ(corpus.sentenceOf, (std::vector<std::size_t>{0, 1, 3}));
    const auto mask = m->tokenizer->specialId(tokenize::SpecialRole::Mask);
    ASSERT_TRUE(mask);
    for (std::size_t k = 0; k < corpus.items.size(); ++k) {
        const std::size_t s = corpus.sentenceOf[k];
        const auto tokens = m->tokenizer->encode(kSentences[s]);
        std::vector<int> candidates;
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            if (!tokens[i].special) {
                candidates.push_back(static_cast<int>(i));
            }
        }
        const auto chosen = analysis::maskedPositions(candidates, 0.15, 3, s);
        const ImportanceItem& item = corpus.items[k];
        ASSERT_EQ(item.targets.size(), chosen.size());
        std::vector<std::int32_t> expected = tokenize::ids(tokens);
        for (std::size_t t = 0; t < chosen.size(); ++t) {
            const auto p = static_cast<std::size_t>(chosen[t]);
            EXPECT_EQ(item.targets[t], std::make_pair(chosen[t], expected[p]));
            expected[p] = *mask;
        }
        EXPECT_EQ(item.ids, expected);
    }
}

TEST(ImportanceCorpus, PredictsTheNextTokenOfCausalLmsAndCutsLongSentences) {
    const auto m = fixtureModel("gpt2_f32");  // 21 positions
    EXPECT_EQ(analysis::importanceObjective(*m), analysis::ImportanceObjective::CausalLm);
    std::string longText;
    for (int i = 0; i < 40; ++i) {
        longText += "the cat ";
    }
    const auto corpus = analysis::importanceCorpus(*m, {"a dog ran", "a", longText}, {});
    EXPECT_EQ(corpus.skipped, 1u);  // one token: nothing follows it
    EXPECT_EQ(corpus.truncated, 1u);
    ASSERT_EQ(corpus.items.size(), 2u);
    const auto ids = tokenize::ids(m->tokenizer->encode("a dog ran"));
    ASSERT_EQ(corpus.items[0].ids, ids);
    ASSERT_EQ(corpus.items[0].targets.size(), ids.size() - 1);
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
        EXPECT_EQ(corpus.items[0].targets[i], std::make_pair(static_cast<int>(i), ids[i + 1]));
    }
    EXPECT_LE(corpus.items[1].ids.size(), static_cast<std::size_t>(m->spec.maxTokens()));
    EXPECT_GT(corpus.items[1].ids.size(), 10u);
}

TEST(ImportanceCorpus, RefusesModelsWithoutHeadOrTokenizer) {
    const auto bare = fixtureModel("bert_noprefix_f16");  // BertModel: no MLM head
    EXPECT_THROW(analysis::importanceObjective(*bare), InvalidArgument);
    EXPECT_THROW(analysis::importanceCorpus(*bare, kSentences, {}), InvalidArgument);
    model::LoadOptions idsOnly;
    idsOnly.tokenizer = model::TokenizerLoading::VocabularyOnly;
    const auto noTokenizer = model::loadModel(
        std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints" / "bert_f32", idsOnly);
    EXPECT_THROW(analysis::importanceCorpus(*noTokenizer, kSentences, {}), InvalidArgument);
    // A masked LM whose vocabulary has no mask token cannot be asked for masked tokens.
    testing::ScratchDir tmp;
    const auto dir = tmp.copyOf(
        std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints" / "bert_f32", "nomask");
    std::string vocab = testing::readFile(dir / "vocab.txt");
    vocab.replace(vocab.find("\n[MASK]\n"), 8, "\n[NOMASK]");
    testing::writeFile(dir / "vocab.txt", vocab);
    testing::editJson(dir / "tokenizer_config.json",
                      [](nlohmann::json& j) { j.erase("mask_token"); });
    const auto noMask = model::loadModel(dir);
    try {
        analysis::importanceCorpus(*noMask, kSentences, {});
        ADD_FAILURE() << "no error without a mask token";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("no mask token"), std::string::npos) << e.what();
    }
}

struct Case {
    std::string model;
    AblationKind kind;
    bool kvGroups;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.model << " " << forward::ablationKindName(c.kind) << (c.kvGroups ? " groups" : "");
}

class HeadImportance : public ::testing::TestWithParam<Case> {};

std::string caseName(const ::testing::TestParamInfo<Case>& c) {
    return c.param.model + "_" + forward::ablationKindName(c.param.kind) +
           (c.param.kvGroups ? "_groups" : "");
}

// Every unit's ablated loss and accuracy equal a full pass with that ablation alone.
TEST_P(HeadImportance, EachUnitEqualsADirectPass) {
    const Case& c = GetParam();
    const auto m = fixtureModel(c.model);
    ImportanceOptions o;
    o.kind = c.kind;
    o.kvGroups = c.kvGroups;
    o.maskFraction = 0.3;
    const auto items = analysis::importanceCorpus(*m, kSentences, o).items;
    const ImportanceResult r = analysis::headImportance(*m, items, o, inline_);
    const int perLayer = c.kvGroups ? m->spec.nKvHeads : m->spec.nHeads;
    ASSERT_EQ(r.nLayers, m->spec.nLayers);
    ASSERT_EQ(r.nUnits, perLayer);
    std::shared_ptr<const forward::HeadMeans> means;
    if (c.kind == AblationKind::Mean) {
        std::vector<std::vector<std::int32_t>> inputs;
        for (const ImportanceItem& item : items) {
            inputs.push_back(item.ids);
        }
        means = std::make_shared<forward::HeadMeans>(forward::computeHeadMeans(*m, inputs));
    }
    const Score clean = directScore(*m, items, {});
    expectNear(clean.loss, r.cleanLoss, "clean loss");
    EXPECT_DOUBLE_EQ(clean.accuracy, r.cleanAccuracy);
    for (int layer = 0; layer < r.nLayers; ++layer) {
        for (int unit = 0; unit < r.nUnits; ++unit) {
            const std::vector<HeadAblation> one = {{layer, unit, c.kvGroups, c.kind}};
            const Score s = directScore(*m, items, one, means);
            const auto u = static_cast<std::size_t>(layer * r.nUnits + unit);
            const std::string what = c.model + " " + forward::describe(one[0]);
            expectNear(s.loss, r.ablatedLoss[u], what);
            expectNear(s.loss - clean.loss, r.deltaOf(layer, unit), what);
            EXPECT_DOUBLE_EQ(s.accuracy, r.ablatedAccuracy[u]) << what;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HeadImportance,
                         ::testing::Values(Case{"bert_f32", AblationKind::Zero, false},
                                           Case{"bert_f32", AblationKind::Mean, false},
                                           Case{"roberta_f32", AblationKind::Sink, false},
                                           Case{"gpt2_f32", AblationKind::Zero, false},
                                           Case{"llama3_gqa4_f32", AblationKind::Zero, true},
                                           Case{"llama3_gqa4_f32", AblationKind::Mean, true}),
                         caseName);

TEST(HeadImportancePruning, RemovesUnitsInOrderOfIncreasingDeltaLoss) {
    const auto m = fixtureModel("gpt2_sharded_bf16");  // 4 x 4 heads
    ImportanceOptions o;
    o.pruningFractions = {0.0, 0.1, 0.5, 1.0};
    const auto items = analysis::importanceCorpus(*m, kSentences, o).items;
    const ImportanceResult r = analysis::headImportance(*m, items, o, inline_);
    ASSERT_EQ(r.order.size(), 16u);
    for (std::size_t k = 1; k < r.order.size(); ++k) {
        const auto a = static_cast<std::size_t>(r.order[k - 1]);
        const auto b = static_cast<std::size_t>(r.order[k]);
        EXPECT_TRUE(r.deltaLoss[a] < r.deltaLoss[b] || (r.deltaLoss[a] == r.deltaLoss[b] && a < b));
    }
    ASSERT_EQ(r.pruning.size(), 4u);
    EXPECT_EQ(r.pruning[0].removed, 0);
    EXPECT_EQ(r.pruning[0].loss, r.cleanLoss);
    EXPECT_EQ(r.pruning[0].accuracy, r.cleanAccuracy);
    EXPECT_EQ(r.pruning[1].removed, 2);  // floor(1.6 + 0.5)
    EXPECT_EQ(r.pruning[2].removed, 8);
    EXPECT_EQ(r.pruning[3].removed, 16);
    for (std::size_t p = 1; p < r.pruning.size(); ++p) {
        std::vector<HeadAblation> removed;
        for (int k = 0; k < r.pruning[p].removed; ++k) {
            const int u = r.order[static_cast<std::size_t>(k)];
            removed.push_back({u / 4, u % 4, false, AblationKind::Zero});
        }
        const Score s = directScore(*m, items, removed);
        expectNear(s.loss, r.pruning[p].loss, "pruning point " + std::to_string(p));
        EXPECT_DOUBLE_EQ(s.accuracy, r.pruning[p].accuracy);
    }
}

TEST(HeadImportanceShares, TwoSharesGiveTheSameBitsAsOne) {
    const auto m = fixtureModel("llama_f32");
    ImportanceOptions one;
    const auto items = analysis::importanceCorpus(*m, kSentences, one).items;
    const ImportanceResult a = analysis::headImportance(*m, items, one, inline_);
    ImportanceOptions two;
    two.shares = 2;
    std::atomic<int> calls{0};
    double last = 0;
    two.progress = [&](double f) {
        ++calls;
        last = std::max(last, f);
    };
    const ImportanceResult b = analysis::headImportance(*m, items, two, threads);
    EXPECT_EQ(a.deltaLoss, b.deltaLoss);
    EXPECT_EQ(a.ablatedAccuracy, b.ablatedAccuracy);
    EXPECT_EQ(a.order, b.order);
    EXPECT_EQ(a.cleanLoss, b.cleanLoss);
    ASSERT_EQ(a.pruning.size(), b.pruning.size());
    for (std::size_t p = 0; p < a.pruning.size(); ++p) {
        EXPECT_EQ(a.pruning[p].loss, b.pruning[p].loss);
    }
    // Every pass reports: clean and 8 units per item, then clean and 10 pruning points.
    EXPECT_EQ(calls.load(), static_cast<int>(items.size()) * (1 + 8 + 1 + 10));
    EXPECT_DOUBLE_EQ(last, 1.0);
    EXPECT_EQ(a.items, items.size());
    std::int64_t targets = 0;
    for (const ImportanceItem& item : items) {
        targets += static_cast<std::int64_t>(item.targets.size());
    }
    EXPECT_EQ(a.targets, targets);
}

TEST(HeadImportanceCancel, StopsBetweenPasses) {
    const auto m = fixtureModel("bert_f32");
    ImportanceOptions o;
    const auto items = analysis::importanceCorpus(*m, kSentences, o).items;
    o.cancel.cancel();
    EXPECT_THROW(analysis::headImportance(*m, items, o, inline_), Cancelled);
    ImportanceOptions later;
    later.shares = 2;
    int passes = 0;
    later.progress = [&, token = later.cancel](double) {
        if (++passes == 5) {
            token.cancel();
        }
    };
    EXPECT_THROW(analysis::headImportance(*m, items, later, inline_), Cancelled);
    EXPECT_EQ(passes, 5);  // no pass after the cancel
}

TEST(HeadImportanceErrors, RefusesBadInput) {
    const auto m = fixtureModel("bert_f32");
    const auto items = analysis::importanceCorpus(*m, kSentences, {}).items;
    EXPECT_THROW(analysis::headImportance(*m, {}, {}, inline_), InvalidArgument);
    ImportanceOptions badFraction;
    badFraction.maskFraction = 0;
    EXPECT_THROW(analysis::headImportance(*m, items, badFraction, inline_), InvalidArgument);
    ImportanceOptions badPruning;
    badPruning.pruningFractions = {0.5, 1.5};
    EXPECT_THROW(analysis::headImportance(*m, items, badPruning, inline_), InvalidArgument);
    std::vector<ImportanceItem> outside = items;
    outside[0].targets.emplace_back(static_cast<int>(outside[0].ids.size()), 1);
    EXPECT_THROW(analysis::headImportance(*m, outside, {}, inline_), InvalidArgument);
    std::vector<ImportanceItem> noTarget = items;
    noTarget[1].targets.clear();
    EXPECT_THROW(analysis::headImportance(*m, noTarget, {}, inline_), InvalidArgument);
    const auto bare = fixtureModel("bert_noprefix_f16");
    EXPECT_THROW(analysis::headImportance(*bare, items, {}, inline_), InvalidArgument);
}

TEST(HeadImportanceDescribe, NamesTheObjective) {
    ImportanceResult r;
    r.maskFraction = 0.15;
    EXPECT_EQ(analysis::describeObjective(r), "masked LM, 15 % masked (seed 0)");
    r.objective = analysis::ImportanceObjective::CausalLm;
    EXPECT_EQ(analysis::describeObjective(r), "causal LM, next token");
}

}  // namespace
}  // namespace attnscope
