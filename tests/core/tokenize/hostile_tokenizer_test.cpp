// Tokenizer files built to exhaust memory or the stack (issue 14): a stray huge id, a pipeline
// nested thousands deep. Each costs memory in proportion to what the file holds, or is refused.
// Malformed Unigram and WordLevel models and Precompiled charsmaps (issue 20) are FormatErrors
// naming the file and JSON path.
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "attnscope/tokenize/tokenizer.h"
#include "attnscope/tokenize/vocab.h"

namespace attnscope::tokenize {
namespace {

TEST(HostileTokenizer, AStrayHugeIdDoesNotSizeTheTable) {
    Vocab v;
    v.add("a", 0);
    v.add("b", 1);
    v.add("z", (1 << 24) - 1);  // one entry; a dense table would hold 16 M strings (~500 MB)
    EXPECT_EQ(v.denseIdLimit(), 2u);
    EXPECT_EQ(v.idLimit(), std::size_t{1} << 24);
    EXPECT_EQ(v.piece((1 << 24) - 1), "z");
    EXPECT_EQ(v.piece(1000), "");
    EXPECT_EQ(v.find("z"), (1 << 24) - 1);
    // Ids that grow with the entries stay in the dense table.
    Vocab dense;
    for (std::int32_t id = 0; id < 100000; ++id) {
        dense.add(std::to_string(id), id);
    }
    EXPECT_EQ(dense.denseIdLimit(), 100000u);
}

TEST(HostileTokenizer, ASequenceNestedThousandsDeepIsRefused) {
    testing::ScratchDir dir;
    std::string normalizer = R"({"type": "Lowercase"})";
    for (int i = 0; i < 20000; ++i) {
        normalizer = R"({"type": "Sequence", "normalizers": [)" + normalizer + "]}";
    }
    testing::writeFile(dir.path() / "tokenizer.json",
                       R"({"version": "1.0", "added_tokens": [], "normalizer": )" + normalizer +
                           R"(, "pre_tokenizer": null, "post_processor": null, "decoder": null,)"
                           R"( "model": {"type": "WordPiece", "unk_token": "[UNK]",)"
                           R"( "vocab": {"[UNK]": 0}}})");
    try {
        loadTokenizer(dir.path(), "bert");
        ADD_FAILURE() << "expected FormatError";
    } catch (const FormatError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("tokenizer.json"), std::string::npos) << what;
        EXPECT_NE(what.find("nested more than"), std::string::npos) << what;
    }
}

TEST(HostileTokenizer, ASplitPatternThatGivesUpSaysWhatToDo) {
    // Nested quantifiers backtrack exponentially: PCRE2 stops at its match limit.
    const RegexSplitter splitter("(a+)+(b|c)", false, "tokenizer.json: $.pre_tokenizer.pattern");
    NormalizedText text;
    for (std::size_t i = 0; i < 40; ++i) {
        text.push_back({U'a', i, i + 1});
    }
    try {
        splitter.find(text);
        ADD_FAILURE() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("$.pre_tokenizer.pattern: character 0 of the text"), std::string::npos)
            << what;
        EXPECT_NE(what.find("limit"), std::string::npos) << what;
        EXPECT_NE(what.find("shorten it or break it up"), std::string::npos) << what;
        EXPECT_EQ(what.find("code -"), std::string::npos) << what;
    }
}

// Writes a tokenizer.json with `model` and `normalizer` and loads it; the error must name the
// file and every fragment of `expected` (the JSON path, the reason).
void expectRefused(const std::string& model, std::initializer_list<std::string> expected,
                   const std::string& normalizer = "null") {
    testing::ScratchDir dir;
    const auto file = dir.path() / "tokenizer.json";
    testing::writeFile(file, R"({"version": "1.0", "added_tokens": [], "normalizer": )" +
                                 normalizer + R"(, "pre_tokenizer": null, "model": )" + model +
                                 "}");
    std::vector<std::string> fragments(expected);
    fragments.push_back(file.string());
    try {
        loadTokenizerJson(file);
        ADD_FAILURE() << "expected FormatError for " << model;
    } catch (const FormatError& e) {
        const std::string what = e.what();
        for (const std::string& f : fragments) {
            EXPECT_NE(what.find(f), std::string::npos) << what << " lacks " << f;
        }
    }
}

