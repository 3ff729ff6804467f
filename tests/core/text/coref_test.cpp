// CorefUD coreference reading (issue 16, rules R1-R3): documents from `# newdoc`, mentions from
// `Entity=` (nested, single-word, multiword, concatenated, discontinuous, unclosed, unmatched,
// malformed), head words from the tree, and the counts on the real GUM dev file.
#include "attnscope/text/coref.h"

#include <algorithm>
#include <set>
#include <string_view>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"

namespace attnscope::text {
namespace {

// One word line: id, form, head (-1 for `_`) and MISC.
std::string wordMisc(int id, std::string_view form, int head, std::string_view misc) {
    return std::to_string(id) + "\t" + std::string(form) + "\t_\tX\t_\t_\t" +
           (head < 0 ? std::string("_") : std::to_string(head)) + "\tdep\t_\t" + std::string(misc) +
           "\n";
}

// A word with the Entity= value `entity` ("" for none) after another MISC attribute.
std::string word(int id, std::string_view form, int head, std::string_view entity) {
    return wordMisc(
        id, form, head,
        entity.empty() ? std::string("_") : "SpaceAfter=No|Entity=" + std::string(entity));
}

class CorefTest : public ::testing::Test {
protected:
    // Reads `conllu` (no CoNLL-U sentence may be skipped) and its coreference.
    CorefResult read(const std::string& conllu, bool strict = false) {
        const auto path = m_dir.path() / "c.conllu";
        testing::writeFile(path, conllu);
        m_conllu = readConllu(path);
        EXPECT_EQ(m_conllu.skipped, 0) << (m_conllu.warnings.empty() ? "" : m_conllu.warnings[0]);
        CorefOptions options;
        options.strict = strict;
        return readCoref(m_conllu.sentences, "c.conllu", options);
    }

