// GGUF models built to mislead (issue 32): every claim of the metadata checked against the
// tensors before anything is allocated, types AttnScope cannot read refused by name, and a
// small valid file read into the slots it should fill. Files come from the tests' own writer
// (support/gguf_builder.h); "<f>" in an expected message stands for the file's path.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/gguf_builder.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::model {
namespace {

namespace fs = std::filesystem;
using testing::GgufBuilder;
using B = GgufBuilder;

constexpr std::uint32_t kF32 = 0;
constexpr std::uint32_t kQ8_0 = 8;

std::string f32s(std::size_t n, float scale) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
        s += B::raw(scale * std::sin(static_cast<float>(i) * 0.7f + scale));
    }
    return s;
}

// Q8_0 blocks with scale 1/64 and quants i % 7 − 3.
std::string q8s(std::size_t values) {
    std::string s;
    for (std::size_t b = 0; b < values / 32; ++b) {
        s += B::raw<std::uint16_t>(0x2400);
        for (int i = 0; i < 32; ++i) {
            s += static_cast<char>(static_cast<int>((b + static_cast<std::size_t>(i)) % 7) - 3);
        }
    }
    return s;
}

// A one-layer llama: width 32, 2 heads of 16, 1 key/value head, feed-forward 32, 8 tokens; the
// matrices Q8_0 unless `f32Matrices`. `edit` may change the builder before the tensors.
struct TinyLlama {
    std::string arch = "llama";
    bool f32Matrices = false;
    std::uint32_t qType = kQ8_0;
    std::uint32_t blocks = 1;
    std::vector<std::uint64_t> qShape = {32, 32};
    bool withOutput = true;

    std::string bytes() const {
        GgufBuilder b;
        const std::string a = arch;
        b.text("general.architecture", a)
            .u32(a + ".block_count", blocks)
            .u32(a + ".context_length", 64)
            .u32(a + ".embedding_length", 32)
            .u32(a + ".feed_forward_length", 32)
            .u32(a + ".attention.head_count", 2)
            .u32(a + ".attention.head_count_kv", 1)
            .f32(a + ".attention.layer_norm_rms_epsilon", 1e-5f)
            .text("tokenizer.ggml.model", "gpt2")
            .text("tokenizer.ggml.pre", "gpt-2")
            .strings("tokenizer.ggml.tokens", {"a", "b", "c", "d", "e", "f", "g", "h"})
            .strings("tokenizer.ggml.merges", {});
        const auto matrix = [&](const std::string& name, std::uint64_t rows, std::uint32_t type) {
            const std::size_t n = 32 * rows;
            b.tensor(name, {32, rows}, f32Matrices ? kF32 : type,
                     f32Matrices || type == kF32 ? f32s(n, 0.1f) : q8s(n));
        };
        matrix("token_embd.weight", 8, kQ8_0);
        b.tensor("output_norm.weight", {32}, kF32, f32s(32, 1.0f));
        if (withOutput) {
            matrix("output.weight", 8, kQ8_0);
        }
        b.tensor("blk.0.attn_norm.weight", {32}, kF32, f32s(32, 1.0f));
        b.tensor("blk.0.attn_q.weight", qShape, f32Matrices ? kF32 : qType,
                 f32Matrices ? f32s(qShape[0] * qShape[1], 0.1f) : q8s(qShape[0] * qShape[1]));
        matrix("blk.0.attn_k.weight", 16, kQ8_0);
        matrix("blk.0.attn_v.weight", 16, kQ8_0);
        matrix("blk.0.attn_output.weight", 32, kQ8_0);
        b.tensor("blk.0.ffn_norm.weight", {32}, kF32, f32s(32, 1.0f));
        matrix("blk.0.ffn_gate.weight", 32, kQ8_0);
        matrix("blk.0.ffn_up.weight", 32, kQ8_0);
        matrix("blk.0.ffn_down.weight", 32, kQ8_0);
        return b.bytes();
    }
};

class GgufModel : public ::testing::Test {
protected:
    fs::path write(const std::string& bytes) {
        const fs::path p = m_dir.path() / "tiny.gguf";
        testing::writeFile(p, bytes);
        return p;
    }

    template <class E = FormatError>
    std::string messageFor(const std::string& bytes) {
        const fs::path p = write(bytes);
        std::string msg = testing::errorMessage<E>([&] {
            LoadOptions o;
            o.tokenizer = TokenizerLoading::VocabularyOnly;
            loadModel(p, o);
        });
        for (std::size_t at; (at = msg.find(p.string())) != std::string::npos;) {
            msg.replace(at, p.string().size(), "<f>");
        }
        return msg;
    }

    testing::ScratchDir m_dir;
};

