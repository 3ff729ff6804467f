// llama.cpp's Llama 3 (llama-bpe) and Qwen (qwen2) vocabulary tests, whose .gguf files ../shared
// cannot hold: the fixture llama_cpp_vocab (tests/reference/llama_cpp_vocab_files.py) takes them
// out of the llama.cpp source bundle that the peer's npm package ships, and writes from the qwen2
// one a Qwen2.5-Instruct vocabulary (Qwen2.5's added tokens from ../shared's
// tokenizer_config.json, laid out as convert_hf_to_gguf.py writes them). The .inp/.out come from
// ../shared. Each test skips, naming what is missing, without the peer or ../shared. The ids of
// the special-token cases are llama.cpp's (node-llama-cpp 3.21.1, tests/peer/llama_cpp, tokenize
// with --special), taken once by hand.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/shared_data.h"
#include "attnscope/io/gguf.h"
#include "attnscope/tokenize/tokenizer.h"
#include "llama_cpp_vocab_test.h"
#include "model/gguf/gguf_tokenizer.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;

const fs::path kVocabDir = testing::kSharedTokenizers / "llama.cpp-vocab";
const fs::path kBundledDir = ATTNSCOPE_LLAMA_CPP_VOCAB_DIR;
const fs::path kQwen25 = kBundledDir / "qwen2.5-instruct-vocab.gguf";

// Skips the calling test when the fixture did not write `file` (no peer, git or ../shared).
#define SKIP_WITHOUT_BUNDLED(file)                                                              \
    if (!fs::exists(file)) {                                                                    \
        GTEST_SKIP() << fs::path(file).string()                                                 \
                     << " not found: the fixture llama_cpp_vocab writes it from the llama.cpp " \
                        "peer (tests/peer/llama_cpp), installed by peer.llama_cpp.setup";       \
    }

using Ids = std::vector<std::int32_t>;

class BundledVocab : public ::testing::TestWithParam<std::string> {};

TEST_P(BundledVocab, EveryTestStringGivesLlamaCppsIds) {
    ATTNSCOPE_SKIP_WITHOUT(kVocabDir);
    const fs::path gguf = kBundledDir / ("ggml-vocab-" + GetParam() + ".gguf");
    SKIP_WITHOUT_BUNDLED(gguf);
    expectLlamaCppIds(gguf, kVocabDir / gguf.filename(), GetParam());
}

std::string vocabTestName(const ::testing::TestParamInfo<std::string>& param) {
    std::string name = param.param;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(PeerBundle, BundledVocab,
                         ::testing::Values(std::string("qwen2"), std::string("llama-bpe")),
                         vocabTestName);

TEST(BundledVocabFiles, Llama3AddsBosAndMatchesItsControlTokens) {
    const fs::path gguf = kBundledDir / "ggml-vocab-llama-bpe.gguf";
    SKIP_WITHOUT_BUNDLED(gguf);
    const auto t = model::loadGgufTokenizer(io::GgufFile(gguf));
    EXPECT_EQ(t->vocabSize(), 128256u);
    EXPECT_EQ(t->specialId(SpecialRole::Bos), 128000);
    EXPECT_EQ(t->specialId(SpecialRole::Eos), 128001);
    EXPECT_EQ(ids(t->encode("Hello world")), (Ids{128000, 9906, 1917}));
    // llama.cpp adds BOS even before a <|begin_of_text|> in the text.
    EXPECT_EQ(ids(t->encode("<|begin_of_text|>Hi<|eot_id|>")),
              (Ids{128000, 128000, 13347, 128009}));
    EXPECT_EQ(ids(t->encode("  3333 tokens")), (Ids{128000, 220, 220, 8765, 18, 11460}));
}

// Qwen2.5's added tokens (all after the 151643 tokens it shares with Qwen1.5) cannot change the
// ids of llama.cpp's test strings, none of which holds their text: the Qwen1.5 .out applies.
TEST(BundledVocabFiles, Qwen25InstructGivesTheQwen2Ids) {
    ATTNSCOPE_SKIP_WITHOUT(kVocabDir);
    SKIP_WITHOUT_BUNDLED(kQwen25);
    expectLlamaCppIds(kQwen25, kVocabDir / "ggml-vocab-qwen2.gguf", "qwen2.5-instruct");
}

TEST(BundledVocabFiles, Qwen25InstructControlAndUserDefinedTokens) {
    SKIP_WITHOUT_BUNDLED(kQwen25);
    const auto t = model::loadGgufTokenizer(io::GgufFile(kQwen25));
    EXPECT_EQ(t->vocabSize(), 151936u);
    EXPECT_EQ(t->specialId(SpecialRole::Bos), 151643);
    EXPECT_EQ(t->specialId(SpecialRole::Eos), 151645);  // <|im_end|>
    EXPECT_EQ(t->specialId(SpecialRole::Pad), 151643);
    EXPECT_EQ(ids(t->encode("Hello")), (Ids{9707}));  // add_bos_token false
    EXPECT_EQ(ids(t->encode("<|im_start|>user\nHi there<|im_end|>\n")),
              (Ids{151644, 872, 198, 13048, 1052, 151645, 198}));
    // <tool_call> is user-defined (not special in Qwen2.5, not shaped <|...|>): llama.cpp matches
    // it in the text whether or not special tokens are parsed.
    EXPECT_EQ(ids(t->encode("Call <tool_call>{\"a\": 1}</tool_call> now")),
              (Ids{7220, 220, 151657, 4913, 64, 788, 220, 16, 92, 151658, 1431}));
    EXPECT_EQ(ids(t->encode("x<|fim_prefix|>y")), (Ids{87, 151659, 88}));
    // Padding tokens are unused: their text is plain text.
    EXPECT_EQ(ids(t->encode("[PAD151700] <|endoftext|>")),
              (Ids{42347, 1808, 16, 20, 16, 22, 15, 15, 60, 220, 151643}));
}

}  // namespace
}  // namespace attnscope::tokenize
