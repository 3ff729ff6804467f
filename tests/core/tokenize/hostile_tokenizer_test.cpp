// Tokenizer files built to exhaust memory or the stack (issue 14): a stray huge id, a pipeline
// nested thousands deep. Each costs memory in proportion to what the file holds, or is refused.
#include <string>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace attnscope::tokenize
