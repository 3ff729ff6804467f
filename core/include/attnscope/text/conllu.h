// Reads CoNLL-U treebanks (https://universaldependencies.org/format.html): one sentence at a
// time with ConlluReader, or a whole file with readConllu.
//
// Each sentence keeps its `# sent_id`, `# text` and `# newdoc` comments, its syntactic words with
// all ten columns, its multiword-token ranges and a count of its empty nodes (`8.1` lines, which
// carry enhanced-graph structure only and are not part of the basic tree). `surfaceText()` rebuilds
// the sentence text from the words, with one byte span per word: that pair, not `# text`, is
// what later code tokenizes and aligns with model tokens.
//
// Every sentence is validated: 10 columns, numeric IDs 1..n in order, HEAD in [0, n] and not the
// word itself, a head structure without cycles, well-formed multiword ranges over existing
// words, valid UTF-8, comments only before a sentence's token lines. A bad sentence is skipped
// and reported as "<file>:<line>: <reason>" (or thrown as FormatError when `strict`); the rest
// of the file is still read. A last sentence without a trailing blank line is kept.
//
// Underscores: `_` means "unspecified" and becomes an empty string in every column except FORM,
// which is always kept verbatim (a syntactic word needs a surface form, so a FORM of `_` is the
// literal underscore, e.g. UPOS PUNCT or SYM). LEMMA `_` is empty unless FORM is `_` too, in
// which case it is the literal underscore (the format leaves this to the application).
// HEAD `_` is allowed only for unannotated sentences, where every word has it (kNoHead).
//
// Throws FormatError (a missing file is "<file>: cannot open"; bad sentences in strict mode),
// Cancelled when the options' token is cancelled. A reader belongs to one thread; readConllu
// and Sentence are thread-compatible. Nothing here throws other exception types on bad data.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/base/cancel.h"

namespace attnscope::text {

// Word::head of a word whose HEAD column is `_` (a sentence without a dependency tree).
inline constexpr int kNoHead = -1;

// One syntactic word (a line with an integer ID).
struct Word {
    int id = 0;  // 1-based; words[i].id == i + 1
    std::string form;
    std::string lemma;
    std::string upos;
    std::string xpos;
    std::string feats;   // raw "Case=Nom|Number=Sing"; empty for `_`
    int head = kNoHead;  // ID of the head word, 0 for the root
    std::string deprel;
    std::string deps;        // raw enhanced dependencies "2:nsubj|4:nsubj"; empty for `_`
    std::string misc;        // raw MISC; empty for `_`
    bool spaceAfter = true;  // false when MISC holds SpaceAfter=No
    int line = 0;            // 1-based line in the file, for messages that point at this word
};

// A multiword token line such as `3-4  can't`: its surface form stands for words first..last.
struct MultiwordToken {
    int first = 0;  // inclusive word IDs, first < last
    int last = 0;
    std::string form;
    bool spaceAfter = true;  // from the range line's MISC (UD puts SpaceAfter there, not on words)
    int line = 0;
};

// Byte range [begin, end) in a SurfaceText::text.
struct Span {
    std::size_t begin = 0;
    std::size_t end = 0;

    friend bool operator==(const Span&, const Span&) = default;
};

struct SurfaceText {
    std::string text;
    // One span per word (index id - 1). A word inside a multiword token gets the span of the
    // whole token ("can't" for both "ca" and "n't"), since its own characters are not in the text.
    std::vector<Span> wordSpans;
};

struct Sentence {
    std::string sentId;  // `# sent_id = ...`, empty when absent
    std::string text;    // `# text = ...`, empty when absent
    // A `# newdoc` comment (with or without `id = ...`) before this sentence: it starts a document
    // (coref.h). When the sentence that carries it is skipped as malformed, the next kept
    // sentence inherits it, so a bad sentence does not merge two documents.
    bool newDocument = false;
    std::string documentId;  // the newdoc id, empty when absent
    int line = 0;            // 1-based line of the sentence's first line (comment or token)
    std::vector<Word> words;
    std::vector<MultiwordToken> multiwords;  // ordered, non-overlapping
    int emptyNodes = 0;

    // True when the words carry a dependency tree (HEAD not `_`).
    bool hasTree() const { return !words.empty() && words.front().head != kNoHead; }

