// attnscope-cli ablate end to end (issue 17): on fixture checkpoints of each model kind the
// printed measures are what analysis::measureAblation returns for the same passes (printed to 6
// significant digits), key/value groups on a GQA model, means over a corpus file, mask tokens in
// the text, and usage (exit 2) versus data (exit 1) errors naming the option; --out's CSV and
// HDF5 files read back at full precision.
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/csv_fields.h"
#include "../support/h5_reader.h"
#include "../support/run_command.h"
#include "../support/test_files.h"
#include "attnscope/analysis/ablation_effects.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";
const std::vector<std::int32_t> kIds = {3, 17, 9, 4, 12, 8, 21, 5, 2, 30, 11};
const std::string kIdList = "3,17,9,4,12,8,21,5,2,30,11";

testing::CommandRun ablate(const std::string& model, const std::string& args) {
    return testing::runCli("ablate " + testing::shellQuoted(kCheckpoints / model) + " " + args);
}

std::vector<std::string> fields(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string f; in >> f;) {
        out.push_back(f);
    }
    return out;
}

// The output lines after the one starting with `header`, up to the next blank line.
std::vector<std::vector<std::string>> tableAfter(const std::string& out,
                                                 const std::string& header) {
    std::istringstream in(out);
    std::vector<std::vector<std::string>> rows;
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (inside && line.empty()) {
            break;
        }
        if (inside) {
            rows.push_back(fields(line));
        }
        inside = inside || line.rfind(header, 0) == 0;
    }
    return rows;
}

// The value printed after `name ` on the line starting with `lineStart`.
double valueAfter(const std::string& out, const std::string& lineStart, const std::string& name) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(lineStart, 0) == 0) {
            const auto f = fields(line);
            for (std::size_t i = 0; i + 1 < f.size(); ++i) {
                if (f[i] == name) {
                    return std::stod(f[i + 1]);
                }
            }
        }
    }
    ADD_FAILURE() << "no '" << name << "' on a line starting with '" << lineStart << "':\n" << out;
    return std::nan("");
}

// Printed with 6 significant digits.
void expectPrinted(const std::string& printed, double expected, const std::string& what) {
    EXPECT_NEAR(std::stod(printed), expected, 1e-5 * std::max(1e-3, std::abs(expected))) << what;
}

struct Passes {
    std::shared_ptr<const model::Model> model;
    forward::ForwardResult clean;
    forward::ForwardResult ablated;
};

Passes passes(const std::string& name, const std::vector<std::int32_t>& ids,
              forward::Interventions iv) {
    Passes p;
    p.model = model::loadModel(kCheckpoints / name);
    p.clean = forward::runForward(*p.model, {ids, {}});
    forward::ForwardOptions o;
    o.interventions = std::move(iv);
    p.ablated = forward::runForward(*p.model, {ids, {}}, o);
    return p;
}

forward::Interventions heads(const std::string& list, forward::AblationKind kind) {
    forward::Interventions iv;
    iv.ablations = forward::parseAblationList(list, kind);
    return iv;
}

// The "downstream heads" table against the effects' JS of the heads it names.
void expectTopHeads(const std::string& out, const analysis::AblationEffects& e) {
    const auto rows = tableAfter(out, "rank");
    ASSERT_FALSE(rows.empty()) << out;
    for (const auto& row : rows) {
        ASSERT_EQ(row.size(), 3u) << out;
        const auto dash = row[1].find('-');
        const HeadId h{std::stoi(row[1].substr(0, dash)), std::stoi(row[1].substr(dash + 1))};
        expectPrinted(row[2], e.jsOf(h), "js of " + row[1]);
    }
}

void expectCausalOutput(const std::string& out, const analysis::AblationEffects& e) {
    ASSERT_TRUE(e.causal);
    const analysis::CausalEffects& c = *e.causal;
    EXPECT_NEAR(valueAfter(out, "nll_clean", "nll_clean"), c.nllClean, 1e-5 * c.nllClean);
    EXPECT_NEAR(valueAfter(out, "nll_clean", "delta_nll"), c.deltaNll, 1e-5 * std::abs(c.deltaNll));
    const auto rows = tableAfter(out, " pos");
    ASSERT_EQ(rows.size(), c.kl.size()) << out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), 8u) << out;
        expectPrinted(rows[i][4], c.pTopClean[i], "p_top_clean " + std::to_string(i));
        expectPrinted(rows[i][6], c.deltaPTop[i], "delta_p_top " + std::to_string(i));
        expectPrinted(rows[i][7], c.kl[i], "kl " + std::to_string(i));
    }
    ASSERT_TRUE(c.logitDiff);
    EXPECT_NEAR(valueAfter(out, "logit difference", "delta"), c.logitDiff->delta,
                1e-5 * std::abs(c.logitDiff->delta));
    expectTopHeads(out, e);
}