    testing::ScratchDir m_dir;
    ConlluResult m_conllu;
};

// "Kim saw her sister ." with her sister = (2 (1) 2), Kim = (1), "." none; the GUM-style values
// with attributes after the eid.
const std::string kNested = word(1, "Kim", 2, "(1-person-new-sgl)") + word(2, "saw", 0, "") +
                            word(3, "her", 4, "(2-person-new-coref(1-person-giv)") +
                            word(4, "sister", 2, "2)") + word(5, ".", 2, "") + "\n";

TEST_F(CorefTest, NestedSingleAndMultiwordMentionsInOpenerOrder) {
    const CorefResult r = read(kNested);
    ASSERT_EQ(r.mentions.size(), 3u);
    EXPECT_EQ(r.mentions[0], (Mention{0, 0, 0, 1, 1}));  // Kim
    EXPECT_EQ(r.mentions[1], (Mention{1, 0, 0, 3, 4}));  // her sister (opened before "her")
    EXPECT_EQ(r.mentions[2], (Mention{0, 0, 0, 3, 3}));  // her
    EXPECT_EQ(r.entityIds, (std::vector<std::string>{"1", "2"}));
    EXPECT_EQ(r.discontinuous + r.unclosed + r.unmatched + r.malformedSentences, 0);
    ASSERT_EQ(r.documents.size(), 1u);
    EXPECT_EQ(r.documents[0].id, "");
    EXPECT_EQ(r.documents[0].endSentence, 1);
}

TEST_F(CorefTest, ConcatenatedClosersCloseTheLatestOpenMentionOfTheirEid) {
    // "(4-x(3-y" opens 4 and 3; "(3)" is a single-word mention of 3, so "3)4)" closes the 3
    // opened at word 1, then 4.
    const CorefResult r =
        read(word(1, "a", 0, "(4-x(3-y") + word(2, "b", 1, "(3)") + word(3, "c", 1, "3)4)") + "\n");
    ASSERT_EQ(r.mentions.size(), 3u);
    EXPECT_EQ(r.mentions[0], (Mention{0, 0, 0, 1, 3}));
    EXPECT_EQ(r.mentions[1], (Mention{1, 0, 0, 1, 3}));
    EXPECT_EQ(r.mentions[2], (Mention{1, 0, 0, 2, 2}));
    EXPECT_EQ(r.unmatched, 0);

    const CorefResult inner = read(word(1, "a", 0, "(3-x") + word(2, "b", 1, "(3-y") +
                                   word(3, "c", 1, "3)") + word(4, "d", 1, "3)") + "\n");
    ASSERT_EQ(inner.mentions.size(), 2u);
    EXPECT_EQ(inner.mentions[0], (Mention{0, 0, 0, 1, 4}));
    EXPECT_EQ(inner.mentions[1], (Mention{0, 0, 0, 2, 3}));
}

TEST_F(CorefTest, DiscontinuousUnclosedAndUnmatchedAreCountedNotMentions) {
    // e5[1/2] and e5[2/2] are two closed parts; 7 is left open at the end of sentence 1 and
    // its closer in sentence 2 is unmatched (mentions never cross sentences); 9) never opened.
    const CorefResult r =
        read(word(1, "a", 0, "(e5[1/2]-x)") + word(2, "b", 1, "(7-y") + word(3, "c", 1, "") +
             word(4, "d", 1, "(e5[2/2]-x") + word(5, "e", 1, "e5[2/2])") + "\n" +
             word(1, "f", 0, "7)9)(8-z)") + "\n");
    EXPECT_EQ(r.discontinuous, 2);
    EXPECT_EQ(r.unclosed, 1);
    EXPECT_EQ(r.unmatched, 2);
    ASSERT_EQ(r.mentions.size(), 1u);
    EXPECT_EQ(r.mentions[0], (Mention{0, 0, 1, 1, 1}));
    EXPECT_EQ(r.entityIds, (std::vector<std::string>{"8"}));
}

TEST_F(CorefTest, DocumentsStartAtNewdocAndScopeEntityIds) {
    const std::string s1 = word(1, "a", 0, "(1-x)") + "\n";
    const CorefResult r = read(s1 + "# newdoc id = d1\n" + s1 + s1 + "# newdoc\n" + s1);
    ASSERT_EQ(r.documents.size(), 3u);
    EXPECT_EQ(r.documents[0].id, "");  // the sentence before the first newdoc
    EXPECT_EQ(r.documents[0].firstSentence, 0);
    EXPECT_EQ(r.documents[0].endSentence, 1);
    EXPECT_EQ(r.documents[1].id, "d1");
    EXPECT_EQ(r.documents[1].firstSentence, 1);
    EXPECT_EQ(r.documents[1].endSentence, 3);
    EXPECT_EQ(r.documents[2].id, "");
    EXPECT_EQ(r.documents[2].firstSentence, 3);
    EXPECT_EQ(r.documents[2].endSentence, 4);
    // Eid 1 in three documents: three entities; twice in d1: one.
    ASSERT_EQ(r.mentions.size(), 4u);
    EXPECT_EQ(r.entityIds.size(), 3u);
    EXPECT_EQ(r.mentions[1].entity, r.mentions[2].entity);
    EXPECT_EQ(r.mentions[2].document, 1);
    EXPECT_NE(r.mentions[0].entity, r.mentions[1].entity);
    EXPECT_NE(r.mentions[2].entity, r.mentions[3].entity);

    const CorefResult first = read("# newdoc id = only\n" + s1);
    ASSERT_EQ(first.documents.size(), 1u);
    EXPECT_EQ(first.documents[0].id, "only");
    EXPECT_TRUE(readCoref({}, "none").documents.empty());
}

TEST_F(CorefTest, MalformedValuesDropTheirSentenceWithAWarningOrThrowWhenStrict) {
    struct Case {
        std::string value;
        std::string reason;
    };

    const std::vector<Case> cases = {
        {"(-x)", "empty entity id"},
        {"()", "empty entity id"},
        {")", "empty entity id"},
        {"(3 -x)", "stray character"},
        {"abc", "neither an opener"},
        {"3(4)", "neither an opener"},
        {"", "empty Entity= value"},
        // D3: a closer is exactly `eid)`.
        {"3-x)", "closer '3-x)' carries attributes"},
        {"(2-x)2-y)", "closer '2-y)' carries attributes"},
    };
    const std::string good = word(1, "a", 0, "(1-x)") + "\n";
    for (const Case& c : cases) {
        SCOPED_TRACE(c.value);
        // The bad word is on line 4: good sentence (lines 1-2), word 1 of the bad one on line 3.
        const std::string bad =
            c.value.empty() ? wordMisc(2, "b", 1, "Entity=") : word(2, "b", 1, c.value);
        const std::string text = good + word(1, "a", 0, "(2-x") + bad + "\n";
        const CorefResult r = read(text);
        EXPECT_EQ(r.malformedSentences, 1);
        ASSERT_EQ(r.warnings.size(), 1u);
        EXPECT_EQ(r.warnings[0].rfind("c.conllu:4: ", 0), 0u) << r.warnings[0];
        EXPECT_NE(r.warnings[0].find(c.reason), std::string::npos) << r.warnings[0];
        EXPECT_EQ(r.mentions.size(), 1u);  // the good sentence's; the opener of 2 is dropped
        EXPECT_EQ(r.unclosed, 0);
        testing::expectError<FormatError>([&] { read(text, true); }, {"c.conllu:4: ", c.reason});
    }
    // The README quotes this message.
    EXPECT_EQ(read(word(1, "a", 0, "(-x)") + "\n").warnings,
              std::vector<std::string>{"c.conllu:1: Entity value '(-x)' has an empty entity id"});
    const std::string twice = wordMisc(1, "a", 0, "Entity=(1)|Entity=(2)") + "\n";
    testing::expectError<FormatError>([&] { read(twice, true); },
                                      {"c.conllu:1: ", "two Entity= attributes"});
    // D4 without strict: the sentence gives no mentions, one warning.
    const CorefResult lenient = read(word(1, "a", 0, "(3-x)") + "\n" + twice);
    EXPECT_EQ(lenient.malformedSentences, 1);
    EXPECT_EQ(lenient.mentions.size(), 1u);
    EXPECT_EQ(lenient.warnings,
              std::vector<std::string>{"c.conllu:3: MISC holds two Entity= attributes"});
}

// D1: an eid ends at the first '-', '(' or ')', so `(1(2)` opens 1 without attributes and
// makes the single-word mention 2 (it was a stray '(' in the eid "1(2").
TEST_F(CorefTest, AnEidEndsAtAnOpeningBracket) {
    const CorefResult r = read(word(1, "a", 0, "(1(2)") + word(2, "b", 1, "1)") + "\n");
    EXPECT_EQ(r.malformedSentences, 0);
    ASSERT_EQ(r.mentions.size(), 2u);
    EXPECT_EQ(r.mentions[0], (Mention{0, 0, 0, 1, 2}));
    EXPECT_EQ(r.mentions[1], (Mention{1, 0, 0, 1, 1}));
    EXPECT_EQ(r.entityIds, (std::vector<std::string>{"1", "2"}));
}

// D2: every opening item of a discontinuous part counts once, when it opens: an opener left
// open at the end of its sentence is discontinuous, not unclosed; a part's closer without an
// open part is unmatched.
TEST_F(CorefTest, DiscontinuousPartsCountWhenTheyOpen) {
    const CorefResult r = read(word(1, "a", 0, "(e5[1/2]-x") + word(2, "b", 1, "(e6[1/2]-y)") +
                               word(3, "c", 1, "e7[2/2])") + "\n");
    EXPECT_EQ(r.discontinuous, 2);
    EXPECT_EQ(r.unclosed, 0);
    EXPECT_EQ(r.unmatched, 1);
    EXPECT_TRUE(r.mentions.empty());
    EXPECT_TRUE(r.entityIds.empty());
}

// D7: mentions by sentence, first word, then longer first, then the order their opening
// brackets were read: a single-word mention read before a longer opener of the same word comes
// after it, and of two openers of one word the one that closes later comes first.
TEST_F(CorefTest, MentionsStartingAtOneWordAreLongestFirst) {
    const CorefResult r = read(word(1, "a", 0, "(3)(1-x(2-y") + word(2, "b", 1, "1)") +
                               word(3, "c", 1, "2)") + word(4, "d", 1, "(4-z)(5-w)") + "\n");
    ASSERT_EQ(r.mentions.size(), 5u);
    EXPECT_EQ(r.entityIds[static_cast<std::size_t>(r.mentions[0].entity)], "2");
    EXPECT_EQ(r.mentions[0].last, 3);
    EXPECT_EQ(r.entityIds[static_cast<std::size_t>(r.mentions[1].entity)], "1");
    EXPECT_EQ(r.mentions[1].last, 2);
    EXPECT_EQ(r.entityIds[static_cast<std::size_t>(r.mentions[2].entity)], "3");
    EXPECT_EQ(r.mentions[2].last, 1);
    // Equal spans keep their reading order.
    EXPECT_EQ(r.entityIds[static_cast<std::size_t>(r.mentions[3].entity)], "4");
    EXPECT_EQ(r.entityIds[static_cast<std::size_t>(r.mentions[4].entity)], "5");
}

TEST(CorefParse, ItemsOfAValue) {
    using K = EntityItem::Kind;
    EXPECT_EQ(parseEntityValue("(7-abstract-new-nnnss-cf6-2-coref(3-abstract-giv:act-coref)", ""),
              (std::vector<EntityItem>{{K::kOpen, "7"}, {K::kSingle, "3"}}));
    EXPECT_EQ(parseEntityValue("7)6)5)4)", ""),
              (std::vector<EntityItem>{
                  {K::kClose, "7"}, {K::kClose, "6"}, {K::kClose, "5"}, {K::kClose, "4"}}));
    EXPECT_EQ(parseEntityValue("e5[1/2])(e6", ""),
              (std::vector<EntityItem>{{K::kClose, "e5[1/2]"}, {K::kOpen, "e6"}}));
    EXPECT_EQ(parseEntityValue("(1(2)(3-x(4", ""),
              (std::vector<EntityItem>{
                  {K::kOpen, "1"}, {K::kSingle, "2"}, {K::kOpen, "3"}, {K::kOpen, "4"}}));
}

TEST_F(CorefTest, HeadWordIsTheLeftmostWordWhoseHeadLeavesTheSpan) {
    const CorefResult r = read(kNested);
    const Sentence& s = m_conllu.sentences[0];
    EXPECT_EQ(mentionHead(s, r.mentions[1]), 4);  // "her sister": sister's head saw is outside
    EXPECT_EQ(mentionHead(s, r.mentions[2]), 3);  // single word
    // Two words leave the span "sister ." (both attached to saw): the leftmost.
    EXPECT_EQ(mentionHead(s, Mention{0, 0, 0, 4, 5}), 4);
    // The root (HEAD 0) inside the span.
    EXPECT_EQ(mentionHead(s, Mention{0, 0, 0, 1, 3}), 2);
    testing::expectError<InvalidArgument>(
        [&] {
            mentionHead(s, Mention{0, 0, 0, 4, 6});
        },
        {"4..6", "5 words"});

    // Without a tree (HEAD `_`): the last word.
    const CorefResult flat =
        read(word(1, "the", -1, "(1-x") + word(2, "cat", -1, "1)") + word(3, "sat", -1, "") + "\n");
    ASSERT_EQ(flat.mentions.size(), 1u);
    EXPECT_FALSE(m_conllu.sentences[0].hasTree());
    EXPECT_EQ(mentionHead(m_conllu.sentences[0], flat.mentions[0]), 2);
}

// The expected numbers come from an independent count, not from this reader: a throwaway Python
// script read the file line by line, counted `# newdoc` lines (30; the file starts with one),
// matched Entity= values with the regex `\(([^-()]+)[^()]*(\)?)|([^-()]+)\)` and paired
// closers with a per-sentence stack, counting (document, eid) pairs as entities. Cross-checks:
// the Entity= values hold 7897 '(' and 7897 ')' (grep -o | tr -cd), and no '[' at all.
TEST(CorefRealData, GumDevCounts) {
    const auto path =
        std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data/ud/UD_English-GUM/en_gum-ud-dev.conllu";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << "shared treebank not found at " << path.string();
    }
    const ConlluResult conllu = readConllu(path);
    ASSERT_EQ(conllu.skipped, 0);
    CorefOptions strict;
    strict.strict = true;
    const CorefResult r = readCoref(conllu.sentences, path.string(), strict);
    EXPECT_EQ(r.documents.size(), 30u);
    EXPECT_EQ(r.mentions.size(), 7897u);
    EXPECT_EQ(r.entityIds.size(), 3940u);
    EXPECT_EQ(r.discontinuous, 0);
    EXPECT_EQ(r.unclosed, 0);
    EXPECT_EQ(r.unmatched, 0);
    EXPECT_EQ(r.documents.front().id, "GUM_academic_exposure");
    for (const Mention& m : r.mentions) {
        const Sentence& s = conllu.sentences[static_cast<std::size_t>(m.sentence)];
        const int head = mentionHead(s, m);
        ASSERT_TRUE(head >= m.first && head <= m.last);
    }
}

}  // namespace
}  // namespace attnscope::text
