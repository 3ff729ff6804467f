// Head-importance files (issue 17): the CSV's two kinds of rows under one header, and the HDF5
// arrays and attributes, read back with the HDF5 C API; and the interchange file's "ablations".
#include "attnscope/export/importance_export.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "../support/h5_reader.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/export/hdf5_writer.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using analysis::ImportanceResult;
using testing::H5Reader;

// 2 layers x 2 heads; unit 2 (1-0) matters most, unit 1 (0-1) least. No masked targets: the
// tests that write them add them.
ImportanceResult smallResult() {
    return {.nLayers = 2,
            .nUnits = 2,
            .kind = forward::AblationKind::Mean,
            .maskFraction = 0.15,
            .seed = 7,
            .items = 3,
            .targets = 8,
            .cleanLoss = 2.5,
            .cleanAccuracy = 0.25,
            .ablatedLoss = {2.75, 2.0, 4.0, 3.0},
            .deltaLoss = {0.25, -0.5, 1.5, 0.5},
            .ablatedAccuracy = {0.25, 0.375, 0.0, 0.125},
            .order = {1, 0, 3, 2},
            .pruning = {{0.0, 0, 2.5, 0.25}, {0.5, 2, 3.5, 0.125}},
            .masked = {}};
}

TEST(ImportanceCsv, WritesUnitRowsThenPruningRows) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "importance.csv";
    exporting::writeImportanceCsv(path, smallResult());
    EXPECT_EQ(testing::readFile(path),
              "record,layer,head,group,delta_loss,ablated_loss,ablated_accuracy,rank,fraction,"
              "removed,loss,accuracy,sentence,position,target_id\n"
              "unit,0,0,,0.25,2.75,0.25,3,,,,,,,\n"
              "unit,0,1,,-0.5,2,0.375,4,,,,,,,\n"
              "unit,1,0,,1.5,4,0,1,,,,,,,\n"
              "unit,1,1,,0.5,3,0.125,2,,,,,,,\n"
              "pruning,,,,,,,,0,0,2.5,0.25,,,\n"
              "pruning,,,,,,,,0.5,2,3.5,0.125,,,\n");
}

// Issue 30: a masked LM's run lists the targets its loss used, one `masked` row each.
TEST(ImportanceCsv, ListsTheMaskedTargetsAfterThePruningRows) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "masked.csv";
    ImportanceResult r = smallResult();
    r.masked = {{0, 3, 1205}, {2, 14, 688}};
    exporting::writeImportanceCsv(path, r);
    const std::string text = testing::readFile(path);
    EXPECT_TRUE(
        text.ends_with("pruning,,,,,,,,0.5,2,3.5,0.125,,,\n"
                       "masked,,,,,,,,,,,,0,3,1205\n"
                       "masked,,,,,,,,,,,,2,14,688\n"))
        << text;
}

TEST(ImportanceCsv, NamesKeyValueGroupsInTheGroupColumn) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "groups.csv";
    ImportanceResult r = smallResult();
    r.kvGroups = true;
    exporting::writeImportanceCsv(path, r);
    const std::string text = testing::readFile(path);
    EXPECT_NE(text.find("\nunit,0,,1,-0.5,2,0.375,4,,,,,,,\n"), std::string::npos) << text;
}

TEST(ImportanceCsv, RefusesAResultOfInconsistentShape) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "bad.csv";
    ImportanceResult r = smallResult();
    r.order.pop_back();
    EXPECT_THROW(exporting::writeImportanceCsv(path, r), InvalidArgument);
    EXPECT_THROW(exporting::writeImportanceH5(tmp.path() / "bad.h5", r, {}), InvalidArgument);
    EXPECT_FALSE(fs::exists(path));
    for (const std::vector<int>& order :
         {std::vector<int>{1, 0, 3, 4}, std::vector<int>{1, 1, 3, 2},
          std::vector<int>{-1, 0, 3, 2}}) {
        r.order = order;
        EXPECT_THROW(exporting::writeImportanceCsv(path, r), InvalidArgument);
    }
    EXPECT_FALSE(fs::exists(path));
    try {
        exporting::writeImportanceCsv(tmp.path() / "missing" / "x.csv", smallResult());
        ADD_FAILURE() << "wrote into a missing folder";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("x.csv"), std::string::npos) << e.what();
    }
}

