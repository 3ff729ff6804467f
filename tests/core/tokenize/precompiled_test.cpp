// The Precompiled normalizer (precompiled_charsmap.h) on a hand-built charsmap and on t5-small's,
// the other normalizers Unigram files use (Strip, Lowercase, StripAccents, NFKD, Replace with a
// regex) with the spans they leave, and hostile charsmaps and Unigram/WordLevel models, which
// must give a FormatError naming the file and JSON path and never read out of bounds.
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/tokenize/normalizer.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "attnscope/tokenize/precompiled_charsmap.h"
#include "attnscope/tokenize/tokenizer.h"
#include "normalized_spans.h"

namespace attnscope::tokenize {
namespace {

void appendU32(std::string& out, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) {
        out += static_cast<char>((v >> (8 * k)) & 0xFFU);
    }
}

// A darts-clone array of 256 units with the root's children at 1 ^ byte: "a" -> "xy" and
// "b" -> "" (strings "xy\0\0"), the leaves' values at units 200 and 201.
std::vector<std::uint32_t> tinyTrie() {
    std::vector<std::uint32_t> units(256, 0);
    units[0] = 1U << 10;  // root offset 1
    auto leaf = [&](unsigned char key, std::uint32_t target, std::uint32_t value) {
        const std::uint32_t index = 1U ^ key;
        units[index] = ((index ^ target) << 10) | (1U << 8) | key;
        units[target] = (1U << 31) | value;
    };
    leaf('a', 200, 0);
    leaf('b', 201, 3);
    return units;
}

std::string blobOf(const std::vector<std::uint32_t>& units, std::string_view strings) {
    std::string blob;
    appendU32(blob, static_cast<std::uint32_t>(units.size() * 4));
    for (std::uint32_t u : units) {
        appendU32(blob, u);
    }
    return blob + std::string(strings);
}

const std::string kTinyStrings("xy\0\0", 4);

TEST(Precompiled, LooksUpTheShortestPrefix) {
    const PrecompiledCharsmap map(blobOf(tinyTrie(), kTinyStrings), "t.json: $.normalizer");
    EXPECT_EQ(map.transform("a"), "xy");
    EXPECT_EQ(map.transform("ab"), "xy");  // the crate takes the first hit, not a whole match
    EXPECT_EQ(map.transform("b"), "");
    EXPECT_EQ(map.transform("c"), std::nullopt);
    EXPECT_EQ(map.transform(""), std::nullopt);
}

TEST(Precompiled, ExpansionThenRemovalFollowsTheCratesAlignment) {
    // The crate's own test case ("™\x1eg" -> "TMg"): 'a' -> "xy" marks 'y' as inserted, then
    // 'b' -> "" takes one character back from that mark, so 'y' consumes 'b' instead.
    const PrecompiledCharsmap map(blobOf(tinyTrie(), kTinyStrings), "t.json: $.normalizer");
    EXPECT_EQ(spans(precompiledNormalize(textOf("abg"), map)),
              (std::vector<std::string>{"x:0-1", "y:1-2", "g:2-3"}));
    // Expansion alone: the extra character shares the span of the one it came from.
    EXPECT_EQ(spans(precompiledNormalize(textOf("ga"), map)),
              (std::vector<std::string>{"g:0-1", "x:1-2", "y:1-2"}));
    // A removal at the very start has nothing to attach to, so the crate consumes the
    // original characters positionally: 'g' takes the removed 'b's span.
    EXPECT_EQ(spans(precompiledNormalize(textOf("bg"), map)), (std::vector<std::string>{"g:0-1"}));
}

TEST(Precompiled, TransformKeepsHfsConsumptionRules) {
    const NormalizedText t = textOf("abcd");
    const std::vector<CharChange> changes = {{U'A', 0}, {U'+', 1}, {U'C', -1}, {U'D', 0}};
    EXPECT_EQ(spans(transformText(t, changes, 0)),
              (std::vector<std::string>{"A:0-1", "+:0-1", "C:1-2", "D:3-4"}));
    EXPECT_EQ(spans(transformText(t, std::vector<CharChange>{{U'c', 0}}, 2)),
              (std::vector<std::string>{"c:2-3"}));
}

TEST(Precompiled, Base64IsStrict) {
    EXPECT_EQ(decodeBase64("YWJj"), "abc");
    EXPECT_EQ(decodeBase64("YWI="), "ab");
    EXPECT_EQ(decodeBase64("YQ=="), "a");
    EXPECT_EQ(decodeBase64(""), "");
    EXPECT_EQ(decodeBase64("YWJ"), std::nullopt);   // not a multiple of 4
    EXPECT_EQ(decodeBase64("Y!Jj"), std::nullopt);  // not in the alphabet
    EXPECT_EQ(decodeBase64("YR=="), std::nullopt);  // padding over non-zero bits
    EXPECT_EQ(decodeBase64("YQ==YQ=="), std::nullopt);
}

TEST(Precompiled, HostileCharsmapsAreFormatErrors) {
    const std::string where = "t.json: $.normalizer.precompiled_charsmap";
    auto refuse = [&](const std::string& blob, const std::string& reason) {
        testing::expectError<FormatError>([&] { PrecompiledCharsmap(blob, where); },
                                          {where, reason});
    };
    refuse("ab", "too short");
    refuse(blobOf(tinyTrie(), kTinyStrings).substr(0, 500), "only");  // truncated array
    refuse(blobOf({}, ""), "empty");
    auto units = tinyTrie();
    units[0] = 5000U << 10;  // the root's block lies beyond the array
    refuse(blobOf(units, kTinyStrings), "outside");
    units = tinyTrie();
    units[200] = (1U << 31) | 9;  // a replacement offset beyond the strings
    refuse(blobOf(units, kTinyStrings), "replacement offset");
    refuse(blobOf(tinyTrie(), std::string("x\xC3\0\0", 4)), "not valid UTF-8");
    // Issue 30: "a" -> "xy" with the strings' NULs cut off: the lookup would return every byte to
    // the end of the blob. Also refused when a later NUL exists but not after this replacement.
    refuse(blobOf(tinyTrie(), "xy"), "replacement string at byte 0 has no terminating NUL");
    units = tinyTrie();
    units[201] = (1U << 31) | 3;  // "b" -> "zz", the strings being "xy\0zz"
    refuse(blobOf(units, std::string("xy\0zz", 5)), "at byte 3 has no terminating NUL");
    units = tinyTrie();
    units[1U ^ 'a'] = ((1U ^ 'a' ^ 0x3000U) << 10) | 'a';  // an inner node outside
    refuse(blobOf(units, kTinyStrings), "outside");
    testing::expectError<FormatError>([&] { PrecompiledCharsmap::fromBase64("ALQCAACE!", where); },
                                      {where, "base64"});
}

TEST(Precompiled, MutatedCharsmapsLoadOrAreRefused) {
    // Random byte changes and cuts of a valid charsmap: each either loads, and then every lookup
    // gives valid UTF-8 without '\0' (the fuzz build runs the same under ASan), or is refused
    // with a FormatError; nothing else may escape.
    std::vector<std::uint32_t> units = tinyTrie();
    units.resize(512, 0);
    const std::string base = blobOf(units, kTinyStrings);
    std::mt19937 rng(20);
    int loaded = 0;
    for (int iter = 0; iter < 20000; ++iter) {
        std::string blob = base;
        for (int f = 1 + static_cast<int>(rng() % 6); f > 0 && !blob.empty(); --f) {
            const std::size_t at = rng() % blob.size();
            switch (rng() % 3) {
                case 0:
                    blob[at] = static_cast<char>(rng());
                    break;
                case 1:
                    blob[at] = static_cast<char>(blob[at] ^ (1 << (rng() % 8)));
                    break;
                default:
                    blob.resize(at);
            }
        }
        try {
            const PrecompiledCharsmap map(blob, "mutated");
            ++loaded;
            for (int c = 1; c < 256; ++c) {
                const std::string key(2, static_cast<char>(c));
                for (const auto& chunk : {key.substr(0, 1), key}) {
                    const auto out = map.transform(chunk);
                    ASSERT_TRUE(!out || (!findInvalidUtf8(*out) && out->find('\0') == out->npos));
                }
            }
        } catch (const FormatError&) {
        }
    }
    EXPECT_GT(loaded, 1000);  // the mutations also reach the lookups, not only the checks
}

TEST(Normalizers, StripLowercaseStripAccentsNfkdKeepSpans) {
    const NormalizedText t = textOf(" Ǆé\u0301 ");  // Ǆ (U+01C4) is 2 bytes, é 2, U+0301 2
    const auto run = [&](NormalizerStep step) { return spans(normalize(t, {std::move(step)})); };
    NormalizerStep strip;
    strip.kind = NormalizerKind::Strip;
    strip.stripRight = true;
    EXPECT_EQ(run(strip), (std::vector<std::string>{" :0-1", "Ǆ:1-3", "é:3-5", "\u0301:5-7"}));
    NormalizerStep lower;
    lower.kind = NormalizerKind::Lowercase;
    EXPECT_EQ(run(lower)[1], "ǆ:1-3");
    NormalizerStep accents;
    accents.kind = NormalizerKind::StripAccents;  // drops U+0301 only: é is precomposed
    EXPECT_EQ(run(accents), (std::vector<std::string>{" :0-1", "Ǆ:1-3", "é:3-5", " :7-8"}));
    NormalizerStep compat;
    compat.kind = NormalizerKind::Nfkd;  // Ǆ -> D Z ̌, é -> e ́ ; each keeps its source's span
    EXPECT_EQ(run(compat),
              (std::vector<std::string>{" :0-1", "D:1-3", "Z:1-3", "\u030C:1-3", "e:3-5",
                                        "\u0301:3-5", "\u0301:5-7", " :7-8"}));
}

TEST(Normalizers, ReplaceWithARegexAlignsLikeAString) {
    const RegexSplitter pattern("\\s+", false, "t.json: $.normalizer.pattern.Regex");
    EXPECT_EQ(spans(replaceRegex(textOf("a \t b"), pattern, U" ")),
              (std::vector<std::string>{"a:0-1", " :3-4", "b:4-5"}));
    // Empty matches as Oniguruma's find_iter gives them (checked against the crate: "xxa" ->
    // "-a-", "axb" -> "-a-b-"): none right after a match, one at the end; one at the start takes
    // the empty span there.
    const RegexSplitter xs("x*", false, "t.json: $.normalizer.pattern.Regex");
    EXPECT_EQ(spans(replaceRegex(textOf("xxa"), xs, U"-")),
              (std::vector<std::string>{"-:1-2", "a:2-3", "-:2-3"}));
    EXPECT_EQ(spans(replaceRegex(textOf("axb"), xs, U"-")),
              (std::vector<std::string>{"-:0-0", "a:0-1", "-:1-2", "b:2-3", "-:2-3"}));
    EXPECT_TRUE(replaceRegex(textOf(""), xs, U"-").empty());
}

std::filesystem::path t5Json() {
    return std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data" / "tokenizers" / "t5-small" /
           "tokenizer.json";
}

TEST(Precompiled, T5CharsmapNormalizesLikeNmtNfkc) {
    if (!std::filesystem::exists(t5Json())) {
        GTEST_SKIP() << t5Json().string() << " not found";
    }
    std::ifstream in(t5Json());
    const auto json = nlohmann::json::parse(in);
    const PrecompiledCharsmap map = PrecompiledCharsmap::fromBase64(
        json["normalizer"]["precompiled_charsmap"].get<std::string>(), "t5");
    EXPECT_EQ(map.transform("\xEF\xAC\x81"), "fi");  // U+FB01 ﬁ
    EXPECT_EQ(map.transform("\xEF\xBC\xA1"), "A");   // U+FF21 fullwidth A
    // "ﬁx": the ligature's two letters both span its three bytes.
    EXPECT_EQ(spans(precompiledNormalize(textOf("\xEF\xAC\x81x"), map)),
              (std::vector<std::string>{"f:0-3", "i:0-3", "x:3-4"}));
}

}  // namespace
}  // namespace attnscope::tokenize