std::shared_ptr<const Model> loadIds(const fs::path& p) {
    LoadOptions o;
    o.tokenizer = TokenizerLoading::VocabularyOnly;
    return loadModel(p, o);
}

TEST_F(GgufModel, ReadsASmallLlamaIntoTheSlotsItFills) {
    const auto m = loadIds(write(TinyLlama{}.bytes()));
    EXPECT_EQ(m->spec.modelType, "llama");
    EXPECT_EQ(m->spec.nHeads, 2);
    EXPECT_EQ(m->spec.nKvHeads, 1);
    EXPECT_EQ(m->spec.headDimK, 16);
    EXPECT_EQ(m->spec.vocabSize, 8);
    EXPECT_FALSE(m->spec.tieWordEmbeddings);
    EXPECT_TRUE(m->blockWeights);
    EXPECT_TRUE(m->weights.layers[0].query.isBlocks());
    EXPECT_TRUE(m->weights.tokenEmbedding.isBlocks());
    EXPECT_EQ(m->weights.layers[0].key.outputs(), 16);
    EXPECT_EQ(m->storedDtypes, "Q8_0×9 + F32×3");
    // 9 Q8_0 matrices of 34 bytes per 32 values, 3 norms of 32 floats.
    EXPECT_EQ(m->weights.memoryBytes(), (8 + 8 + 32 + 16 + 16 + 32 + 96) * 34u + 3 * 32 * 4u);
    const auto r = forward::runForward(*m, {{1, 2, 3}, {}});
    for (const float v : r.probs) {
        ASSERT_TRUE(std::isfinite(v));
    }
    EXPECT_FLOAT_EQ(r.attention({0, 0})(0, 0), 1.0f);
}

