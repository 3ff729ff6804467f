// Parity of the slow SentencePiece tokenizers (slow_spm_tokenizer.h) with transformers' slow
// MarianTokenizer (both sides), AlbertTokenizer and T5Tokenizer on real files: every "# text = "
// sentence of the UD treebanks in shared/data/ud, the stress sentences of
// tests/data/tokenize/parity_extra and the SentencePiece ones of tests/data/tokenize/spm_extra
// (language codes, sentinels, "12," re-splits, quotes, fullwidth text). The expected ids, offsets,
// vocabulary size and special ids come from tests/reference/tokenizer_ref/spm_reference.py (CTest
// fixture spm_reference), which redoes those classes' logic on the sentencepiece Python module.
// Ids and offsets must be identical on every sentence.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/shared_data.h"
#include "attnscope/tokenize/tokenizer.h"
#include "attnscope/tokenize/unicode.h"
#include "parity_support.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const fs::path kShared = ATTNSCOPE_SHARED_DIR;
const fs::path kRefDir = fs::path(ATTNSCOPE_TOKENIZER_REF_DIR) / "spm";

struct SpmCase {
    std::string name;
    std::string reference;  // <reference>.jsonl and <reference>.meta.json
    TokenizerLoader load;
    std::string expectedSource;  // describe() must mention it
};

void PrintTo(const SpmCase& c, std::ostream* os) {
    *os << c.name;
}

std::vector<SpmCase> spmCases() {
    return {
        {"marian_source", "marian-en-mg-source", fromShared("opus-mt-en-mg", "marian"),
         "Marian: source.spm"},
        {"marian_target", "marian-en-mg-target",
         fromShared("opus-mt-en-mg", "marian", loadTargetTokenizer),
         "Marian target side: target.spm"},
        {"albert_base_v2_spiece", "albert-base-v2", fromShared("albert-base-v2", "albert"),
         "spiece.model"},
        // t5-small also has a tokenizer.json, which loadTokenizer prefers; this is the
        // spiece.model path a folder without it takes.
        {"t5_small_spiece", "t5-small", fromShared("t5-small", "t5", loadSpmConventionTokenizer),
         "spiece.model"},
    };
}

struct Tally {
    std::size_t sentences = 0;
    std::size_t udSentences = 0;
    std::size_t idMismatches = 0;
    std::size_t offsetMismatches = 0;
};

void checkSentence(const Tokenizer& tok, const Json& ref, Tally& tally) {
    const std::string text = ref.at("text").get<std::string>();
    const std::string source = ref.at("source").get<std::string>();
    const auto expected = ref.at("ids").get<std::vector<std::int32_t>>();
    const std::vector<Token> tokens = tok.encode(text);
    const auto ours = ids(tokens);
    ++tally.sentences;
    tally.udSentences += source.find(".conllu:") != std::string::npos ? 1 : 0;
    if (ours != expected) {
        if (++tally.idMismatches <= kMaxReported) {
            ADD_FAILURE() << source << ": ids differ\n  sentence:  " << text
                          << "\n  ours:      " << joinIds(ours)
                          << "\n  reference: " << joinIds(expected);
        }
        return;
    }
    checkSpans(tokens, text, ref.at("offsets"), source, /*withBytes=*/false,
               tally.offsetMismatches);
}

void checkMeta(const Tokenizer& tok, const fs::path& metaFile) {
    std::ifstream in(metaFile);
    ASSERT_TRUE(in) << metaFile.string() << " is missing";
    const Json meta = Json::parse(in);
    EXPECT_EQ(tok.vocabSize(), meta.at("vocab_size").get<std::size_t>());
    const std::vector<std::pair<const char*, SpecialRole>> roles = {
        {"bos", SpecialRole::Bos},  {"eos", SpecialRole::Eos}, {"unk", SpecialRole::Unk},
        {"sep", SpecialRole::Sep},  {"pad", SpecialRole::Pad}, {"cls", SpecialRole::Cls},
        {"mask", SpecialRole::Mask}};
    for (const auto& [key, role] : roles) {
        const Json& expected = meta.at("roles");
        if (expected.contains(key)) {
            EXPECT_EQ(tok.specialId(role), expected.at(key).get<std::int32_t>()) << key;
        } else {
            EXPECT_EQ(tok.specialId(role), std::nullopt) << key;
        }
    }
}

class SpmParity : public ::testing::TestWithParam<SpmCase> {};

