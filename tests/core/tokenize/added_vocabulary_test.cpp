#include "attnscope/tokenize/added_vocabulary.h"

#include <gtest/gtest.h>

#include "attnscope/tokenize/bert_normalizer.h"

namespace attnscope::tokenize {
namespace {

// "text|[token]|text" rendering of a split, for compact expectations.
std::string render(const AddedVocabulary& v, std::u32string_view text,
                   AddedTokenPass pass = AddedTokenPass::Raw) {
    const NormalizedText t = makeDetachedText(text);
    std::string out;
    for (const AddedSplit& s : v.split(t, pass)) {
        const std::string piece =
            toUtf8(std::span(t).subspan(s.range.begin, s.range.end - s.range.begin));
        out += out.empty() ? "" : "|";
        out += s.token ? "[" + piece + "]" : piece;
    }
    return out;
}

AddedToken token(std::string content, std::int32_t id) {
    AddedToken t;
    t.content = std::move(content);
    t.id = id;
    t.special = true;
    return t;
}

const AddedVocabulary::Normalizer kIdentity = [](const NormalizedText& t) { return t; };

// "<mask>" (id 0), its flags set by `flag`, as the only added token.
template <class Flag>
AddedVocabulary maskOnly(Flag flag) {
    AddedToken mask = token("<mask>", 0);
    flag(mask);
    return AddedVocabulary({mask}, kIdentity);
}

TEST(AddedVocabulary, LeftmostLongest) {
    const AddedVocabulary v({token("<a>", 0), token("<a><b>", 1), token("b>", 2)}, kIdentity);
    EXPECT_EQ(render(v, U"x<a><b>y<a>b>"), "x|[<a><b>]|y|[<a>]|[b>]");
}

TEST(AddedVocabulary, SingleWordNeedsNonWordNeighbours) {
    const AddedVocabulary v = maskOnly([](AddedToken& mask) { mask.singleWord = true; });
    EXPECT_EQ(render(v, U"<mask> a<mask> <mask>b, <mask>."),
              "[<mask>]| a<mask> <mask>b, |[<mask>]|.");
}

TEST(AddedVocabulary, LstripAndRstripSwallowWhitespace) {
    const AddedVocabulary v = maskOnly([](AddedToken& mask) {
        mask.lstrip = true;
        mask.rstrip = true;
    });
    EXPECT_EQ(render(v, U"hi  <mask>\tthere <mask><mask>"),
              "hi|[  <mask>\t]|there|[ <mask>]|[<mask>]");
}

TEST(AddedVocabulary, NormalizedTokensMatchTheirNormalizedForm) {
    AddedToken yes = token("YES", 0);
    yes.normalized = true;
    const AddedVocabulary v({yes, token("[MASK]", 1)}, [](const NormalizedText& t) {
        return bertNormalize(t, BertNormalizerOptions{});
    });
    // The raw pass finds only non-normalized tokens; the normalized pass only "yes".
    EXPECT_EQ(render(v, U"say yes [MASK]"), "say yes |[[MASK]]");
    EXPECT_EQ(render(v, U"say yes [MASK]", AddedTokenPass::Normalized), "say |[yes]| [MASK]");
}

}  // namespace
}  // namespace attnscope::tokenize