TEST_F(GgufModel, Float32LoadingWidensTheSameValues) {
    const fs::path p = write(TinyLlama{}.bytes());
    LoadOptions o;
    o.tokenizer = TokenizerLoading::VocabularyOnly;
    o.weights = WeightPrecision::Float32;
    const auto wide = loadModel(p, o);
    const auto kept = loadIds(p);
    EXPECT_FALSE(wide->blockWeights);
    const auto a = forward::runForward(*wide, {{1, 2, 3, 4}, {}});
    const auto b = forward::runForward(*kept, {{1, 2, 3, 4}, {}});
    ASSERT_EQ(a.probs.size(), b.probs.size());
    EXPECT_EQ(0, std::memcmp(a.probs.data(), b.probs.data(), a.probs.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(a.hidden.data(), b.hidden.data(), a.hidden.size() * sizeof(float)));
}

TEST_F(GgufModel, TiedHeadHasNoOutputTensor) {
    TinyLlama t;
    t.withOutput = false;
    EXPECT_TRUE(loadIds(write(t.bytes()))->spec.tieWordEmbeddings);
}

TEST_F(GgufModel, UnreadableTypeIsRefusedNamingTheTensorAndTheType) {
    TinyLlama t;
    t.qType = 20;  // IQ4_NL: 18 bytes per 32 values, like Q4_0
    t.qShape = {32, 32};
    std::string bytes = t.bytes();
    EXPECT_EQ(messageFor<UnsupportedModel>(bytes),
              "<f>: tensor 'blk.0.attn_q.weight': type IQ4_NL is not supported (AttnScope reads "
              "F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K, BF16; "
              "I-quants, ternary and FP4 types are not read yet)");
}

TEST_F(GgufModel, ShapesAreCheckedAgainstTheMetadata) {
    TinyLlama t;
    t.qShape = {32, 64};
    EXPECT_EQ(messageFor(t.bytes()),
              "<f>: tensor 'blk.0.attn_q.weight': shape [64, 32] does not match the metadata, "
              "expected [32, 32] (query weight)");
}

TEST_F(GgufModel, LayerCountIsCheckedBeforeAllocating) {
    TinyLlama t;
    t.blocks = 16000000;
    EXPECT_EQ(messageFor(t.bytes()),
              "<f>: the metadata declares 16000000 layers: missing tensor "
              "'blk.15999999.attn_norm.weight'");
}

TEST_F(GgufModel, UnknownArchitectureIsNamed) {
    TinyLlama t;
    t.arch = "rwkv6";
    EXPECT_EQ(messageFor<UnsupportedModel>(t.bytes()),
              "<f>: key 'general.architecture': 'rwkv6' is not supported (supported GGUF "
              "architectures: llama, qwen2, gpt2, bert)");
}

// A one-layer BERT or GPT-2 as llama.cpp's converter lays them out: width 8, 2 heads, 6 tokens,
// 8 positions, F32. `edit` may add keys and tensors before the file's own.
struct TinyClassic {
    std::string arch = "bert";
    std::optional<bool> causal = false;
    std::uint64_t qkvRows = 24;  // GPT-2's fused q|k|v

    std::string bytes(const std::function<void(GgufBuilder&)>& edit = {}) const {
        GgufBuilder b;
        const std::string& a = arch;
        const std::uint32_t ffn = a == "bert" ? 8 : 32;
        b.text("general.architecture", a)
            .u32(a + ".block_count", 1)
            .u32(a + ".context_length", 8)
            .u32(a + ".embedding_length", 8)
            .u32(a + ".feed_forward_length", ffn)
            .u32(a + ".attention.head_count", 2)
            .f32(a + ".attention.layer_norm_epsilon", 1e-12f);
        if (causal) {
            b.kv(a + ".attention.causal", B::Bool, B::raw<std::uint8_t>(*causal ? 1 : 0));
        }
        if (edit) {
            edit(b);
        }
        const auto t = [&](const std::string& name, std::vector<std::uint64_t> ne) {
            std::size_t n = 1;
            for (const std::uint64_t d : ne) {
                n *= d;
            }
            b.tensor(name, std::move(ne), kF32, f32s(n, 0.3f));
        };
        const auto linear = [&](const std::string& name, std::uint64_t in, std::uint64_t out) {
            t(name + ".weight", {in, out});
            t(name + ".bias", {out});
        };
        t("token_embd.weight", {8, 6});
        t("position_embd.weight", {8, 8});
        if (a == "bert") {
            t("token_types.weight", {8, 2});
            t("token_embd_norm.weight", {8});
            t("token_embd_norm.bias", {8});
            for (const char* p :
                 {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_up", "ffn_down"}) {
                linear(std::string("blk.0.") + p, 8, 8);
            }
            for (const char* p : {"blk.0.attn_output_norm", "blk.0.layer_output_norm"}) {
                t(std::string(p) + ".weight", {8});
                t(std::string(p) + ".bias", {8});
            }
            return b.bytes();
        }
        for (const char* p : {"blk.0.attn_norm", "blk.0.ffn_norm", "output_norm"}) {
            t(std::string(p) + ".weight", {8});
            t(std::string(p) + ".bias", {8});
        }
        linear("blk.0.attn_qkv", 8, qkvRows);
        linear("blk.0.attn_output", 8, 8);
        linear("blk.0.ffn_up", 8, 32);
        linear("blk.0.ffn_down", 32, 8);
        return b.bytes();
    }
};

bool hasWarning(const Model& m, const std::string& part) {
    return std::any_of(m.warnings.begin(), m.warnings.end(),
                       [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

TEST_F(GgufModel, ABertHasNoHeadAndSaysWhy) {
    const auto m = loadIds(write(TinyClassic{}.bytes([](GgufBuilder& b) {
        b.tensor("cls.output.weight", {8, 3}, kF32, f32s(24, 0.1f));  // a classifier: expected
        b.tensor("rope_freqs.weight", {4}, kF32, f32s(4, 1.0f));      // meaningless here
    })));
    EXPECT_EQ(m->spec.modelType, "bert");
    EXPECT_EQ(m->spec.typeVocabSize, 2);
    EXPECT_EQ(m->spec.defaultMask, DefaultMask::Bidirectional);
    EXPECT_EQ(m->spec.activation, Activation::Gelu);
    EXPECT_EQ(m->spec.prediction, PredictionKind::None);
    EXPECT_TRUE(hasWarning(*m,
                           "no prediction head: llama.cpp's converter leaves the masked-LM "
                           "head (cls.predictions.*) out of 'bert' GGUF files"));
    EXPECT_TRUE(hasWarning(*m, "ignored 1 unknown tensor(s): rope_freqs.weight"));
    const auto r = forward::runForward(*m, {{1, 2, 3}, {}});
    EXPECT_GT(r.attention({0, 0})(0, 2), 0.0f);  // bidirectional: the first token sees the last
}

TEST_F(GgufModel, WithoutTheCausalKeyAttentionIsCausalAsInLlamaCpp) {
    TinyClassic bert;
    bert.causal.reset();
    EXPECT_EQ(loadIds(write(bert.bytes()))->spec.defaultMask, DefaultMask::Causal);
    TinyClassic gpt2;
    gpt2.arch = "gpt2";
    gpt2.causal.reset();
    const auto m = loadIds(write(gpt2.bytes()));
    EXPECT_EQ(m->spec.defaultMask, DefaultMask::Causal);
    EXPECT_EQ(m->spec.activation, Activation::GeluTanh);
    EXPECT_EQ(m->spec.prediction, PredictionKind::CausalLm);
    EXPECT_TRUE(m->spec.tieWordEmbeddings);
    EXPECT_EQ(m->weights.layers[0].value.outputs(), 8);
}

TEST_F(GgufModel, AFusedQkvOfTheWrongSizeIsNamed) {
    TinyClassic gpt2;
    gpt2.arch = "gpt2";
    gpt2.qkvRows = 16;
    EXPECT_EQ(messageFor(gpt2.bytes()),
              "<f>: tensor 'blk.0.attn_qkv.weight': shape [16, 8] does not match the metadata, "
              "expected [24, 8] (fused query/key/value weight)");
}

// q8s(values) as the F32 values ggml dequantizes them to.
std::string q8Floats(std::size_t values) {
    std::string s;
    for (std::size_t b = 0; b < values / 32; ++b) {
        for (int i = 0; i < 32; ++i) {
            s += B::raw(
                static_cast<float>(static_cast<int>((b + static_cast<std::size_t>(i)) % 7) - 3) /
                64.0f);
        }
    }
    return s;
}

// GPT-2's fused attn_qkv kept as Q8_0 blocks is split into query, key and value by whole rows:
// the same values stored as F32 give the same bits.
TEST_F(GgufModel, AQuantizedFusedQkvSplitsByRows) {
    const auto bytes = [](bool quantized) {
        GgufBuilder b;
        b.text("general.architecture", "gpt2")
            .u32("gpt2.block_count", 1)
            .u32("gpt2.context_length", 8)
            .u32("gpt2.embedding_length", 32)
            .u32("gpt2.feed_forward_length", 32)
            .u32("gpt2.attention.head_count", 2)
            .f32("gpt2.attention.layer_norm_epsilon", 1e-5f);
        const auto t = [&](const std::string& name, std::vector<std::uint64_t> ne) {
            const std::size_t n = ne.size() == 1 ? ne[0] : ne[0] * ne[1];
            b.tensor(name, std::move(ne), kF32, f32s(n, 0.5f));
        };
        t("token_embd.weight", {32, 6});
        t("position_embd.weight", {32, 8});
        for (const char* p : {"blk.0.attn_norm", "blk.0.ffn_norm", "output_norm"}) {
            t(std::string(p) + ".weight", {32});
            t(std::string(p) + ".bias", {32});
        }
        b.tensor("blk.0.attn_qkv.weight", {32, 96}, quantized ? kQ8_0 : kF32,
                 quantized ? q8s(32 * 96) : q8Floats(32 * 96));
        t("blk.0.attn_qkv.bias", {96});
        for (const char* p : {"blk.0.attn_output", "blk.0.ffn_up", "blk.0.ffn_down"}) {
            t(std::string(p) + ".weight", {32, 32});
            t(std::string(p) + ".bias", {32});
        }
        return b.bytes();
    };
    const auto blocks = loadIds(write(bytes(true)));
    EXPECT_TRUE(blocks->weights.layers[0].key.isBlocks());
    EXPECT_EQ(blocks->weights.layers[0].value.outputs(), 32);
    const auto r = forward::runForward(*blocks, {{1, 2, 3, 4}, {}});
    const auto f = forward::runForward(*loadIds(write(bytes(false))), {{1, 2, 3, 4}, {}});
    ASSERT_EQ(r.probs.size(), f.probs.size());
    EXPECT_EQ(0, std::memcmp(r.probs.data(), f.probs.data(), r.probs.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(r.hidden.data(), f.hidden.data(), r.hidden.size() * sizeof(float)));
}

TEST_F(GgufModel, RequiredKeysAreNamed) {
    const std::string bytes =
        GgufBuilder().text("general.architecture", "llama").u32("llama.block_count", 1).bytes();
    EXPECT_EQ(messageFor(bytes),
              "<f>: key 'llama.embedding_length': missing (llama.cpp requires it)");
}

TEST_F(GgufModel, ImpossibleSizesAreRefused) {
    const std::string bytes =
        GgufBuilder().text("general.architecture", "llama").u32("llama.block_count", 0).bytes();
    EXPECT_EQ(messageFor(bytes),
              "<f>: key 'llama.block_count': 0 is not a size (expected 1 to 2^24)");
}

TEST_F(GgufModel, AFolderIsStillAFolderAndAMissingFileIsNamed) {
    EXPECT_EQ(messageFor(std::string()),
              "<f>: byte 0: file is 0 bytes, too short for a GGUF "
              "header (24 bytes)");
    testing::expectError<FormatError>([&] { loadIds(m_dir.path() / "absent.gguf"); },
                                      {"absent.gguf", "No such file"});
}

}  // namespace
}  // namespace attnscope::model