TEST(HostileTokenizer, MalformedUnigramModelsAreRefused) {
    const std::string head = R"({"type": "Unigram", "unk_id": 0, "vocab": )";
    expectRefused(head + R"([["a", -1.0], ["b"]]})", {"$.model.vocab[1]", "[piece, score]"});
    expectRefused(head + R"([["a", -1.0], "b"]})", {"$.model.vocab[1]"});
    expectRefused(head + R"([["a", "x"]]})", {"$.model.vocab[0][1]"});
    expectRefused(head + R"([[7, -1.0]]})", {"$.model.vocab[0][0]"});
    expectRefused(head + R"({"a": 0}})", {"$.model.vocab"});
    expectRefused(head + R"([["a", NaN]]})", {});  // not JSON: the parser names the place
    expectRefused(head + R"([["a", 1e999]]})", {});
    expectRefused(R"({"type": "Unigram", "unk_id": 3, "vocab": [["a", 0.0]]})",
                  {"$.model.unk_id", "1-piece"});
    expectRefused(R"({"type": "Unigram", "unk_id": -1, "vocab": [["a", 0.0]]})",
                  {"$.model.unk_id"});
    expectRefused(R"({"type": "Unigram", "unk_id": "0", "vocab": [["a", 0.0]]})",
                  {"$.model.unk_id"});
    expectRefused(R"({"type": "Unigram", "unk_id": 0, "vocab": []})",
                  {"$.model.unk_id", "empty vocabulary"});
    expectRefused(R"({"type": "Unigram", "vocab": [["a", 0.0]], "byte_fallback": 1})",
                  {"$.model.byte_fallback"});
    expectRefused(R"({"unk_id": 0})", {"$.model", "no \"type\""});
}

TEST(HostileTokenizer, MalformedWordLevelModelsAreRefused) {
    expectRefused(R"({"type": "WordLevel", "vocab": {"a": -1}, "unk_token": "a"})",
                  {"$.model.vocab.a"});
    expectRefused(R"({"type": "WordLevel", "vocab": {"a": 99999999999}, "unk_token": "a"})",
                  {"$.model.vocab.a"});
    expectRefused(R"({"type": "WordLevel", "vocab": {"a": 0}})", {"$.model.unk_token"});
    expectRefused(R"({"type": "WordLevel", "vocab": [["a", 0]], "unk_token": "a"})",
                  {"$.model.vocab"});
}

TEST(HostileTokenizer, MalformedPrecompiledCharsmapsAreRefused) {
    const std::string model = R"({"type": "Unigram", "unk_id": 0, "vocab": [["a", 0.0]]})";
    const auto charsmap = [](const std::string& value) {
        return R"({"type": "Precompiled", "precompiled_charsmap": )" + value + "}";
    };
    const std::string path = "$.normalizer.precompiled_charsmap";
    expectRefused(model, {path, "base64"}, charsmap(R"("not base64!")"));
    expectRefused(model, {path, "too short"}, charsmap(R"("AAA=")"));
    // Size 0x00B40200 claimed, 4 bytes given.
    expectRefused(model, {path, "only"}, charsmap(R"("ALQCAACEAAAA")"));
    expectRefused(model, {path}, charsmap("42"));
    // Issue 30: "a" -> "xy" with no NUL after the replacement strings; a lookup would return
    // every byte to the blob's end. The file is the fuzz regression input of the same name.
    const std::filesystem::path noNul = std::filesystem::path(ATTNSCOPE_TOKENIZE_DATA_DIR) /
                                        "../../fuzz/regressions/fuzz_tokenizer_json/"
                                        "precompiled_charsmap_without_nul.json";
    testing::expectError<FormatError>(
        [&] { loadTokenizerJson(noNul); },
        {"precompiled_charsmap_without_nul.json", path,
         "the replacement string at byte 0 has no terminating NUL (the 2 bytes of replacement "
         "strings end without one)"});
    expectRefused(model, {"$.normalizer.precompiled_charsmap"}, R"({"type": "Precompiled"})");
    expectRefused(model, {"$.normalizer.strip_left"}, R"({"type": "Strip", "strip_right": true})");
}

}  // namespace
}  // namespace attnscope::tokenize
