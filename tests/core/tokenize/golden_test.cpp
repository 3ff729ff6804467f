// Golden tokenizer cases, one folder per case under tests/data/tokenize/<case>/case.json:
//   "tokenizer"  the file to load: relative to tests/data/tokenize, "./x" inside the case folder,
//                or "shared:<model>/<file>" in shared/data/tokenizers (skipped when absent)
//   "load"       tokenizer_json (default) | wordpiece_vocab | bpe_files (+ "merges", "style")
//   "text" or "text_hex", "add_special_tokens" (default true)
//   "expect"     {"tokens", "ids", "chars"}: pieces, ids and code point spans
//   "expect_error" {"type", "contains": [...]}: loading or encoding must throw that
// The expectations were produced by Hugging Face's Rust crate
// (tests/reference/tokenizer_ref/make_goldens.mjs) and checked by hand. Every encode case also
// checks that each byte span is the character span, so text.substr(byteBegin, byteEnd -
// byteBegin) is exactly what the token covers.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/shared_data.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/tokenizer.h"
#include "attnscope/tokenize/unicode.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const fs::path kData = ATTNSCOPE_TOKENIZE_DATA_DIR;
using testing::kSharedTokenizers;

std::vector<std::string> caseNames() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(kData)) {
        if (fs::exists(entry.path() / "case.json")) {
            names.push_back(entry.path().filename().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

fs::path resolve(const std::string& ref, const fs::path& caseDir) {
    if (ref.starts_with("shared:")) {
        return kSharedTokenizers / ref.substr(7);
    }
    if (ref.starts_with("./")) {
        return caseDir / ref.substr(2);
    }
    return kData / ref;
}

std::unique_ptr<Tokenizer> load(const Json& c, const fs::path& caseDir) {
    const fs::path file = resolve(c.at("tokenizer").get<std::string>(), caseDir);
    const std::string how = c.value("load", "tokenizer_json");
    if (how == "wordpiece_vocab") {
        return loadWordPieceVocab(file);
    }
    if (how == "bpe_files") {
        ByteLevelBpeFilesOptions options;
        const std::string style = c.value("style", "auto");
        options.style = style == "roberta" ? ByteLevelStyle::Roberta
                        : style == "gpt2"  ? ByteLevelStyle::Gpt2
                                           : ByteLevelStyle::Auto;
        return loadByteLevelBpeFiles(file, resolve(c.at("merges").get<std::string>(), caseDir),
                                     options);
    }
    return loadTokenizerJson(file);
}

std::string caseText(const Json& c) {
    if (c.contains("text")) {
        return c.at("text").get<std::string>();
    }
    const std::string hex = c.at("text_hex").get<std::string>();
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    }
    return out;
}

std::string errorType(const std::exception& e) {
    if (dynamic_cast<const FormatError*>(&e) != nullptr) {
        return "FormatError";
    }
    if (dynamic_cast<const UnsupportedModel*>(&e) != nullptr) {
        return "UnsupportedModel";
    }
    if (dynamic_cast<const InvalidArgument*>(&e) != nullptr) {
        return "InvalidArgument";
    }
    return "other";
}

void checkError(const std::exception& e, const Json& expected) {
    EXPECT_EQ(errorType(e), expected.at("type").get<std::string>()) << e.what();
    for (const auto& part : expected.at("contains")) {
        EXPECT_NE(std::string(e.what()).find(part.get<std::string>()), std::string::npos)
            << "message \"" << e.what() << "\" lacks \"" << part.get<std::string>() << "\"";
    }
}

void checkTokens(const std::string& text, const std::vector<Token>& tokens, const Json& expect) {
    const auto pieces = expect.at("tokens").get<std::vector<std::string>>();
    const auto idList = expect.at("ids").get<std::vector<std::int32_t>>();
    const auto chars = expect.at("chars").get<std::vector<std::vector<std::size_t>>>();
    ASSERT_EQ(tokens.size(), idList.size()) << "text: " << text;
    const DecodedText decoded = decodeUtf8(text, "case text");
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const Token& t = tokens[i];
        SCOPED_TRACE("token " + std::to_string(i) + " \"" + t.text + "\"");
        EXPECT_EQ(t.text, pieces[i]);
        EXPECT_EQ(t.id, idList[i]);
        EXPECT_EQ(t.charBegin, chars[i].at(0));
        EXPECT_EQ(t.charEnd, chars[i].at(1));
        ASSERT_LE(t.charEnd, decoded.chars.size());
        ASSERT_LE(t.byteBegin, t.byteEnd);
        ASSERT_LE(t.byteEnd, text.size());
        // Offsets round-trip: the byte span holds exactly the characters of the char span.
        const std::u32string span = decoded.chars.substr(t.charBegin, t.charEnd - t.charBegin);
        EXPECT_EQ(text.substr(t.byteBegin, t.byteEnd - t.byteBegin), toUtf8(span));
    }
}

class GoldenCase : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenCase, Matches) {
    const fs::path caseDir = kData / GetParam();
    std::ifstream in(caseDir / "case.json");
    const Json c = Json::parse(in);
    SCOPED_TRACE(c.value("about", ""));
    const std::string tokRef = c.at("tokenizer").get<std::string>();
    if (tokRef.starts_with("shared:") && !fs::exists(kSharedTokenizers)) {
        GTEST_SKIP() << "shared data not found at " << kSharedTokenizers.string();
    }
    const bool hasText = c.contains("text") || c.contains("text_hex");
    if (!hasText) {  // a loading error
        try {
            load(c, caseDir);
            ADD_FAILURE() << "loading succeeded, expected " << c.at("expect_error").dump();
        } catch (const std::exception& e) {
            checkError(e, c.at("expect_error"));
        }
        return;
    }
    const std::unique_ptr<Tokenizer> tok = load(c, caseDir);
    ASSERT_NE(tok, nullptr);
    const std::string text = caseText(c);
    if (c.contains("expect_error")) {
        try {
            tok->encode(text);
            ADD_FAILURE() << "encoding succeeded, expected " << c.at("expect_error").dump();
        } catch (const std::exception& e) {
            checkError(e, c.at("expect_error"));
        }
        return;
    }
    checkTokens(text, tok->encode(text, c.value("add_special_tokens", true)), c.at("expect"));
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenCase, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                             return param.param;
                         });

}  // namespace
}  // namespace attnscope::tokenize