TEST_P(SpmParity, MatchesReferenceOnEverySentence) {
    const SpmCase& c = GetParam();
    const fs::path tokenizers = kShared / "data" / "tokenizers";
    if (!fs::exists(tokenizers)) {
        GTEST_SKIP() << "shared data not found at " << tokenizers.string();
    }
    const fs::path refFile = kRefDir / (c.reference + ".jsonl");
    ASSERT_TRUE(fs::exists(refFile))
        << refFile.string() << " is missing: it is written by the CTest fixture "
        << "tokenize.spm_reference_setup (tests/reference/tokenizer_ref/spm_reference.py)";
    const std::unique_ptr<Tokenizer> tok = c.load(tokenizers);
    ASSERT_NE(tok, nullptr);
    EXPECT_NE(tok->describe().find(c.expectedSource), std::string::npos) << tok->describe();
    checkMeta(*tok, kRefDir / (c.reference + ".meta.json"));

    Tally tally;
    forEachJsonLine(refFile, [&](const Json& ref) { checkSentence(*tok, ref, tally); });
    std::cout << c.name << ": " << tally.sentences << " sentences (" << tally.udSentences
              << " from UD), " << tally.idMismatches << " id and " << tally.offsetMismatches
              << " offset mismatches\n";
    EXPECT_EQ(tally.udSentences, countUdSentences(kShared / "data" / "ud"))
        << "the reference does not cover every UD sentence";
    EXPECT_EQ(tally.idMismatches, 0u);
    EXPECT_EQ(tally.offsetMismatches, 0u);
}

// t5-small ships both spiece.model and tokenizer.json. The slow path (libsentencepiece) and the
// tokenizers crate's Unigram (make_reference.mjs's t5-small.jsonl, fixture tokenizer_reference)
// give the same ids on every sentence but these, each checked to differ for its reason:
//  - seven UD sentences with runs of one character ("____", "****", "----==", "......",
//    "!!!!!!!"): two segmentations of equal score (same pieces, another order), and the two
//    Viterbi implementations break the tie differently;
//  - extra:6 "a\vb\fc\x85d": the crate's WhitespaceSplit pre-tokenizer splits at U+0085
//    (White_Space), so "d" is a word of its own ("▁", "d"); libsentencepiece's normalizer keeps
//    U+0085, an unknown character (<unk>);
//  - extra:17 "a\u0301\u0323 o\u0323\u0302": libsentencepiece keeps the dot below (U+0323)
//    after "á" as an unknown piece; the crate's Precompiled normalizer, which rewrites whole
//    graphemes, leaves nothing unknown there.
// Offsets are not compared: the crate's Metaspace spans leave out the space a '▁' stands for,
// libsentencepiece's include it.
const std::set<std::string> kT5SlowVsFast = {"UD_English-EWT/en_ewt-ud-dev.conllu:9123",
                                             "UD_English-EWT/en_ewt-ud-dev.conllu:11889",
                                             "UD_English-EWT/en_ewt-ud-dev.conllu:11927",
                                             "UD_English-EWT/en_ewt-ud-dev.conllu:15707",
                                             "UD_English-EWT/en_ewt-ud-dev.conllu:15760",
                                             "UD_English-EWT/en_ewt-ud-dev.conllu:18398",
                                             "UD_English-EWT/en_ewt-ud-dev.conllu:25039",
                                             "extra:6",
                                             "extra:17"};

TEST(SpmVsTokenizerJson, T5SmallSpieceModelGivesItsTokenizerJsonIds) {
    const fs::path tokenizers = kShared / "data" / "tokenizers";
    ATTNSCOPE_SKIP_WITHOUT(tokenizers);
    const fs::path refFile = fs::path(ATTNSCOPE_TOKENIZER_REF_DIR) / "t5-small.jsonl";
    ASSERT_TRUE(fs::exists(refFile))
        << refFile.string() << " is missing: it is written by the CTest fixture "
        << "tokenize.reference_setup (node tests/reference/tokenizer_ref/make_reference.mjs)";
    const auto tok = loadSpmConventionTokenizer(tokenizers / "t5-small", "t5");
    ASSERT_NE(tok, nullptr);
    std::set<std::string> differing;
    std::size_t sentences = 0;
    forEachJsonLine(refFile, [&](const Json& ref) {
        const std::string source = ref.at("source").get<std::string>();
        const auto expected = ref.at("rs_ids").get<std::vector<std::int32_t>>();
        const auto ours = ids(tok->encode(ref.at("text").get<std::string>()));
        ++sentences;
        if (ours != expected) {
            differing.insert(source);
            if (!kT5SlowVsFast.contains(source)) {
                ADD_FAILURE() << source << ": " << ref.at("text").get<std::string>()
                              << "\n  spiece.model:   " << joinIds(ours)
                              << "\n  tokenizer.json: " << joinIds(expected);
            }
        }
    });
    EXPECT_GT(sentences, 10000u);
    EXPECT_EQ(differing, kT5SlowVsFast);
}

INSTANTIATE_TEST_SUITE_P(SlowSentencePiece, SpmParity, ::testing::ValuesIn(spmCases()),
                         [](const ::testing::TestParamInfo<SpmCase>& param) {
                             return param.param.name;
                         });

}  // namespace
}  // namespace attnscope::tokenize