TEST(AblateCli, CausalLmMeasuresEqualMeasureAblation) {
    const auto r = ablate("gpt2_f32", "--token-ids " + kIdList + " --heads 0-1 --kind sink " +
                                          "--logit-diff 4:#7:#9");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("ablated: 0-1 (sink)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("first ablated layer: 0; the ablated pass reran layers 0..1"),
              std::string::npos)
        << r.out;
    const Passes p = passes("gpt2_f32", kIds, heads("0-1", forward::AblationKind::Sink));
    expectCausalOutput(r.out, analysis::measureAblation(*p.model, p.clean, p.ablated,
                                                        {{}, analysis::LogitDiffRequest{4, 7, 9}}));
}

// --kv-group: "0-1" names key/value group 1, the query heads 4..7 of llama3_gqa4 (8 heads, 2
// groups); the ablated pass restarts at layer 1.
TEST(AblateCli, KeyValueGroupOnAGqaModel) {
    const auto r = ablate("llama3_gqa4_f32", "--token-ids " + kIdList +
                                                 " --heads 1-1 --kv-group --logit-diff 2:#5:#6");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("ablated: 1-g1 (zero)\nheads:   1-4 1-5 1-6 1-7\n"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("first ablated layer: 1; the ablated pass reran layers 1..1"),
              std::string::npos)
        << r.out;
    const Passes p = passes("llama3_gqa4_f32", kIds, heads("1-g1", forward::AblationKind::Zero));
    const auto e = analysis::measureAblation(*p.model, p.clean, p.ablated,
                                             {{}, analysis::LogitDiffRequest{2, 5, 6}});
    ASSERT_TRUE(e.causal);
    EXPECT_NEAR(valueAfter(r.out, "nll_clean", "delta_nll"), e.causal->deltaNll,
                1e-5 * std::abs(e.causal->deltaNll));
    // A last-layer ablation changes no other head's map.
    EXPECT_NE(r.out.find("no other head's map changed"), std::string::npos) << r.out;
}

TEST(AblateCli, MaskedLmDeltaLogpAtMaskedPositions) {
    for (const char* name : {"bert_f32", "distilbert_f16"}) {
        const auto r = ablate(name, "--token-ids " + kIdList + " --heads 0-1,1-0 --mask 2,7");
        ASSERT_EQ(r.exitCode, 0) << name << ": " << r.err;
        const Passes probe = passes(name, kIds, {});
        const auto mask = probe.model->vocabulary()->specialId(tokenize::SpecialRole::Mask);
        ASSERT_TRUE(mask);
        std::vector<std::int32_t> ids = kIds;
        ids[2] = *mask;
        ids[7] = *mask;
        const Passes p = passes(name, ids, heads("0-1,1-0", forward::AblationKind::Zero));
        analysis::EffectRequest request{{{2, kIds[2]}, {7, kIds[7]}}, std::nullopt};
        // distilbert_f16's mask token is id 4, which kIds holds at position 3: a mask token of
        // the input, measured against the clean top prediction and marked *.
        for (const int literal : forward::maskTokenPositions(*p.model, kIds)) {
            request.targets.push_back(
                {literal, forward::topPredictions(*p.model, p.clean, literal, 1).front().id});
        }
        const auto e = analysis::measureAblation(*p.model, p.clean, p.ablated, request);
        const auto rows = tableAfter(r.out, " pos");
        ASSERT_EQ(rows.size(), e.masked.size()) << r.out;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            ASSERT_EQ(rows[i].size(), 6u) << r.out;
            EXPECT_EQ(rows[i][0], std::to_string(e.masked[i].target.position));
            EXPECT_EQ(rows[i][1].back() == '*', i >= 2) << r.out;
            expectPrinted(rows[i][3], e.masked[i].logpClean, std::string(name) + " logp_clean");
            expectPrinted(rows[i][5], e.masked[i].deltaLogp, std::string(name) + " delta_logp");
        }
        EXPECT_EQ(rows.size(), std::string(name) == "distilbert_f16" ? 3u : 2u);
        expectTopHeads(r.out, e);
    }
}

