// CoNLL-U reading (issue 4: gold dependency relations): fields, multiword tokens, empty nodes,
// surface text and spans, validation errors with their lines, streaming, and the real treebanks.
#include "attnscope/text/conllu.h"

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <iostream>
#include <string_view>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"

namespace attnscope::text {
namespace {

// Rows are written with '|' for tab so the columns line up in the source.
std::string rows(std::string s) {
    std::replace(s.begin(), s.end(), '|', '\t');
    return s;
}

// The '|' of FEATS, DEPS and MISC cannot go through rows(), so such lines are built here.
std::string line(std::initializer_list<std::string_view> cols) {
    std::string out;
    for (const std::string_view c : cols) {
        out.append(out.empty() ? "" : "\t").append(c);
    }
    return out + "\n";
}

const std::string kGood = rows(
    "# sent_id = good\n"
    "1|Fine|fine|ADJ|JJ|_|0|root|_|_\n"
    "\n");

class ConlluTest : public ::testing::Test {
protected:
    std::filesystem::path write(const std::string& name, const std::string& bytes) {
        const auto path = m_dir.path() / name;
        testing::writeFile(path, bytes);
        return path;
    }

    testing::ScratchDir m_dir;
};

TEST_F(ConlluTest, ReadsEveryField) {
    const auto path =
        write("f.conllu", "# newdoc id = d1\n# sent_id = s-1\n# text = They ran.\n" +
                              line({"1", "They", "they", "PRON", "PRP", "Case=Nom|Number=Plur", "2",
                                    "nsubj", "2:nsubj", "Gloss=they"}) +
                              line({"2", "ran", "run", "VERB", "VBD", "Tense=Past", "0", "root",
                                    "0:root", "SpaceAfter=No|X=1"}) +
                              rows("3|.|.|PUNCT|.|_|2|punct|2:punct|_\n\n"));
    const ConlluResult r = readConllu(path);
    ASSERT_EQ(r.sentences.size(), 1u);
    EXPECT_EQ(r.skipped, 0);
    const Sentence& s = r.sentences[0];
    EXPECT_EQ(s.sentId, "s-1");
    EXPECT_EQ(s.text, "They ran.");
    EXPECT_TRUE(s.newDocument);
    EXPECT_EQ(s.documentId, "d1");
    EXPECT_EQ(s.line, 1);
    EXPECT_TRUE(s.hasTree());
    ASSERT_EQ(s.words.size(), 3u);
    const Word& w = s.words[0];
    EXPECT_EQ(w.id, 1);
    EXPECT_EQ(w.form, "They");
    EXPECT_EQ(w.lemma, "they");
    EXPECT_EQ(w.upos, "PRON");
    EXPECT_EQ(w.xpos, "PRP");
    EXPECT_EQ(w.feats, "Case=Nom|Number=Plur");
    EXPECT_EQ(w.head, 2);
    EXPECT_EQ(w.deprel, "nsubj");
    EXPECT_EQ(w.deps, "2:nsubj");
    EXPECT_EQ(w.misc, "Gloss=they");
    EXPECT_TRUE(w.spaceAfter);
    EXPECT_EQ(w.line, 4);
    EXPECT_EQ(s.words[1].head, 0);
    EXPECT_FALSE(s.words[1].spaceAfter);
    EXPECT_EQ(s.words[2].line, 6);
    EXPECT_EQ(s.surfaceText().text, "They ran.");
    EXPECT_EQ(r.textMismatches, 0);
}

TEST_F(ConlluTest, UnderscoreFieldsAreEmptyExceptLiteralUnderscores) {
    const auto path = write("u.conllu", rows("1|a|_|_|_|_|0|root|_|_\n"
                                             "2|_|_|PUNCT|NFP|_|1|punct|_|_\n"
                                             "\n"
                                             "1|raw|_|_|_|_|_|_|_|_\n"
                                             "2|text|_|_|_|_|_|_|_|_\n"
                                             "\n"));
    const ConlluResult r = readConllu(path);
    ASSERT_EQ(r.sentences.size(), 2u);
    const Word& a = r.sentences[0].words[0];
    EXPECT_EQ(a.lemma, "");
    EXPECT_EQ(a.upos, "");
    EXPECT_EQ(a.xpos, "");
    EXPECT_EQ(a.feats, "");
    EXPECT_EQ(a.deps, "");
    EXPECT_EQ(a.misc, "");
    const Word& underscore = r.sentences[0].words[1];
    EXPECT_EQ(underscore.form, "_");
    EXPECT_EQ(underscore.lemma, "_");
    EXPECT_EQ(r.sentences[0].surfaceText().text, "a _");
    // HEAD `_` throughout: an unannotated sentence, kept but without a tree.
    const Sentence& raw = r.sentences[1];
    EXPECT_FALSE(raw.hasTree());
    EXPECT_EQ(raw.words[0].head, kNoHead);
    EXPECT_EQ(raw.words[1].deprel, "");
    EXPECT_EQ(raw.sentId, "");
    EXPECT_EQ(raw.text, "");
    EXPECT_EQ(raw.line, 4);
}

TEST_F(ConlluTest, MultiwordTokensEmptyNodesSpans) {
    const auto path = write("m.conllu", "# text = I can't go, don't.\n" +
                                            rows("1|I|I|PRON|PRP|_|4|nsubj|_|_\n"
                                                 "2-3|can't|_|_|_|_|_|_|_|_\n"
                                                 "2|ca|can|AUX|MD|_|4|aux|_|_\n"
                                                 "3|n't|not|PART|RB|_|4|advmod|_|_\n"
                                                 "4|go|go|VERB|VB|_|0|root|_|SpaceAfter=No\n"
                                                 "4.1|go|go|VERB|_|_|_|_|2:conj|_\n"
                                                 "5|,|,|PUNCT|,|_|6|punct|_|_\n"
                                                 "6-7|don't|_|_|_|_|_|_|_|SpaceAfter=No\n"
                                                 "6|do|do|AUX|VBP|_|4|parataxis|_|_\n"
                                                 "7|n't|not|PART|RB|_|6|advmod|_|_\n"
                                                 "8|.|.|PUNCT|.|_|4|punct|_|_\n"
                                                 "8.1|x|x|X|_|_|_|_|_|_\n"
                                                 "8.2|y|y|X|_|_|_|_|_|_\n"));
    const ConlluResult r = readConllu(path);
    ASSERT_EQ(r.sentences.size(), 1u) << (r.warnings.empty() ? "" : r.warnings[0]);
    const Sentence& s = r.sentences[0];
    EXPECT_EQ(s.words.size(), 8u);
    EXPECT_EQ(s.emptyNodes, 3);
    ASSERT_EQ(s.multiwords.size(), 2u);
    EXPECT_EQ(s.multiwords[0].first, 2);
    EXPECT_EQ(s.multiwords[0].last, 3);
    EXPECT_EQ(s.multiwords[0].form, "can't");
    EXPECT_TRUE(s.multiwords[0].spaceAfter);
    EXPECT_EQ(s.multiwords[0].line, 3);
    EXPECT_FALSE(s.multiwords[1].spaceAfter);
    const SurfaceText t = s.surfaceText();
    EXPECT_EQ(t.text, "I can't go, don't.");
    EXPECT_EQ(t.text, s.text);
    const std::vector<Span> expected = {{0, 1},   {2, 7},   {2, 7},   {8, 10},
                                        {10, 11}, {12, 17}, {12, 17}, {17, 18}};
    EXPECT_EQ(t.wordSpans, expected);
    EXPECT_EQ(r.textMismatches, 0);
}

TEST_F(ConlluTest, SurfaceTextMismatchIsCountedNotAnError) {
    const auto path = write(
        "t.conllu", "# text = Hello, world\n" + rows("1|Hello|hello|INTJ|UH|_|0|root|_|_\n"
                                                     "2|,|,|PUNCT|,|_|1|punct|_|_\n"
                                                     "3|world|world|NOUN|NN|_|1|vocative|_|_\n"));
    const ConlluResult r = readConllu(path);
    ASSERT_EQ(r.sentences.size(), 1u);
    EXPECT_EQ(r.sentences[0].surfaceText().text, "Hello , world");
    EXPECT_EQ(r.textMismatches, 1);
    EXPECT_EQ(r.skipped, 0);
}

TEST(ConlluSurface, HandBuiltSentenceWithBadRangesStaysInBounds) {
    Sentence s;
    for (int i = 1; i <= 3; ++i) {
        Word w;
        w.id = i;
        w.form = std::string(1, static_cast<char>('a' + i - 1));
        s.words.push_back(w);
    }
    s.multiwords.push_back({2, 9, "BC", true, 0});  // runs past the words: clamped
    s.multiwords.push_back({1, 1, "x", true, 0});   // starts before the next word: ignored
    const SurfaceText t = s.surfaceText();
    EXPECT_EQ(t.text, "a BC");
    EXPECT_EQ(t.wordSpans, (std::vector<Span>{{0, 1}, {2, 4}, {2, 4}}));
    EXPECT_EQ(Sentence().surfaceText().text, "");
}

struct BadCase {
    std::string name;
    std::string sentence;  // file content before kGood; the bad sentence starts at line 1
    int line;              // where the error is reported
    std::string reason;    // a fragment of the message
};

const std::vector<BadCase>& badCases() {
    static const std::vector<BadCase> cases = {
        {"columns", rows("# text = x\n1|x|x|X|_|_|0|root\n\n"), 2,
         "expected 10 tab-separated columns, found 8"},
        {"too_many_columns", rows("1|x|x|X|_|_|0|root|_|_|extra\n\n"), 1,
         "expected 10 tab-separated columns, found 11"},
        {"empty_column", rows("1|x||X|_|_|0|root|_|_\n\n"), 1, "column 3 (LEMMA) is empty"},
        {"id_not_number", rows("1|a|a|X|_|_|0|root|_|_\nb|x|x|X|_|_|1|dep|_|_\n\n"), 2,
         "ID 'b' is not a number"},
        {"id_negative", rows("-1|x|x|X|_|_|0|root|_|_\n\n"), 1, "multiword range '-1'"},
        {"head_not_number", rows("1|a|a|X|_|_|0|root|_|_\n2|x|x|X|_|_|one|dep|_|_\n\n"), 2,
         "HEAD 'one' of word 2 is not a number"},
        // Issue 30: digits beyond int are too large, not "not a number".
        {"head_too_large", rows("1|a|a|X|_|_|0|root|_|_\n2|x|x|X|_|_|99999999999|dep|_|_\n\n"), 2,
         "HEAD '99999999999' of word 2 is too large (at most 2147483647)"},
        {"id_too_large", rows("99999999999|x|x|X|_|_|0|root|_|_\n\n"), 1,
         "ID '99999999999' is too large (at most 2147483647)"},
        {"id_gap", rows("1|a|a|X|_|_|0|root|_|_\n3|x|x|X|_|_|1|dep|_|_\n\n"), 2,
         "word ID 3 out of order: expected 2"},
        {"id_not_from_one", rows("# c\n2|x|x|X|_|_|0|root|_|_\n\n"), 2,
         "word ID 2 out of order: expected 1"},
        {"head_range", rows("1|a|a|X|_|_|0|root|_|_\n2|x|x|X|_|_|7|dep|_|_\n\n"), 2,
         "HEAD 7 of word 2 out of range [0, 2]"},
        {"self_head", rows("1|a|a|X|_|_|0|root|_|_\n2|x|x|X|_|_|2|dep|_|_\n\n"), 2,
         "word 2 has itself as HEAD"},
        {"cycle",
         rows("1|a|a|X|_|_|0|root|_|_\n2|b|b|X|_|_|3|dep|_|_\n3|c|c|X|_|_|4|dep|_|_\n"
              "4|d|d|X|_|_|2|dep|_|_\n\n"),
         2, "word 2 has no path to the root (HEAD cycle 2 -> 3 -> 4 -> 2)"},
        {"cycle_without_root", rows("1|a|a|X|_|_|2|dep|_|_\n2|b|b|X|_|_|1|dep|_|_\n\n"), 1,
         "HEAD cycle 1 -> 2 -> 1"},
        {"mixed_heads", rows("1|a|a|X|_|_|0|root|_|_\n2|b|b|X|_|_|_|_|_|_\n\n"), 2,
         "HEAD of word 2 is '_' although word 1 has one"},
        {"range_reversed", rows("1|a|a|X|_|_|0|root|_|_\n5-3|bc|_|_|_|_|_|_|_|_\n\n"), 2,
         "multiword range 5-3 is malformed"},
        {"range_single", rows("1-1|a|_|_|_|_|_|_|_|_\n1|a|a|X|_|_|0|root|_|_\n\n"), 1,
         "multiword range 1-1 is malformed"},
        {"range_not_number", rows("1-x|a|_|_|_|_|_|_|_|_\n\n"), 1,
         "multiword range '1-x' is not of the form 3-4"},
        {"range_past_words",
         rows("1|a|a|X|_|_|0|root|_|_\n2-3|bc|_|_|_|_|_|_|_|_\n2|b|b|X|_|_|1|dep|_|_\n\n"), 2,
         "multiword range 2-3 covers word 3, but the sentence has 2 words"},
        {"range_not_at_next_word", rows("1|a|a|X|_|_|0|root|_|_\n3-4|cd|_|_|_|_|_|_|_|_\n\n"), 2,
         "must start at the next word, 2"},
        {"range_overlap",
         rows("1-2|ab|_|_|_|_|_|_|_|_\n1|a|a|X|_|_|0|root|_|_\n2-3|bc|_|_|_|_|_|_|_|_\n\n"), 3,
         "overlaps the previous range, which ends at word 2"},
        {"empty_node_misplaced", rows("1|a|a|X|_|_|0|root|_|_\n3.1|e|e|X|_|_|_|_|_|_\n\n"), 2,
         "empty node 3.1 must follow word 3, but the last word is 1"},
        {"empty_node_bad", rows("1|a|a|X|_|_|0|root|_|_\n1.x|e|e|X|_|_|_|_|_|_\n\n"), 2,
         "empty node ID '1.x'"},
        {"utf8", rows("1|a|a|X|_|_|0|root|_|_\n2|b\xff|b|X|_|_|1|dep|_|_\n\n"), 2,
         "invalid UTF-8 at byte 4"},
        {"comment_after_tokens", rows("1|a|a|X|_|_|0|root|_|_\n# text = next\n\n"), 2,
         "comment line after token lines"},
        {"no_words", "# sent_id = lonely\n\n", 1, "sentence has no words"},
        {"only_empty_nodes", rows("0.1|e|e|X|_|_|_|_|_|_\n\n"), 1, "sentence has no words"},
        {"spaces_only", "   \n\n", 1, "expected 10 tab-separated columns, found 1"},
    };
    return cases;
}

TEST_F(ConlluTest, EachErrorNamesFileLineAndReasonAndSkipsOnlyItsSentence) {
    for (const BadCase& c : badCases()) {
        SCOPED_TRACE(c.name);
        const auto path = write(c.name + ".conllu", c.sentence + kGood);
        const std::string at = c.name + ".conllu:" + std::to_string(c.line) + ": ";
        const ConlluResult r = readConllu(path);
        EXPECT_EQ(r.skipped, 1);
        ASSERT_EQ(r.warnings.size(), 1u);
        const std::string& w = r.warnings[0];
        EXPECT_NE(w.find(at), std::string::npos) << "warning '" << w << "' lacks '" << at << "'";
        EXPECT_NE(w.find(c.reason), std::string::npos) << "warning '" << w << "' lacks the reason";
        ASSERT_EQ(r.sentences.size(), 1u);
        EXPECT_EQ(r.sentences[0].sentId, "good");
        ConlluOptions strict;
        strict.strict = true;
        testing::expectError<FormatError>([&] { readConllu(path, strict); }, {at, c.reason});
    }
}

TEST_F(ConlluTest, NonStrictSkipsEveryBadSentenceStrictStopsAtTheFirst) {
    const auto path = write("mix.conllu", kGood + rows("1|a|a|X|_|_|2|dep|_|_\n\n") +  // line 4
                                              kGood +
                                              rows("1|a|a|X|_|_|0|root|_|_\n"
                                                   "2|b|b|X|_|_|2|dep|_|_\n"  // line 10
                                                   "3|c|x|y\n"
                                                   "\n") +
                                              kGood);
    const ConlluResult r = readConllu(path);
    EXPECT_EQ(r.sentences.size(), 3u);
    EXPECT_EQ(r.skipped, 2);
    ASSERT_EQ(r.warnings.size(), 2u);
    EXPECT_NE(r.warnings[0].find("mix.conllu:4: HEAD 2 of word 1 out of range [0, 1]"),
              std::string::npos)
        << r.warnings[0];
    // One message per sentence: the first problem; line 11 of the same sentence is not reported.
    EXPECT_NE(r.warnings[1].find("mix.conllu:10: word 2 has itself as HEAD"), std::string::npos)
        << r.warnings[1];

    ConlluOptions strict;
    strict.strict = true;
    ConlluReader reader(path, strict);
    EXPECT_TRUE(reader.next().has_value());
    testing::expectError<FormatError>([&] { reader.next(); }, {"mix.conllu:4:", "HEAD 2"});
}

// Issue 30: a 5 MB single-token line went whole into the sentence and through the tokenizer
// (852 MB, 25 s); a file with no line break at all was read into one string. Lines are read
// with bounded memory and refused past kMaxConlluLineBytes; a line at the limit is still fine.
TEST_F(ConlluTest, OverlongLinesAreRefusedWithoutHoldingThem) {
    const std::string huge = rows("1|" + std::string(5000000, 'a') + "|_|X|_|_|0|root|_|_\n\n");
    const std::string atLimit =
        rows("1|" + std::string(kMaxConlluLineBytes - 21, 'b') + "|_|X|_|_|0|root|_|_\n\n");
    ASSERT_EQ(atLimit.size(), kMaxConlluLineBytes + 2);
    const auto path = write("huge.conllu", huge + kGood + atLimit);
    const auto start = std::chrono::steady_clock::now();
    const ConlluResult r = readConllu(path);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(
        r.warnings[0],
        path.string() +
            ":1: the line is 5000021 bytes long, more than the 65536 a CoNLL-U line may have");
    ASSERT_EQ(r.sentences.size(), 2u);
    EXPECT_EQ(r.sentences[0].sentId, "good");
    EXPECT_EQ(r.sentences[1].words[0].form.size(), kMaxConlluLineBytes - 21);
    EXPECT_EQ(r.sentences[1].line, 6);

    ConlluOptions strict;
    strict.strict = true;
    testing::expectError<FormatError>([&] { readConllu(path, strict); },
                                      {"huge.conllu:1: the line is 5000021 bytes long"});
    // No line break at all: one line of the whole file.
    const auto flat = write("flat.conllu", std::string(3000000, 'x'));
    testing::expectError<FormatError>([&] { readConllu(flat, strict); },
                                      {"flat.conllu:1: the line is 3000000 bytes long"});
}

TEST_F(ConlluTest, LastSentenceWithoutTrailingBlankLineIsKept) {
    const auto path = write("end.conllu", kGood + rows("# sent_id = last\n"
                                                       "1|End|end|NOUN|NN|_|0|root|_|_"));
    const ConlluResult r = readConllu(path);
    ASSERT_EQ(r.sentences.size(), 2u);
    EXPECT_EQ(r.sentences[1].sentId, "last");
    EXPECT_EQ(r.sentences[1].words[0].misc, "");

    // A bad last sentence without a blank line is still reported.
    const auto bad = write("badend.conllu", kGood + rows("1|End|end|NOUN|NN|_|5|dep|_|_\n"));
    const ConlluResult rb = readConllu(bad);
    EXPECT_EQ(rb.sentences.size(), 1u);
    ASSERT_EQ(rb.warnings.size(), 1u);
    EXPECT_NE(rb.warnings[0].find("badend.conllu:4: HEAD 5"), std::string::npos) << rb.warnings[0];
}

TEST_F(ConlluTest, CrlfLineEndingsByteOrderMarkAndExtraBlankLines) {
    std::string crlf;
    for (const char c : "\xEF\xBB\xBF# sent_id = a\n# text = Hi!\n" +
                            rows("1|Hi|hi|INTJ|UH|_|0|root|_|SpaceAfter=No\n"
                                 "2|!|!|PUNCT|.|_|1|punct|_|_\n\n\n\n") +
                            kGood) {
        if (c == '\n') {
            crlf += '\r';
        }
        crlf += c;
    }
    const ConlluResult r = readConllu(write("crlf.conllu", crlf));
    ASSERT_EQ(r.sentences.size(), 2u) << (r.warnings.empty() ? "" : r.warnings[0]);
    EXPECT_EQ(r.sentences[0].sentId, "a");
    EXPECT_EQ(r.sentences[0].text, "Hi!");
    EXPECT_EQ(r.sentences[0].words[1].misc, "");
    EXPECT_EQ(r.sentences[0].surfaceText().text, "Hi!");
    EXPECT_EQ(r.sentences[1].line, 8);
    EXPECT_EQ(r.textMismatches, 0);
}

TEST_F(ConlluTest, ReaderStreamsSentencesAndReportsProgress) {
    std::string content;
    for (int i = 0; i < 50; ++i) {
        content += kGood;
    }
    const auto path = write("many.conllu", content);
    std::vector<double> fractions;
    ConlluOptions options;
    options.checkEvery = 10;
    options.progress = [&](double f) { fractions.push_back(f); };
    ConlluReader reader(path, options);
    int count = 0;
    while (const auto s = reader.next()) {
        EXPECT_EQ(s->line, 1 + 3 * count);
        ++count;
    }
    EXPECT_EQ(count, 50);
    EXPECT_FALSE(reader.next().has_value());
    EXPECT_EQ(reader.linesRead(), 150);
    ASSERT_GE(fractions.size(), 10u);
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
    EXPECT_GT(fractions.front(), 0.0);
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
}

TEST_F(ConlluTest, CancellationThrowsCancelled) {
    std::string content;
    for (int i = 0; i < 20; ++i) {
        content += kGood;
    }
    const auto path = write("cancel.conllu", content);
    ConlluOptions options;
    options.checkEvery = 5;
    options.cancel.cancel();
    EXPECT_THROW(readConllu(path, options), Cancelled);

    // Cancelling midway, from the progress callback, stops within checkEvery lines.
    ConlluOptions midway;
    midway.checkEvery = 5;
    midway.progress = [token = midway.cancel](double) { token.cancel(); };
    ConlluReader reader(path, midway);
    EXPECT_THROW(
        {
            while (reader.next()) {
            }
        },
        Cancelled);
    EXPECT_LE(reader.linesRead(), 10);
}

// Issue 16 (coreference documents): `# newdoc` with and without an id; a skipped sentence passes
// its newdoc on to the next kept one, which keeps its own when it has one.
TEST_F(ConlluTest, NewdocCommentsMarkDocumentStarts) {
    const std::string word = rows("1|Fine|fine|ADJ|JJ|_|0|root|_|_\n");
    const std::string bad = rows("1|Bad|bad|ADJ|JJ|_|7|root|_|_\n");
    const auto path =
        write("docs.conllu", "# sent_id = before\n" + word + "\n" +  //
                                 "# newdoc\n" + word + "\n" + word + "\n" + "# newdoc id = lost\n" +
                                 bad + "\n" + word + "\n" + "# newdoc id = x\n" + bad + "\n" +
                                 "# newdoc id = own\n" + word + "\n");
    const ConlluResult r = readConllu(path);
    ASSERT_EQ(r.sentences.size(), 5u);
    EXPECT_EQ(r.skipped, 2);
    const std::vector<bool> starts = {false, true, false, true, true};
    const std::vector<std::string> ids = {"", "", "", "lost", "own"};
    for (std::size_t i = 0; i < starts.size(); ++i) {
        EXPECT_EQ(r.sentences[i].newDocument, starts[i]) << i;
        EXPECT_EQ(r.sentences[i].documentId, ids[i]) << i;
    }
}

TEST_F(ConlluTest, MissingFile) {
    testing::expectError<FormatError>([&] { readConllu(m_dir.path() / "none.conllu"); },
                                      {"none.conllu", "cannot open"});
}

struct Treebank {
    const char* path;
    std::size_t sentences;
};

TEST(ConlluRealData, AllSharedTreebanksReadWithoutSkips) {
    const auto ud = std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data/ud";
    const std::vector<Treebank> treebanks = {
        {"UD_English-EWT/en_ewt-ud-dev.conllu", 2001},
        {"UD_English-GUM/en_gum-ud-dev.conllu", 1575},
        {"UD_English-LinES/en_lines-ud-dev.conllu", 1118},
        {"UD_English-LinES/en_lines-ud-train.conllu", 3457},
        {"UD_English-ParTUT/en_partut-ud-dev.conllu", 156},
        {"UD_English-ParTUT/en_partut-ud-train.conllu", 1781},
    };
    for (const Treebank& tb : treebanks) {
        const auto path = ud / tb.path;
        if (!std::filesystem::exists(path)) {
            GTEST_SKIP() << "shared treebank not found at " << path;
        }
        SCOPED_TRACE(tb.path);
        const auto start = std::chrono::steady_clock::now();
        const ConlluResult r = readConllu(path);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(r.sentences.size(), tb.sentences);
        EXPECT_EQ(r.skipped, 0) << (r.warnings.empty() ? "" : r.warnings[0]);
        std::size_t words = 0;
        int shown = 0;
        for (const Sentence& s : r.sentences) {
            words += s.words.size();
            EXPECT_TRUE(s.hasTree()) << s.sentId;
            const std::string built = s.surfaceText().text;
            if (built != s.text && shown++ < 3) {
                std::cout << "  " << s.sentId << "\n    # text: " << s.text
                          << "\n    built : " << built << "\n";
            }
        }
        std::cout << tb.path << ": " << r.sentences.size() << " sentences, " << words << " words, "
                  << r.skipped << " skipped, " << r.textMismatches << " text mismatches, "
                  << seconds << " s\n";
        EXPECT_LT(r.textMismatches * 100, static_cast<int>(r.sentences.size()));
    }
}

}  // namespace
}  // namespace attnscope::text
