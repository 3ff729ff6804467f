// Finding models in a Hugging Face cache laid out as huggingface_hub writes it.
#include "attnscope/model/model_discovery.h"

#include <gtest/gtest.h>

#include "../support/test_files.h"

namespace attnscope::model {
namespace {

namespace fs = std::filesystem;

TEST(ModelDiscovery, HubDirFollowsTheEnvironment) {
    EXPECT_EQ(huggingFaceHubDir("/c", "/h", "/x", "/home/u"), fs::path("/c"));
    EXPECT_EQ(huggingFaceHubDir("", "/h", "/x", "/home/u"), fs::path("/h/hub"));
    EXPECT_EQ(huggingFaceHubDir("", "", "/x", "/home/u"), fs::path("/x/huggingface/hub"));
    EXPECT_EQ(huggingFaceHubDir("", "", "", "/home/u"), fs::path("/home/u/.cache/huggingface/hub"));
}

TEST(ModelDiscovery, ListsSnapshotsAndSaysWhyOthersCannotOpen) {
    testing::ScratchDir hub;
    const auto snap = [&](const std::string& repo, const std::string& rev) {
        const auto dir = hub.path() / repo / "snapshots" / rev;
        fs::create_directories(dir);
        return dir;
    };
    const auto bert = snap("models--google--bert_tiny", "abc123");
    testing::writeFile(bert / "config.json", R"({"model_type": "bert"})");
    testing::writeFile(bert / "model.safetensors", "");
    const auto xlnet = snap("models--xlnet-base-cased", "def456");
    testing::writeFile(xlnet / "config.json", R"({"model_type": "xlnet"})");
    testing::writeFile(xlnet / "model.safetensors", "");
    const auto noWeights = snap("models--gpt2", "0001");
    testing::writeFile(noWeights / "config.json", R"({"model_type": "gpt2"})");
    fs::create_directories(hub.path() / "datasets--squad" / "snapshots" / "x");

    const auto found = findCachedModels(hub.path());
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].name, "google/bert_tiny");
    EXPECT_TRUE(found[0].supported);
    EXPECT_EQ(found[0].path, bert);
    EXPECT_EQ(found[1].name, "gpt2");
    EXPECT_FALSE(found[1].supported);
    EXPECT_EQ(found[1].note, "no safetensors weights");
    EXPECT_EQ(found[2].name, "xlnet-base-cased");
    EXPECT_FALSE(found[2].supported);
    EXPECT_NE(found[2].note.find("'xlnet' is not supported"), std::string::npos) << found[2].note;
    EXPECT_TRUE(findCachedModels(hub.path() / "missing").empty());
}

}  // namespace
}  // namespace attnscope::model
