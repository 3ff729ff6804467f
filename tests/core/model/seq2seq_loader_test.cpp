// Loading encoder-decoder checkpoints (issue 20): both stacks from one folder, the decoder's own
// spec, LM heads only where the checkpoint or its class has one, and broken folders refused
// with the file, the place and the reason.
#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/raw_tensors.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/forward/seq2seq_pass.h"
#include "attnscope/io/safetensors.h"
#include "attnscope/model/model.h"

namespace attnscope::model {
namespace {

namespace fs = std::filesystem;
using testing::expectError;

const fs::path kRoot = fs::path(ATTNSCOPE_FIXTURE_DIR) / "seq2seq";

std::shared_ptr<const Model> load(const fs::path& dir) {
    LoadOptions options;
    options.tokenizer = TokenizerLoading::VocabularyOnly;
    return loadModel(dir, options);
}

class Seq2SeqLoader : public ::testing::Test {
protected:
    template <class Edit>
    fs::path withConfig(const std::string& name, Edit edit) {
        const fs::path dir = m_dir.copyOf(kRoot / name, name + "-" + std::to_string(m_copies++));
        testing::editJson(dir / "config.json", edit);
        return dir;
    }

    testing::ScratchDir m_dir;
    int m_copies = 0;
};

TEST_F(Seq2SeqLoader, ReadsBothStacksWithTheirOwnSpecs) {
    const auto bart = load(kRoot / "bart_f32");
    ASSERT_TRUE(bart->isEncoderDecoder());
    EXPECT_EQ(bart->spec.nHeads, 3);
    EXPECT_EQ(bart->decoder->spec.nHeads, 2);
    EXPECT_EQ(bart->spec.nLayers, 2);
    EXPECT_EQ(bart->decoder->spec.nLayers, 3);
    EXPECT_EQ(bart->spec.defaultMask, DefaultMask::Bidirectional);
    EXPECT_EQ(bart->decoder->spec.defaultMask, DefaultMask::Causal);
    EXPECT_TRUE(bart->decoder->spec.crossAttention);
    EXPECT_FALSE(bart->decoder->weights.layers[0].crossKey.empty());
    EXPECT_TRUE(bart->weights.layers[0].crossKey.empty());
    EXPECT_EQ(bart->decoder->spec.decoderStartTokenId, 2);
    EXPECT_EQ(bart->spec.positionOffset, 2);
    EXPECT_TRUE(bart->warnings.empty()) << bart->warnings.front();

    const auto t5 = load(kRoot / "t5_v10_f32");
    EXPECT_FALSE(t5->spec.scaleAttention);
    EXPECT_FLOAT_EQ(t5->spec.defaultScale(0), 1.0f);  // T5 folds 1/sqrt(d) into its weights
    EXPECT_GT(t5->spec.relativeBuckets, 0);
    EXPECT_TRUE(t5->spec.relativeBidirectional);
    EXPECT_FALSE(t5->decoder->spec.relativeBidirectional);
    EXPECT_LT(t5->decoder->spec.predictionScale, 1.0f);  // tied head: d_model^-0.5
    EXPECT_TRUE(t5->warnings.empty()) << t5->warnings.front();

    const auto marian = load(kRoot / "marian_untied_bf16");
    EXPECT_TRUE(marian->spec.sinusoidalPositions);
    EXPECT_EQ(marian->weights.positionEmbedding.rows(), marian->spec.maxPositions);
    EXPECT_FLOAT_EQ(marian->weights.positionEmbedding(0, marian->spec.dModel - 1), 1.0f);  // cos 0
    EXPECT_FALSE(marian->decoder->weights.prediction.decoder.empty());  // its own lm_head
}

// Real T5 checkpoints store a position bias on the decoder's first cross-attention that T5 never
// uses; transformers drops it without a word, and so does the loader (issue 30: every T5 open
// showed an "ignored tensor" warning).
TEST_F(Seq2SeqLoader, UnusedCrossAttentionBiasOfT5IsNoWarning) {
    const fs::path dir = m_dir.copyOf(kRoot / "t5_v10_f32", "t5-bias");
    std::vector<testing::RawTensor> tensors = testing::readRawTensors(dir / "model.safetensors");
    for (std::size_t i = 0, n = tensors.size(); i < n; ++i) {
        if (tensors[i].name ==
            "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight") {
            testing::RawTensor bias = tensors[i];
            bias.name = "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight";
            tensors.push_back(bias);
        }
    }
    testing::writeFile(dir / "model.safetensors", testing::safetensorsBytes(tensors));
    const auto t5 = load(dir);
    EXPECT_TRUE(t5->warnings.empty()) << t5->warnings.front();
}

TEST_F(Seq2SeqLoader, BaseModelClassHasNoTiedHead) {
    EXPECT_FALSE(forward::hasPredictionHead(*load(kRoot / "t5_model_f16")));
    // The same checkpoint, called a ForConditionalGeneration: the tied head is there.
    const fs::path dir = withConfig(
        "t5_model_f16", [](auto& j) { j["architectures"] = {"T5ForConditionalGeneration"}; });
    EXPECT_TRUE(forward::hasPredictionHead(*load(dir)));
    EXPECT_EQ(forward::predictionKindName(*load(dir)), "sequence-to-sequence LM");
}

TEST_F(Seq2SeqLoader, MissingDecoderTensorIsNamed) {
    const fs::path dir = m_dir.copyOf(kRoot / "bart_f32", "bart");
    std::vector<testing::RawTensor> kept = testing::readRawTensors(dir / "model.safetensors");
    std::erase_if(kept, [](const testing::RawTensor& t) {
        return t.name == "model.decoder.layers.1.encoder_attn.k_proj.weight";
    });
    testing::writeFile(dir / "model.safetensors", testing::safetensorsBytes(kept));
    expectError<FormatError>([&] { load(dir); },
                             {"missing tensor", "decoder.layers.1.encoder_attn.k_proj.weight",
                              "cross-attention key weight"});
}

TEST_F(Seq2SeqLoader, ImpossibleConfigsAreRefusedBeforeAllocating) {
    expectError<FormatError>(
        [&] {
            load(
                withConfig("t5_v10_f32", [](auto& j) { j["relative_attention_num_buckets"] = 2; }));
        },
        {"config.json", "relative_attention_num_buckets (2)"});
    expectError<FormatError>(
        [&] {
            load(withConfig("t5_v11_bf16",
                            [](auto& j) { j["relative_attention_max_distance"] = 1; }));
        },
        {"config.json", "relative_attention_max_distance (1)"});
    expectError<FormatError>(
        [&] {
            load(withConfig("marian_f32",
                            [](auto& j) { j["max_position_embeddings"] = 2000000000; }));
        },
        {"config.json", "sinusoidal position table"});
    expectError<FormatError>(
        [&] { load(withConfig("bart_f32", [](auto& j) { j["decoder_attention_heads"] = 5; })); },
        {"config.json", "d_model (12)", "decoder_attention_heads (5)"});
    expectError<UnsupportedModel>(
        [&] {
            load(withConfig("marian_f32",
                            [](auto& j) { j["share_encoder_decoder_embeddings"] = false; }));
        },
        {"config.json", "share_encoder_decoder_embeddings"});
    expectError<FormatError>(
        [&] { load(withConfig("t5_v10_f32", [](auto& j) { j["num_decoder_layers"] = 7; })); },
        {"7 layers", "decoder.block.6"});
}

TEST_F(Seq2SeqLoader, BadInputsAreInvalidArguments) {
    const auto m = load(kRoot / "bart_f32");
    expectError<InvalidArgument>(
        [&] {
            forward::runSeq2Seq(*m, {{}, {2}, 0});
        },
        {"source", "no tokens"});
    expectError<InvalidArgument>(
        [&] {
            forward::runSeq2Seq(*m, {{0, 5}, {2, 999}, 0});
        },
        {"decoder input", "999", "outside the vocabulary"});
    expectError<InvalidArgument>(
        [&] {
            forward::runSeq2Seq(*m, {{0, 5}, {2}, 3});
        },
        {"3 padding tokens"});
    forward::ForwardOptions ablate;
    ablate.interventions.ablations.push_back({0, 0, false, forward::AblationKind::Zero});
    expectError<InvalidArgument>(
        [&] {
            forward::runSeq2Seq(*m, {{0, 5}, {2}, 0}, ablate);
        },
        {"ablation is not supported"});
}

}  // namespace
}  // namespace attnscope::model
