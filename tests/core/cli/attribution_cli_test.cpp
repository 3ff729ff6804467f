// attnscope-cli attribution end to end (issue 19): on the ids of each attribution reference
// (run_attribution_expected.sh), `--method all` writes exactly the reference's datasets, under
// the same names and shapes, within 1e-5 of its float64 values; `--method norm` writes only the
// raw attention and the norm maps; usage and data errors leave no file.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "../support/cli_corpus.h"
#include "../support/fixture_model.h"
#include "../support/h5_reader.h"
#include "../support/reference_file.h"
#include "../support/run_command.h"
#include "../support/test_files.h"
#include "attnscope/io/safetensors.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using testing::H5Reader;

constexpr double kTol = 1e-5;

// The names at the file's root, as h5py's keys() lists them.
std::set<std::string> rootNames(const fs::path& path) {
    std::set<std::string> out;
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    H5G_info_t info{};
    H5Gget_info(file, &info);
    for (hsize_t k = 0; k < info.nlinks; ++k) {
        std::string name(256, '\0');
        const ssize_t size = H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, k,
                                                name.data(), name.size(), H5P_DEFAULT);
        name.resize(static_cast<std::size_t>(std::max<ssize_t>(size, 0)));
        out.insert(name);
    }
    H5Fclose(file);
    return out;
}

// Dataset `set`'s element size in bytes (4: float32, 8: float64 or int64).
std::size_t elementSize(const fs::path& path, const std::string& set) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t data = H5Dopen2(file, set.c_str(), H5P_DEFAULT);
    const hid_t type = H5Dget_type(data);
    const std::size_t size = H5Tget_size(type);
    H5Tclose(type);
    H5Dclose(data);
    H5Fclose(file);
    return size;
}

class AttributionCli : public ::testing::TestWithParam<std::string> {};

// Every tensor of the reference is in the file under its name, with its shape and values.
TEST_P(AttributionCli, AllMethodsMatchTheReferenceDatasetByDataset) {
    const io::SafetensorsFile reference(testing::kFixtureDir / "attribution" /
                                        (GetParam() + ".safetensors"));
    const std::vector<std::int64_t> ids = testing::int64s(reference, "input_ids");
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "attribution.h5";
    const testing::CommandRun run = testing::runCli(
        "attribution " + testing::shellQuoted(testing::kFixtureCheckpoints / GetParam()) +
        " --token-ids " + testing::idList(ids) + " --method all --out " +
        testing::shellQuoted(out));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "methods: raw norm rollout flow alti value-zeroing\n"))
        << run.out;
    EXPECT_TRUE(testing::contains(run.out, "ALTI reconstruction error per layer (max |y^ - y|): "))
        << run.out;
    EXPECT_TRUE(testing::contains(run.out, "wrote:   " + out.string())) << run.out;
    EXPECT_TRUE(testing::contains(run.err, "value-zeroing 100%"))
        << run.err;  // progress of the slow ones

    std::set<std::string> expected = {"tokens"};  // the one dataset the reference lacks
    for (const auto& [name, tensor] : reference.tensors()) {
        expected.insert(name);
    }
    EXPECT_EQ(rootNames(out), expected);
    const H5Reader h5(out);
    ASSERT_TRUE(h5.ok());
    for (const auto& [name, tensor] : reference.tensors()) {
        const std::vector<hsize_t> dims = h5.dims(name.c_str());
        EXPECT_EQ(std::vector<std::int64_t>(dims.begin(), dims.end()), tensor.shape) << name;
        if (name == "input_ids") {
            EXPECT_EQ(h5.values<std::int64_t>("input_ids", H5T_NATIVE_INT64), ids);
            continue;
        }
        const std::vector<double> got = h5.values<double>(name.c_str(), H5T_NATIVE_DOUBLE);
        const std::vector<double> want = testing::doubles(reference, name);
        ASSERT_EQ(got.size(), want.size()) << name;
        double worst = 0;
        for (std::size_t k = 0; k < got.size(); ++k) {
            worst = std::max(worst, std::abs(got[k] - want[k]));
        }
        EXPECT_LE(worst, kTol) << name;
        const bool headMaps = name == "attention" || name == "norm_head";
        EXPECT_EQ(elementSize(out, name), headMaps ? 4u : 8u) << name;
        EXPECT_FALSE(h5.text("rule", name.c_str()).empty()) << name;
        EXPECT_FALSE(h5.text("description", name.c_str()).empty()) << name;
    }
    EXPECT_EQ(h5.strings("tokens").size(), ids.size());
    EXPECT_EQ(h5.text("methods"), "raw,norm,rollout,flow,alti,value-zeroing");
    EXPECT_EQ(h5.number<std::int64_t>("num_tokens", H5T_NATIVE_INT64),
              static_cast<std::int64_t>(ids.size()));
    EXPECT_EQ(h5.text("rule", "rollout"), "A6");
    EXPECT_EQ(h5.number<std::int64_t>("cumulative", H5T_NATIVE_INT64, "rollout"), 1);
    ASSERT_TRUE(h5.hasAttribute("cumulative", "alti_layer"));  // 0 below is read, not a default
    EXPECT_EQ(h5.number<std::int64_t>("cumulative", H5T_NATIVE_INT64, "alti_layer"), 0);
    EXPECT_EQ(h5.text("method", "value_zeroing"), "value-zeroing");
    EXPECT_EQ(h5.text("dims", "attention"), "layer, head, query, key");
    EXPECT_EQ(h5.text("dims", "transformed_norm"), "layer, head, key");
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AttributionCli,
                         ::testing::Values("bert_f32", "gpt2_f32", "llama3_gqa4_f32"));

