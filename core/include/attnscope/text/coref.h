// Reads coreference from CoNLL-U sentences annotated in CorefUD form (issue 16): documents from
// `# newdoc` comments, mentions from the MISC attribute `Entity=`, and the head word of a mention
// from the gold tree. The rules (R1-R3 of issue 16, shared with tests/reference) are:
//
// Documents (R1). A sentence with Sentence::newDocument starts a document whose id is its
// `# newdoc id` (empty if none); sentences before the first `# newdoc` form a document of their
// own.
//
// Mentions (R2). `Entity=` holds, in order, openers `(eid-…`, closers `eid)` and single-word
// mentions `(eid-…)`, possibly concatenated: `Entity=(7-abstract-new(3-abstract-giv)` opens 7
// and makes word-long mention 3; `Entity=7)6)` closes 7, then 6. The eid is the text after `(`
// (or at the start of a closer) up to the first `-`, `(` or `)`, so `(1(2)` opens 1 without
// attributes and makes the single-word mention 2. A closer is exactly `eid)`. A closer closes
// the most recently opened, still open mention with the same eid in the same sentence. Not
// mentions, only counted:
//   - discontinuous parts: every opener or single-word item whose eid holds `[` (CorefUD writes
//     `e5[1/2]`), counted once as it opens, closed or not (never unclosed); its closer closes it;
//   - unclosed: an opener still open at the end of its sentence (mentions never cross sentences);
//   - unmatched: a closer with no open mention of its eid (a part's closer too).
// Malformed values (empty eid, an ASCII space or control character (code points 0-32) in an
// eid, a closer without `)` or with attributes `eid-…)`, an empty `Entity=`, two `Entity=`
// attributes in one MISC) are reported as "<file>:<line>: <reason>" with the line of the word:
// in strict mode as FormatError, otherwise as a warning, and that sentence gives no mentions.
// Entity ids are scoped to their document (GUM numbers them from 1 in every document).
//
// Head word (R3): mentionHead.
//
// Throws FormatError in strict mode only; no other exception types on bad data. Functions are
// pure and thread-safe; results are plain values.
#pragma once

#include <string>
#include <vector>

#include "attnscope/text/conllu.h"

namespace attnscope::text {

// Sentences [firstSentence, endSentence) of the input vector.
struct CorefDocument {
    std::string id;  // the `# newdoc id`, empty when absent or for sentences before any newdoc
    int firstSentence = 0;
    int endSentence = 0;
};

struct Mention {
    int entity = 0;    // dense index into CorefResult::entityIds, by first mention
    int document = 0;  // index into CorefResult::documents
    int sentence = 0;  // index into the input vector of sentences
    int first = 0;     // word ids, 1-based, inclusive
    int last = 0;

    friend bool operator==(const Mention&, const Mention&) = default;
};

struct CorefResult {
    std::vector<CorefDocument> documents;
    // By sentence, first word, then longer first (outer before inner), then the order their
    // opening brackets were read (D7).
    std::vector<Mention> mentions;
    std::vector<std::string> entityIds;  // eid of each entity: identity is (document, eid)
    int discontinuous = 0;               // opening items whose eid contains '['
    int unclosed = 0;                    // openers still open at the end of their sentence
    int unmatched = 0;                   // closers without an open mention of their eid
    int malformedSentences = 0;          // sentences whose mentions were dropped
    std::vector<std::string> warnings;   // "<file>:<line>: <reason>", one per malformed sentence
};

struct CorefOptions {
    bool strict = false;  // throw FormatError on the first malformed Entity= value
};

// Reads documents and mentions from `sentences` (as readConllu returns them); `file` names the
// treebank in messages, and Word::line the line.
CorefResult readCoref(const std::vector<Sentence>& sentences, const std::string& file,
                      const CorefOptions& options = {});

// One parsed item of an `Entity=` value.
struct EntityItem {
    enum class Kind { kOpen, kClose, kSingle };
    Kind kind = Kind::kOpen;
    std::string eid;

    friend bool operator==(const EntityItem&, const EntityItem&) = default;
};

// Parses one `Entity=` value (without the `Entity=`); throws FormatError with `where` (e.g.
// "<file>:<line>: ") before the reason when it is malformed. Exposed for tests and fuzzing.
std::vector<EntityItem> parseEntityValue(const std::string& value, const std::string& where);

// The head word id of `mention` in `sentence` (R3): the word of the span whose HEAD lies outside
// the span or is 0, the leftmost when several do; the last word for a sentence without a tree.
// A span outside the sentence throws InvalidArgument.
int mentionHead(const Sentence& sentence, const Mention& mention);

}  // namespace attnscope::text