TEST(AblateCli, MaskTokenInTheTextIsMeasuredAgainstTheCleanTopPrediction) {
    const auto r = ablate("bert_f32", "--text 'the [MASK] sat' --heads 0-2 --kind sink");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("clean pass's top prediction"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[MASK]*"), std::string::npos) << r.out;
}

TEST(AblateCli, MeanAblationOverACorpusFile) {
    testing::ScratchDir tmp;
    const fs::path corpus = tmp.path() / "corpus.txt";
    testing::writeFile(corpus, "the cat sat\n\nthe mat\n");
    const auto r =
        ablate("bert_f32", "--text 'the cat' --heads 1-1 --kind mean --mask 2 " +
                               std::string("--mean-corpus ") + testing::shellQuoted(corpus));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("means pooled over 2 sentences of " + corpus.string()), std::string::npos)
        << r.out;
    const auto m = model::loadModel(kCheckpoints / "bert_f32");
    std::vector<std::vector<std::int32_t>> sequences;
    for (const char* line : {"the cat sat", "the mat"}) {
        sequences.emplace_back();
        for (const tokenize::Token& t : m->tokenizer->encode(line)) {
            sequences.back().push_back(t.id);
        }
    }
    forward::Interventions iv = heads("1-1", forward::AblationKind::Mean);
    iv.means = std::make_shared<forward::HeadMeans>(forward::computeHeadMeans(*m, sequences));
    std::vector<std::int32_t> ids;
    for (const tokenize::Token& t : m->tokenizer->encode("the cat")) {
        ids.push_back(t.id);
    }
    const std::int32_t original = ids[2];
    ids[2] = *m->vocabulary()->specialId(tokenize::SpecialRole::Mask);
    const Passes p = passes("bert_f32", ids, iv);
    const auto e =
        analysis::measureAblation(*p.model, p.clean, p.ablated, {{{2, original}}, std::nullopt});
    const auto rows = tableAfter(r.out, " pos");
    ASSERT_EQ(rows.size(), 1u) << r.out;
    expectPrinted(rows[0][5], e.masked[0].deltaLogp, "delta_logp");
    // Without a corpus the means are the input's own.
    const auto self = ablate("bert_f32", "--text 'the cat' --heads 1-1 --kind mean");
    ASSERT_EQ(self.exitCode, 0) << self.err;
    EXPECT_NE(self.out.find("means pooled over 1 sentence of the input itself"), std::string::npos)
        << self.out;
}

TEST(AblateCliErrors, UsageErrorsExitTwo) {
    for (const std::string& args :
         {std::string("--token-ids 3,4 --heads 0-x"), std::string("--token-ids 3,4"),
          std::string("--heads 0-1"), std::string("--token-ids 3,4 --heads 0-1 --kind half")}) {
        const auto r = ablate("gpt2_f32", args);
        EXPECT_EQ(r.exitCode, 2) << args << ": " << r.err;
    }
    EXPECT_NE(ablate("gpt2_f32", "--token-ids 3,4 --heads 0-x").err.find("'0-x'"),
              std::string::npos);
}

TEST(AblateCliErrors, DataErrorsExitOneNamingTheOption) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--token-ids 3,4 --heads 5-1", "--heads: ablation 5-1 (zero): layer 5"},
        {"--token-ids 3,4 --heads 0-3 --kv-group", "--heads: ablation 0-g3 (zero)"},
        {"--token-ids 3,4 --heads 0-1 --mask 1", "--mask: masking is for masked LMs"},
        {"--token-ids 3,4 --heads 0-1 --logit-diff 2:#1:#2", "--logit-diff: position 2"},
        {"--token-ids 3,4 --heads 0-1 --logit-diff 1:nosuchpiece:#2",
         "--logit-diff: 'nosuchpiece:#2' is not two vocabulary pieces"},
        {"--token-ids 3,4 --heads 0-1 --kind mean --mean-corpus /nonexistent/c.txt",
         "--mean-corpus: /nonexistent/c.txt"},
    };
    for (const auto& [args, message] : cases) {
        const auto r = ablate("gpt2_f32", args);
        EXPECT_EQ(r.exitCode, 1) << args;
        EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    }
    const auto bert = ablate("bert_f32", "--token-ids 3,4 --heads 0-1 --mask 5");
    EXPECT_EQ(bert.exitCode, 1);
    EXPECT_NE(bert.err.find("--mask: position 5 is outside the sentence's 2 tokens"),
              std::string::npos)
        << bert.err;
}