TEST(AttributionCliMethods, NormWritesOnlyTheAttentionAndTheNormMaps) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "norm.h5";
    const testing::CommandRun run = testing::runCli(
        "attribution " + testing::shellQuoted(testing::kFixtureCheckpoints / "bert_f32") +
        " --text 'the cat sat' --method norm --out " + testing::shellQuoted(out));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "methods: raw norm\n")) << run.out;
    EXPECT_FALSE(testing::contains(run.out, "ALTI")) << run.out;
    const std::set<std::string> expected = {"input_ids", "tokens",     "attention",
                                            "norm_head", "norm_layer", "transformed_norm"};
    EXPECT_EQ(rootNames(out), expected);
    const H5Reader h5(out);
    EXPECT_EQ(h5.text("methods"), "raw,norm");
    EXPECT_EQ(h5.text("text"), "the cat sat");
    EXPECT_EQ(h5.text("model_type"), "bert");
    const std::vector<std::string> tokens = h5.strings("tokens");
    ASSERT_FALSE(tokens.empty());
    EXPECT_EQ(tokens.front(), "[CLS]");
    EXPECT_EQ(tokens.back(), "[SEP]");
}

TEST(AttributionCliErrors, UsageErrorsNameTheProblem) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "x.h5";
    const std::string model = testing::shellQuoted(testing::kFixtureCheckpoints / "gpt2_f32");
    const testing::CommandRun unknown =
        testing::runCli("attribution " + model + " --token-ids 1,2 --method norm,bogus --out " +
                        testing::shellQuoted(out));
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_TRUE(testing::contains(unknown.err, "unknown method 'bogus'")) << unknown.err;
    EXPECT_TRUE(
        testing::contains(unknown.err, "raw, norm, rollout, flow, alti, value-zeroing, all"))
        << unknown.err;
    const testing::CommandRun noOut =
        testing::runCli("attribution " + model + " --token-ids 1,2 --method norm");
    EXPECT_EQ(noOut.exitCode, 2);
    EXPECT_TRUE(testing::contains(noOut.err, "--out")) << noOut.err;
    const testing::CommandRun noMethod = testing::runCli(
        "attribution " + model + " --token-ids 1,2 --out " + testing::shellQuoted(out));
    EXPECT_EQ(noMethod.exitCode, 2);
    EXPECT_TRUE(testing::contains(noMethod.err, "--method")) << noMethod.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST(AttributionCliErrors, AnUnreadableModelIsADataError) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "x.h5";
    const fs::path missing = tmp.path() / "no-such-model";
    const testing::CommandRun run =
        testing::runCli("attribution " + testing::shellQuoted(missing) +
                        " --token-ids 1,2 --method rollout --out " + testing::shellQuoted(out));
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(testing::contains(run.err, missing.string())) << run.err;
    EXPECT_FALSE(fs::exists(out));
}

// Flow alone has a length cap (A8); on a copy of the Llama 3 fixture that takes 80 positions,
// 65 tokens are refused for flow and fine for rollout.
TEST(AttributionCliErrors, FlowRefusesMoreThan64TokensAndRolloutDoesNot) {
    testing::ScratchDir tmp;
    const fs::path model = tmp.copyOf(testing::kFixtureCheckpoints / "llama3_gqa4_f32", "llama");
    testing::editJson(model / "config.json",
                      [](nlohmann::json& j) { j["max_position_embeddings"] = 80; });
    const std::vector<std::int64_t> ids(65, 250);
    const fs::path out = tmp.path() / "x.h5";
    const std::string base = testing::shellQuoted(model) + " --token-ids " + testing::idList(ids) +
                             " --out " + testing::shellQuoted(out);
    const testing::CommandRun flow =
        testing::runCli("attribution " + base + " --method rollout,flow");
    EXPECT_EQ(flow.exitCode, 1);
    EXPECT_TRUE(testing::contains(flow.err, "attention flow: 65 tokens")) << flow.err;
    EXPECT_TRUE(testing::contains(flow.err, "limited to 64 tokens; leave flow out of --method"))
        << flow.err;
    EXPECT_FALSE(fs::exists(out));
    const testing::CommandRun rollout =
        testing::runCli("attribution " + base + " --method rollout");
    EXPECT_EQ(rollout.exitCode, 0) << rollout.err;
    EXPECT_EQ(H5Reader(out).dims("rollout"), (std::vector<hsize_t>{2, 65, 65}));
}

// Ctrl+C during value zeroing (120 tokens on the default model: seconds of work) stops at the
// next key: exit code 130, one line, no file.
TEST(AttributionCliErrors, InterruptWritesNothing) {
    const fs::path model = ATTNSCOPE_DEFAULT_MODEL;
    const std::vector<std::int64_t> ids(120, 1000);
    const std::string err = testing::expectInterruptWritesNothing(
        "attribution " + testing::shellQuoted(model) + " --token-ids " + testing::idList(ids) +
            " --method value-zeroing",
        "vz.h5", "value-zeroing ");
    // Stopped inside the method, not after it ran to the end.
    EXPECT_FALSE(testing::contains(err, "value-zeroing 100%")) << err;
}

}  // namespace
}  // namespace attnscope
