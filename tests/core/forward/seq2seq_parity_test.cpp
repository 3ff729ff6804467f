// Parity of the encoder-decoder pass with the independent PyTorch implementation in
// tests/reference/seq2seq_reference.py (T5 v1.0 / v1.1, BART, mBART, Marian; random weights in
// Hugging Face layout, odd sizes, tied and untied heads): all three kinds of maps, the logits
// before the mask, both stacks' outputs and the LM logits.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/manifest.h"
#include "../support/reference_file.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/forward/seq2seq_pass.h"
#include "attnscope/io/safetensors.h"
#include "attnscope/model/model.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using forward::AttentionKind;

constexpr double kProbTolerance = 1e-5;  // probabilities, absolute
constexpr double kRelTolerance = 1e-4;   // logits and hidden states, relative to the largest

const fs::path kRoot = fs::path(ATTNSCOPE_FIXTURE_DIR) / "seq2seq";

// The checkpoints carry no tokenizer files; only token ids are run.
std::shared_ptr<const model::Model> load(const fs::path& dir) {
    model::LoadOptions options;
    options.tokenizer = model::TokenizerLoading::VocabularyOnly;
    return model::loadModel(dir, options);
}

// The cases make_seq2seq_checkpoints.py writes; ManifestListsEveryCase keeps the lists in step.
// marian_enmg (opus-mt-en-mg's real tokenizer files, random weights) only when ../shared exists.
const bool kWithShared = fs::exists(fs::path(ATTNSCOPE_SHARED_DIR) / "data" / "tokenizers");

std::vector<std::string> cases() {
    std::vector<std::string> out = {"t5_v10_f32",         "t5_v11_bf16", "t5_model_f16",
                                    "bart_f32",           "mbart_f16",   "marian_f32",
                                    "marian_untied_bf16", "bart_tok_f32"};
    if (kWithShared) {
        out.push_back("marian_enmg");
    }
    return out;
}

const std::vector<std::string> kCases = cases();

struct Gap {
    double absolute = 0.0;
    double largest = 0.0;  // of the reference

    double relative() const { return absolute / std::max(1.0, largest); }
};

Gap gap(const float* got, std::size_t size, const std::vector<float>& want) {
    if (size != want.size()) {
        throw std::runtime_error("size " + std::to_string(size) + ", reference " +
                                 std::to_string(want.size()));
    }
    Gap g;
    for (std::size_t i = 0; i < size; ++i) {
        g.absolute = std::max(g.absolute, std::abs(static_cast<double>(got[i]) - want[i]));
        g.largest = std::max(g.largest, std::abs(static_cast<double>(want[i])));
    }
    return g;
}

std::vector<std::int32_t> ids(const Json& list) {
    return list.get<std::vector<std::int32_t>>();
}

void checkKind(const forward::ForwardResult& r, const io::SafetensorsFile& ref,
               const std::string& prefix, const std::string& what) {
    const std::vector<float> probs = testing::floats(ref, prefix + "_attention");
    const std::vector<float> logits = testing::floats(ref, prefix + "_logits");
    EXPECT_LE(gap(r.probs.data(), r.probs.size(), probs).absolute, kProbTolerance)
        << what << " " << prefix << " attention";
    EXPECT_LE(gap(r.logits.data(), r.logits.size(), logits).relative(), kRelTolerance)
        << what << " " << prefix << " logits";
}

class Seq2SeqParity : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqParity, MatchesPyTorchReference) {
    const Json entry = testing::manifestEntry(kRoot, GetParam());
    const fs::path dir = kRoot / GetParam();
    const auto model = load(dir);
    ASSERT_TRUE(model->isEncoderDecoder());
    EXPECT_EQ(model->spec.nLayers, entry.at("encoder_layers").get<int>());
    EXPECT_EQ(model->decoder->spec.nLayers, entry.at("decoder_layers").get<int>());
    EXPECT_EQ(model->decoder->spec.nHeads, entry.at("decoder_heads").get<int>());
    EXPECT_EQ(forward::hasPredictionHead(*model), entry.at("has_lm_head").get<bool>());
    const Json& inputs = entry.at("inputs");
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const io::SafetensorsFile ref(dir / entry.at("references").at(k).get<std::string>());
        forward::Seq2SeqInput input{ids(inputs[k].at("source")), ids(inputs[k].at("decoder")),
                                    inputs[k].at("source_padding").get<int>()};
        const forward::Seq2SeqResult r = forward::runSeq2Seq(*model, input);
        const std::string what = GetParam() + " input " + std::to_string(k) +
                                 " (S=" + std::to_string(input.sourceIds.size()) +
                                 ", T=" + std::to_string(input.decoderIds.size()) + ")";
        checkKind(r.encoder, ref, "encoder", what);
        checkKind(r.decoder, ref, "decoder", what);
        checkKind(r.cross, ref, "cross", what);
        EXPECT_EQ(r.cross.nKeys, static_cast<int>(input.sourceIds.size())) << what;
        EXPECT_LE(gap(r.encoder.hidden.data(), static_cast<std::size_t>(r.encoder.hidden.size()),
                      testing::floats(ref, "encoder_hidden"))
                      .relative(),
                  kRelTolerance)
            << what << " encoder hidden";
        EXPECT_LE(gap(r.decoder.hidden.data(), static_cast<std::size_t>(r.decoder.hidden.size()),
                      testing::floats(ref, "decoder_hidden"))
                      .relative(),
                  kRelTolerance)
            << what << " decoder hidden";
        if (forward::hasPredictionHead(*model)) {
            const Matrix lm = forward::vocabularyLogits(*model, r.decoder.hidden);
            EXPECT_LE(gap(lm.data(), static_cast<std::size_t>(lm.size()),
                          testing::floats(ref, "lm_logits"))
                          .relative(),
                      kRelTolerance)
                << what << " LM logits";
        }
    }
}

// A parity test that cannot fail proves nothing: a 1 % scale change must show in every kind.
TEST_P(Seq2SeqParity, DetectsASmallScaleError) {
    const Json entry = testing::manifestEntry(kRoot, GetParam());
    const fs::path dir = kRoot / GetParam();
    const auto model = load(dir);
    const Json& in = entry.at("inputs").back();
    const io::SafetensorsFile ref(dir / entry.at("references").back().get<std::string>());
    forward::ForwardOptions options;
    options.scale = 1.01f * model->spec.defaultScale(0);
    const auto r = forward::runSeq2Seq(
        *model, {ids(in.at("source")), ids(in.at("decoder")), in.at("source_padding").get<int>()},
        options);
    for (const AttentionKind kind :
         {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}) {
        const std::string name = forward::attentionKindName(kind);
        const auto& probs = r.of(kind).probs;
        EXPECT_GT(
            gap(probs.data(), probs.size(), testing::floats(ref, name + "_attention")).absolute,
            10 * kProbTolerance)
            << GetParam() << " " << name;
    }
}

ATTNSCOPE_MANIFEST_CASES(Seq2SeqParity, kRoot, kCases)

}  // namespace
}  // namespace attnscope