TEST(ImportanceH5, WritesArraysAndRunAttributes) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "importance.h5";
    const ImportanceResult r = smallResult();
    exporting::writeImportanceH5(path, r, {"models/bert", "ewt.conllu"});
    const H5Reader h5(path);
    ASSERT_TRUE(h5.ok());
    EXPECT_EQ(h5.dims("delta_loss"), (std::vector<hsize_t>{2, 2}));
    EXPECT_EQ(h5.values<double>("delta_loss", H5T_NATIVE_DOUBLE), r.deltaLoss);
    EXPECT_EQ(h5.values<double>("ablated_loss", H5T_NATIVE_DOUBLE), r.ablatedLoss);
    EXPECT_EQ(h5.values<double>("ablated_accuracy", H5T_NATIVE_DOUBLE), r.ablatedAccuracy);
    EXPECT_EQ(h5.values<std::int64_t>("order", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{1, 0, 3, 2}));
    EXPECT_EQ(h5.values<double>("pruning/fraction", H5T_NATIVE_DOUBLE),
              (std::vector<double>{0.0, 0.5}));
    EXPECT_EQ(h5.values<std::int64_t>("pruning/removed", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{0, 2}));
    EXPECT_EQ(h5.values<double>("pruning/loss", H5T_NATIVE_DOUBLE),
              (std::vector<double>{2.5, 3.5}));
    EXPECT_EQ(h5.values<double>("pruning/accuracy", H5T_NATIVE_DOUBLE),
              (std::vector<double>{0.25, 0.125}));
    EXPECT_EQ(h5.text("model"), "models/bert");
    EXPECT_EQ(h5.text("corpus"), "ewt.conllu");
    EXPECT_EQ(h5.text("objective"), "masked LM");
    EXPECT_EQ(h5.text("kind"), "mean");
    EXPECT_EQ(h5.text("units"), "head");
    EXPECT_EQ(h5.number<std::uint64_t>("seed", H5T_NATIVE_UINT64), 7u);
    EXPECT_EQ(h5.number<double>("mask_fraction", H5T_NATIVE_DOUBLE), 0.15);
    EXPECT_EQ(h5.number<double>("clean_loss", H5T_NATIVE_DOUBLE), 2.5);
    EXPECT_EQ(h5.number<double>("clean_accuracy", H5T_NATIVE_DOUBLE), 0.25);
    EXPECT_EQ(h5.number<std::int64_t>("items", H5T_NATIVE_INT64), 3);
    EXPECT_EQ(h5.number<std::int64_t>("targets", H5T_NATIVE_INT64), 8);
}

TEST(ImportanceH5, NamesCausalObjectivesAndGroups) {
    testing::ScratchDir tmp;
    const fs::path path = tmp.path() / "groups.h5";
    ImportanceResult r = smallResult();
    r.kvGroups = true;
    r.objective = analysis::ImportanceObjective::CausalLm;
    exporting::writeImportanceH5(path, r, {});
    const H5Reader h5(path);
    ASSERT_TRUE(h5.ok());
    EXPECT_EQ(h5.text("objective"), "causal LM");
    EXPECT_EQ(h5.text("units"), "kv group");
}

// The interchange file of an ablated pass names its ablations (its maps alone cannot tell a
// zero-ablated head from one that attends nowhere); a clean pass writes an empty attribute.
forward::ForwardResult tinyResult() {
    forward::ForwardResult r;
    r.nLayers = 1;
    r.nHeads = 2;
    r.nTokens = 1;
    r.headDimV = 1;
    r.tokenIds = {5};
    r.probs.assign(2, 1.0f);
    r.logits.assign(2, 0.0f);
    r.context.assign(2, 0.0f);
    r.entropy.assign(2, 0.0f);
    r.allowed = BoolMatrix::Ones(1, 1);
    r.hidden = Matrix::Zero(1, 3);
    r.scales = {1.0f};
    r.maskKind = "none";
    return r;
}

TEST(InterchangeH5, SaysWhichHeadsWereAblated) {
    testing::ScratchDir tmp;
    forward::ForwardResult r = tinyResult();
    const exporting::ExportTokens tokens{{"x"}, {{0, 1}}};
    exporting::writeInterchangeFile(tmp.path() / "clean.h5", r, tokens, {"m", "bert", "x"});
    r.interventions.ablations = {{0, 1, false, forward::AblationKind::Zero},
                                 {0, 0, true, forward::AblationKind::Sink}};
    exporting::writeInterchangeFile(tmp.path() / "ablated.h5", r, tokens, {"m", "bert", "x"});
    EXPECT_EQ(H5Reader(tmp.path() / "clean.h5").text("ablations"), "");
    EXPECT_EQ(H5Reader(tmp.path() / "ablated.h5").text("ablations"), "0-1 (zero), 0-g0 (sink)");
}

}  // namespace
}  // namespace attnscope
