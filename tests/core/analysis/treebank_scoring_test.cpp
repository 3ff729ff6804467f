// The gold sentence of a CoNLL-U sentence (treebank_scoring.h): text, shared multiword spans and
// the words' own pieces of a multiword token (issue 16).
#include "attnscope/analysis/treebank_scoring.h"

#include <gtest/gtest.h>

namespace attnscope::analysis {
namespace {

text::Word word(int id, std::string form, bool spaceAfter = true) {
    text::Word w;
    w.id = id;
    w.form = std::move(form);
    w.head = id == 1 ? 0 : 1;
    w.deprel = id == 1 ? "root" : "dep";
    w.spaceAfter = spaceAfter;
    return w;
}

TEST(TreebankScoring, WordsThatSpellTheirMultiwordTokenGetTheirOwnPieces) {
    // "I can't go gonna du": can't = ca + n't and gonna = gon + na spell their tokens; "du" =
    // de + le does not, so those two keep the shared span.
    text::Sentence s;
    const char* forms[] = {"I", "ca", "n't", "go", "gon", "na", "de", "le"};
    for (int i = 0; i < 8; ++i) {
        s.words.push_back(word(i + 1, forms[i]));
    }
    s.multiwords = {{2, 3, "can't", true, 0}, {5, 6, "gonna", true, 0}, {7, 8, "du", true, 0}};
    std::string text;
    const GoldSentence g = goldSentence(s, &text);
    EXPECT_EQ(text, "I can't go gonna du");
    EXPECT_EQ(g.wordSpans,
              (std::vector<ByteSpan>{
                  {0, 1}, {2, 7}, {2, 7}, {8, 10}, {11, 16}, {11, 16}, {17, 19}, {17, 19}}));
    EXPECT_EQ(g.ownSpans,
              (std::vector<ByteSpan>{
                  {0, 1}, {2, 4}, {4, 7}, {8, 10}, {11, 14}, {14, 16}, {17, 19}, {17, 19}}));
}

TEST(TreebankScoring, CaseOrSpellingDifferencesKeepTheSharedSpan) {
    // Spanish "dámelo" = "da" + "me" + "lo": the accent is the token's, not the words'.
    text::Sentence s;
    s.words = {word(1, "da"), word(2, "me"), word(3, "lo")};
    s.multiwords = {{1, 3, "dámelo", true, 0}};
    const GoldSentence g = goldSentence(s, nullptr);
    EXPECT_EQ(g.ownSpans, g.wordSpans);
}

}  // namespace
}  // namespace attnscope::analysis