// ---- --out ----

// One CSV record (RFC 4180 quoting, as csv_writer.h writes it) as a column -> field map.
using CsvRow = std::map<std::string, std::string>;

std::vector<CsvRow> readCsv(const fs::path& path) {
    std::istringstream in(testing::readFile(path));
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = testing::csvFields(line);
    std::vector<CsvRow> rows;
    while (std::getline(in, line)) {
        const std::vector<std::string> fields = testing::csvFields(line);
        EXPECT_EQ(fields.size(), header.size()) << line;
        CsvRow row;
        for (std::size_t k = 0; k < std::min(fields.size(), header.size()); ++k) {
            row[header[k]] = fields[k];
        }
        rows.push_back(row);
    }
    return rows;
}

std::vector<CsvRow> recordsOf(const std::vector<CsvRow>& rows, const std::string& record) {
    std::vector<CsvRow> out;
    for (const CsvRow& r : rows) {
        if (r.at("record") == record) {
            out.push_back(r);
        }
    }
    return out;
}

// Full precision: the file's number is the computed one up to the last bits (the terminal's
// 6 significant digits would miss by 1e-7 relative and more).
void expectExact(const std::string& field, double expected, const std::string& what) {
    if (std::isnan(expected)) {
        EXPECT_EQ(field, "nan") << what;
        return;
    }
    EXPECT_NEAR(std::stod(field), expected, 1e-12 * std::max(1.0, std::abs(expected))) << what;
}

TEST(AblateCliOut, CausalLmCsvHoldsEveryMeasureAtFullPrecision) {
    testing::ScratchDir tmp;
    const fs::path csv = tmp.path() / "ablation.csv";
    const auto r =
        ablate("gpt2_f32", "--token-ids " + kIdList + " --heads 0-1 --kind sink " +
                               "--logit-diff 4:#7:#9 --out " + testing::shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("wrote: " + csv.string()), std::string::npos) << r.out;
    const Passes p = passes("gpt2_f32", kIds, heads("0-1", forward::AblationKind::Sink));
    const auto e = analysis::measureAblation(*p.model, p.clean, p.ablated,
                                             {{}, analysis::LogitDiffRequest{4, 7, 9}});
    ASSERT_TRUE(e.causal);
    const std::vector<CsvRow> rows = readCsv(csv);
    // Every head, the ablated one too (the printed list leaves it out).
    const auto headRows = recordsOf(rows, "head");
    ASSERT_EQ(headRows.size(), e.js.size());
    for (std::size_t k = 0; k < headRows.size(); ++k) {
        const CsvRow& h = headRows[k];
        const HeadId id{std::stoi(h.at("layer")), std::stoi(h.at("head"))};
        EXPECT_EQ(h.at("head_ablated"), (id == HeadId{0, 1} ? "1" : "0")) << k;
        expectExact(h.at("js"), e.jsOf(id), "js of " + id.toString());
    }
    const auto nll = recordsOf(rows, "nll");
    ASSERT_EQ(nll.size(), 1u);
    expectExact(nll[0].at("clean"), e.causal->nllClean, "nll_clean");
    expectExact(nll[0].at("delta"), e.causal->deltaNll, "delta_nll");
    const auto next = recordsOf(rows, "next");
    ASSERT_EQ(next.size(), kIds.size());
    for (std::size_t i = 0; i < next.size(); ++i) {
        EXPECT_EQ(next[i].at("target_id"), std::to_string(e.causal->topIds[i]));
        expectExact(next[i].at("clean"), e.causal->pTopClean[i], "p_top_clean");
        expectExact(next[i].at("ablated"), e.causal->pTopAblated[i], "p_top_ablated");
        expectExact(next[i].at("kl"), e.causal->kl[i], "kl");
    }
    const auto diff = recordsOf(rows, "logit_diff");
    ASSERT_EQ(diff.size(), 1u);
    EXPECT_EQ(diff[0].at("position"), "4");
    expectExact(diff[0].at("delta"), e.causal->logitDiff->delta, "logit diff");
}