    // Joins token forms (a multiword token's form replaces its words) with one space after each
    // token unless its SpaceAfter=No; no space after the last token. Other spacing attributes
    // (SpacesAfter=\n) count as one space. Never reads out of bounds on hand-built sentences:
    // a range that does not start at the next word is ignored and one past the last word is
    // clamped, but only validated sentences give the documented spans.
    SurfaceText surfaceText() const;
};

struct ConlluOptions {
    bool strict = false;    // throw FormatError on the first bad sentence instead of skipping it
    CancelToken cancel;     // checked every `checkEvery` lines; throws Cancelled
    ProgressFn progress;    // fraction of the file's bytes read; may be empty
    int checkEvery = 4096;  // lines between cancel checks and progress reports
};

// The longest line a CoNLL-U file may have. Real treebank lines are short (UD English's longest
// is 1,153 bytes); a longer one is a sentence error ("line 3 is 5000023 bytes long, more than
// ..."), and only its first kMaxConlluLineBytes are ever held in memory, so a 5 MB word or a
// file without line breaks cannot cost gigabytes downstream (a tokenizer spends about 170 bytes
// and 5 µs per byte of a single word).
inline constexpr std::size_t kMaxConlluLineBytes = 64 * 1024;

// Reads one line into `line` (without its '\n'), storing at most kMaxConlluLineBytes of it, so
// memory stays bounded however long the line; returns its full length, or nullopt at the end.
// The sentence-list reader (sentence_file.h) reads its lines the same way.
std::optional<std::size_t> readBoundedLine(std::istream& in, std::string& line);

// Streams sentences from a file, holding one sentence (and one line) in memory at a time.
class ConlluReader {
public:
    // Opens `path`; throws FormatError "<file>: cannot open".
    explicit ConlluReader(const std::filesystem::path& path, ConlluOptions options = {});

    // The next valid sentence, or nullopt at the end of the file. Bad sentences before it are
    // skipped and their messages appended to warnings() (strict mode throws instead, after which
    // the reader must not be used again).
    std::optional<Sentence> next();

    // One "<file>:<line>: <reason>" per skipped sentence, in file order.
    const std::vector<std::string>& warnings() const { return m_warnings; }

    int linesRead() const { return m_lineNumber; }

private:
    bool readLine();
    void reportProgress();
    Sentence keepDocument(Sentence sentence);

    std::string m_file;
    ConlluOptions m_options;
    std::ifstream m_in;
    std::string m_line;           // the current line, without its line ending, cut at the limit
    std::size_t m_lineBytes = 0;  // its full length, cut or not
    int m_lineNumber = 0;
    std::size_t m_bytesRead = 0;
    std::size_t m_fileSize = 0;
    std::vector<std::string> m_warnings;
    // The `# newdoc` of a skipped sentence, for the next kept sentence (see Sentence).
    std::optional<std::string> m_pendingDocument;
};

struct ConlluResult {
    std::vector<Sentence> sentences;
    int skipped = 0;                    // number of bad sentences left out
    std::vector<std::string> warnings;  // one "<file>:<line>: <reason>" per skipped sentence
    // Sentences whose `# text` differs from surfaceText().text (not an error: treebanks
    // sometimes normalise spacing in one but not the other).
    int textMismatches = 0;
};

// Reads every sentence of `path` (see ConlluReader). Throws as ConlluReader does.
ConlluResult readConllu(const std::filesystem::path& path, const ConlluOptions& options = {});

// For callers that score a treebank: FormatError "<file>: holds no sentences (…)" or "<file>: no
// usable sentence: all N are malformed, e.g. <first problem>" when `result` has none.
void requireSentences(const ConlluResult& result, const std::string& file);

// Calls `found(attribute)` for each `|`-separated attribute of a raw MISC value ("SpaceAfter=No",
// "Entity=(1-person)"), in order, until it returns true; returns whether it did.
template <class Found>
bool findMiscAttribute(std::string_view misc, Found&& found) {
    while (!misc.empty()) {
        const std::size_t bar = misc.find('|');
        if (found(misc.substr(0, bar))) {
            return true;
        }
        misc = bar == std::string_view::npos ? std::string_view() : misc.substr(bar + 1);
    }
    return false;
}

}  // namespace attnscope::text
