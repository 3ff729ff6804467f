// The attribution file's checks (issue 19): attributions that disagree with each other or with
// the tokens are refused before anything is written; a consistent set is written with the
// reference's dataset names, float32 head maps and float64 layer maps. (The values against the
// reference: tests/core/cli/attribution_cli_test.cpp.)
#include "attnscope/export/attribution_export.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "../support/h5_reader.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using analysis::Attribution;
using analysis::AttributionMethod;
using testing::H5Reader;

// One layer, one head, two tokens; maps that are simple to recognise.
Attribution attribution(AttributionMethod method) {
    Attribution a;
    a.method = method;
    a.nLayers = 1;
    a.nHeads = 1;
    a.nTokens = 2;
    a.layers = {1, 2, {1.0, 0.0, 0.25, 0.75}};
    if (analysis::hasHeadMaps(method)) {
        a.heads = {1.0F, 0.0F, 0.5F, 0.5F};
    }
    if (method == AttributionMethod::Norm) {
        a.transformedNorm = {2.0, 3.0};
    }
    if (method == AttributionMethod::Alti) {
        a.perLayer = a.layers;
        a.reconstructionError = {1e-7};
    }
    return a;
}

exporting::AttributionFileInfo info() {
    return {"models/m", "gpt2", "causal", "", {5, 6}, {"a", "b"}};
}

std::string message(const std::function<void()>& write) {
    try {
        write();
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "(nothing thrown)";
}

TEST(AttributionExport, WritesTheReferenceNamesAndTypes) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "a.h5";
    exporting::writeAttributionHdf5(
        path,
        {attribution(AttributionMethod::Alti), attribution(AttributionMethod::Raw),
         attribution(AttributionMethod::Norm)},
        info());
    const H5Reader h5(path);
    ASSERT_TRUE(h5.ok());
    EXPECT_EQ(h5.values<std::int64_t>("input_ids", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{5, 6}));
    EXPECT_EQ(h5.values<float>("attention", H5T_NATIVE_FLOAT),
              (std::vector<float>{1.0F, 0.0F, 0.5F, 0.5F}));
    EXPECT_EQ(h5.dims("norm_head"), (std::vector<hsize_t>{1, 1, 2, 2}));
    EXPECT_EQ(h5.dims("norm_layer"), (std::vector<hsize_t>{1, 2, 2}));
    EXPECT_EQ(h5.values<double>("transformed_norm", H5T_NATIVE_DOUBLE),
              (std::vector<double>{2.0, 3.0}));
    EXPECT_EQ(h5.values<double>("alti", H5T_NATIVE_DOUBLE),
              (std::vector<double>{1.0, 0.0, 0.25, 0.75}));
    EXPECT_EQ(h5.values<double>("alti_reconstruction_error", H5T_NATIVE_DOUBLE),
              std::vector<double>{1e-7});
    EXPECT_FALSE(h5.exists("rollout"));
    EXPECT_FALSE(h5.exists("flow"));
    EXPECT_EQ(h5.text("methods"), "raw,norm,alti");  // the method table's order, not the input's
    EXPECT_EQ(h5.text("mask_kind"), "causal");
    EXPECT_EQ(h5.strings("tokens"), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(h5.number<std::int64_t>("num_layers", H5T_NATIVE_INT64), 1);
}

TEST(AttributionExport, RefusesAttributionsThatDisagree) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "a.h5";
    const auto write = [&](std::vector<Attribution> all, exporting::AttributionFileInfo i) {
        return message([&] { exporting::writeAttributionHdf5(path, all, i); });
    };
    EXPECT_NE(write({attribution(AttributionMethod::Norm)}, info()).find("no raw attention"),
              std::string::npos);
    Attribution shortNorm = attribution(AttributionMethod::Norm);
    shortNorm.transformedNorm.pop_back();
    EXPECT_NE(write({attribution(AttributionMethod::Raw), shortNorm}, info())
                  .find("norm attribution: transformed_norm holds 1 values, not 2"),
              std::string::npos);
    Attribution otherPass = attribution(AttributionMethod::Rollout);
    otherPass.nTokens = 3;
    EXPECT_NE(write({attribution(AttributionMethod::Raw), otherPass}, info())
                  .find("rollout attribution is of another pass"),
              std::string::npos);
    EXPECT_NE(
        write({attribution(AttributionMethod::Raw), attribution(AttributionMethod::Raw)}, info())
            .find("raw attribution given twice"),
        std::string::npos);
    exporting::AttributionFileInfo oneToken = info();
    oneToken.tokens.pop_back();
    EXPECT_NE(
        write({attribution(AttributionMethod::Raw)}, oneToken).find("2 token ids and 1 token"),
        std::string::npos);
    EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace attnscope