TEST(AblateCliOut, MaskedLmHdf5HoldsEveryMeasure) {
    testing::ScratchDir tmp;
    const fs::path h5 = tmp.path() / "ablation.h5";
    // distilbert_f16's mask token is id 4, which kIds holds at position 3 (in the text).
    const auto r = ablate("distilbert_f16", "--token-ids " + kIdList +
                                                " --heads 0-1,1-0 --mask 2,7 --kind mean --out " +
                                                testing::shellQuoted(h5));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const testing::H5Reader f(h5);
    ASSERT_TRUE(f.ok());
    const Passes probe = passes("distilbert_f16", kIds, {});
    std::vector<std::int32_t> ids = kIds;
    const std::int32_t mask = *probe.model->vocabulary()->specialId(tokenize::SpecialRole::Mask);
    ids[2] = ids[7] = mask;
    forward::Interventions iv = heads("0-1,1-0", forward::AblationKind::Mean);
    // The means pool over the input as fed: masks in place.
    iv.means = std::make_shared<forward::HeadMeans>(forward::computeHeadMeans(*probe.model, {ids}));
    const Passes p = passes("distilbert_f16", ids, iv);
    analysis::EffectRequest request{{{2, kIds[2]}, {7, kIds[7]}}, std::nullopt};
    request.targets.push_back({3, forward::topPredictions(*p.model, p.clean, 3, 1).front().id});
    const auto e = analysis::measureAblation(*p.model, p.clean, p.ablated, request);
    const auto fed = f.values<std::int64_t>("token_ids", H5T_NATIVE_INT64);
    EXPECT_EQ(std::vector<std::int64_t>(ids.begin(), ids.end()), fed);
    EXPECT_EQ(f.strings("tokens").size(), kIds.size());
    EXPECT_EQ(f.text("kind"), "mean");
    EXPECT_EQ(f.text("objective"), "masked LM");
    EXPECT_EQ(f.text("mean_corpus"), "the input itself, as fed (masks in place)");
    const auto js = f.values<double>("js", H5T_NATIVE_DOUBLE);
    ASSERT_EQ(js.size(), e.js.size());
    for (std::size_t k = 0; k < js.size(); ++k) {
        if (std::isnan(e.js[k])) {
            EXPECT_TRUE(std::isnan(js[k])) << k;
        } else {
            EXPECT_NEAR(js[k], e.js[k], 1e-12 * std::max(1.0, std::abs(e.js[k]))) << k;
        }
    }
    const auto ablated = f.values<std::int8_t>("head_ablated", H5T_NATIVE_INT8);
    ASSERT_EQ(ablated.size(), e.js.size());
    EXPECT_EQ(ablated[1] + ablated[static_cast<std::size_t>(e.nHeads)], 2);
    const auto position = f.values<std::int64_t>("masked/position", H5T_NATIVE_INT64);
    const auto inText = f.values<std::int8_t>("masked/in_text", H5T_NATIVE_INT8);
    const auto delta = f.values<double>("masked/delta_logp", H5T_NATIVE_DOUBLE);
    ASSERT_EQ(position.size(), e.masked.size());
    ASSERT_EQ(delta.size(), e.masked.size());
    for (std::size_t i = 0; i < e.masked.size(); ++i) {
        EXPECT_EQ(position[i], e.masked[i].target.position);
        EXPECT_EQ(inText[i], e.masked[i].target.position == 3 ? 1 : 0);
        EXPECT_NEAR(delta[i], e.masked[i].deltaLogp, 1e-12 * std::abs(e.masked[i].deltaLogp));
    }
    EXPECT_FALSE(f.exists("causal"));
}

TEST(AblateCliOut, OutputIsCheckedBeforeAnyWork) {
    testing::ScratchDir tmp;
    const auto usage = ablate("gpt2_f32", "--token-ids 3,4 --heads 0-1 --out x.txt");
    EXPECT_EQ(usage.exitCode, 2) << usage.err;
    EXPECT_NE(usage.err.find("--out must end in .csv or .h5"), std::string::npos) << usage.err;
    const fs::path missing = tmp.path() / "no" / "such" / "ablation.csv";
    const auto r =
        ablate("gpt2_f32", "--token-ids 3,4 --heads 0-1 --out " + testing::shellQuoted(missing));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("--out: " + missing.string() + ": cannot write"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("model:"), std::string::npos) << r.out;  // nothing was computed
}

}  // namespace
}  // namespace attnscope
