// Model folders built to crash or mislead (issue 14): indexes read from config.json checked
// against what they index, declared sizes checked against the checkpoint before allocating,
// impossible numbers refused, NaN weights reported instead of drawn as attention.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "../support/checkpoint_copies.h"
#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/io/safetensors.h"
#include "attnscope/model/model.h"

namespace attnscope::model {
namespace {

namespace fs = std::filesystem;
using testing::expectError;

class HostileModel : public testing::CheckpointCopies {};

bool hasWarning(const Model& m, const std::string& fragment) {
    for (const std::string& w : m.warnings) {
        if (w.find(fragment) != std::string::npos) {
            return true;
        }
    }
    return false;
}

// RoBERTa's positions start at pad_token_id + 1: the id indexes the position table.
TEST_F(HostileModel, RobertaPadTokenIdOutsideTheTablesIsRefused) {
    for (const std::int64_t pad : {std::int64_t{-2000000000}, std::int64_t{-3}}) {
        const fs::path dir = withConfig("roberta_f32", [pad](auto& j) { j["pad_token_id"] = pad; });
        expectError<FormatError>([&] { loadModel(dir); }, {"config.json", "pad_token_id",
                                                           std::to_string(pad), "not a token id"});
        fs::remove_all(dir);
    }
    const fs::path dir = withConfig("roberta_f32", [](auto& j) {
        j["pad_token_id"] = 26;  // a token id, but positions 27.. do not exist (27 positions)
    });
    expectError<FormatError>([&] { loadModel(dir); }, {"pad_token_id", "leaves no positions"});
}

TEST_F(HostileModel, OtherModelsDropAnImpossiblePadTokenWithAWarning) {
    const fs::path dir = withConfig("llama_f32", [](auto& j) { j["pad_token_id"] = -1; });
    const auto m = loadModel(dir);
    EXPECT_FALSE(m->spec.padTokenId.has_value());
    EXPECT_TRUE(hasWarning(*m, "pad_token_id: -1 is not a token id"));
}

TEST_F(HostileModel, LayerCountIsCheckedAgainstTheCheckpointBeforeAllocating) {
    // 16.7 M layers would cost ~9 GB of empty slots before the first missing tensor.
    const fs::path dir = withConfig("bert_f32", [](auto& j) { j["num_hidden_layers"] = 16777215; });
    expectError<FormatError>([&] { loadModel(dir); }, {"declares 16777215 layers", "missing tensor",
                                                       "encoder.layer.16777214."});
}

TEST_F(HostileModel, ImpossibleSizesNameTheirKey) {
    const fs::path dir = withConfig("llama_f32", [](auto& j) { j["head_dim"] = 2147483647; });
    expectError<FormatError>([&] { loadModel(dir); },
                             {"config.json", "head width 2147483647", "at most 2^24"});
    const fs::path bert = withConfig("bert_f32", [](auto& j) { j["layer_norm_eps"] = 1e39; });
    expectError<FormatError>([&] { loadModel(bert); }, {"config.json", "layer norm epsilon"});
}

// Issue 30: each refused at load, naming config.json and the key, before any weight is read.
TEST_F(HostileModel, DecoderStartTokenOutsideTheVocabularyNamesTheKey) {
    const fs::path dir = m_dir.path() / "t5";
    fs::create_directory(dir);
    testing::writeFile(dir / "config.json",
                       R"({"model_type": "t5", "d_model": 10, "d_kv": 6, "d_ff": 17,)"
                       R"( "num_heads": 2, "num_layers": 3, "num_decoder_layers": 2,)"
                       R"( "feed_forward_proj": "gated-gelu", "relative_attention_num_buckets": 6,)"
                       R"( "relative_attention_max_distance": 12, "vocab_size": 61,)"
                       R"( "pad_token_id": 0, "eos_token_id": 1})");
    for (const int start : {61, 99999, -1}) {
        testing::editJson(dir / "config.json",
                          [start](auto& j) { j["decoder_start_token_id"] = start; });
        expectError<FormatError>([&] { loadModel(dir); },
                                 {"config.json: decoder_start_token_id: " + std::to_string(start) +
                                  " is not a token id (expected 0 to vocab_size - 1 = 60)"});
    }
}

TEST_F(HostileModel, OverflowingGpt2WidthNamesNEmbd) {
    // 4 × 2^29 overflows int: it read as a feed-forward size of 0.
    const fs::path dir = withConfig("gpt2_f32", [](auto& j) {
        j["n_embd"] = 536870912;
        j["n_head"] = 1;
        j.erase("n_inner");
    });
    expectError<FormatError>([&] { loadModel(dir); },
                             {"config.json: n_embd: 536870912 is too large",
                              "4 × n_embd = 2147483648", "at most 16777216"});
}

TEST_F(HostileModel, DanglingWeightsSymlinkIsNamedNotTakenForNoWeights) {
    const fs::path dir = copy("bert_f32");
    fs::remove(dir / "model.safetensors");
    fs::create_symlink("../blobs/0123abcd", dir / "model.safetensors");
    expectError<FormatError>([&] { loadModel(dir); },
                             {"model.safetensors: cannot open: it is a symbolic link to "
                              "'../blobs/0123abcd', which does not exist"});
}

TEST_F(HostileModel, ConfigNumbersOutsideDoubleAreFormatErrors) {
    const fs::path dir = copy("bert_f32");
    testing::writeFile(dir / "config.json", "{\"model_type\": \"bert\", \"hidden_size\": 1e400}");
    expectError<FormatError>([&] { loadModel(dir); },
                             {"config.json", "line 1, column", "1e400", "outside the range"});
}

TEST_F(HostileModel, ModelFolderThatIsASymlinkLoop) {
    const fs::path loop = m_dir.path() / "loop";
    fs::create_symlink("loop", loop);
    expectError<FormatError>([&] { loadModel(loop); },
                             {"loop", "Too many levels of symbolic links"});
}

TEST_F(HostileModel, NonFiniteWeightsAreReportedNotDrawn) {
    const fs::path dir = copy("bert_f32");
    std::vector<testing::RawTensor> tensors;
    {
        const io::SafetensorsFile f(dir / "model.safetensors");
        for (const auto& [name, t] : f.tensors()) {
            std::string bytes(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
            if (name == "bert.encoder.layer.1.attention.self.query.weight") {
                const float nan = std::numeric_limits<float>::quiet_NaN();
                std::memcpy(bytes.data(), &nan, sizeof nan);
                std::memcpy(bytes.data() + 4, &nan, sizeof nan);
            }
            tensors.push_back({name, std::string(io::dtypeName(t.dtype)), t.shape, bytes});
        }
    }
    testing::writeFile(dir / "model.safetensors", testing::safetensorsBytes(tensors));
    const auto m = loadModel(dir);
    EXPECT_TRUE(hasWarning(*m, "bert.encoder.layer.1.attention.self.query.weight (2 values)"));
    forward::ForwardInput input;
    input.tokenIds = {2, 5, 6, 3};
    const forward::ForwardResult r = forward::runForward(*m, input, {});
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("layer 1 produced NaN or Inf"), std::string::npos)
        << r.warnings[0];

    const auto clean = testing::fixtureModel("bert_f32");
    EXPECT_TRUE(forward::runForward(*clean, input, {}).warnings.empty());
    forward::ForwardOptions options;
    for (const float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        options.scale = bad;
        expectError<InvalidArgument>([&] { forward::runForward(*clean, input, options); },
                                     {"scale", "not a finite number"});
    }
}

}  // namespace
}  // namespace attnscope::model
