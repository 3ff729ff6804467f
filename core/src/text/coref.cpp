#include "attnscope/text/coref.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "attnscope/base/error.h"

namespace attnscope::text {

namespace {

constexpr std::string_view kEntityKey = "Entity=";

// Where an eid ends (R2, D1): at the first '-', '(' or ')', so `(1(2)` is an opener of 1
// without attributes followed by the single-word mention 2.
constexpr std::string_view kEidEnd = "-()";

// Spaces and control characters never belong to an id.
void checkEid(std::string_view eid, std::string_view value, const std::string& where) {
    const std::string shown = "Entity value '" + clipped(value) + "'";
    if (eid.empty()) {
        throw FormatError(where + shown + " has an empty entity id");
    }
    for (const char c : eid) {
        if (static_cast<unsigned char>(c) <= ' ') {
            throw FormatError(where + shown + " has a stray character in entity id '" +
                              clipped(eid) + "'");
        }
    }
}

// The value of the MISC attribute Entity=, or nullopt when there is none.
std::optional<std::string_view> entityValue(std::string_view misc, const std::string& where) {
    std::optional<std::string_view> found;
    findMiscAttribute(misc, [&](std::string_view attribute) {
        if (attribute.substr(0, kEntityKey.size()) == kEntityKey) {
            if (found) {
                throw FormatError(where + "MISC holds two Entity= attributes");
            }
            found = attribute.substr(kEntityKey.size());
        }
        return false;  // every attribute: a second Entity= is an error
    });
    return found;
}

// Why the text at a closer's position is not one (D3: a closer is exactly `eid)`).
std::string notACloser(std::string_view rest) {
    const std::size_t dash = rest.find('-');
    const std::size_t stop = rest.find_first_of("()");
    if (dash < stop && stop != std::string_view::npos && rest[stop] == ')') {
        return "closer '" + clipped(rest.substr(0, stop + 1)) +
               "' carries attributes; expected exactly 'eid)'";
    }
    return "'" + clipped(rest) + "' is neither an opener '(eid…' nor a closer 'eid)'";
}

struct OpenMention {
    std::string eid;
    std::size_t slot = 0;  // index into SentenceMentions::spans
};

struct Span {
    std::string eid;
    int first = 0;
    int last = 0;  // 0 while open
};

// What one sentence contributes; committed to the result only when all its values parse.
struct SentenceMentions {
    std::vector<Span> spans;  // in opener order; spans still open at the end are unclosed
    int unmatched = 0;
};

bool isDiscontinuousPart(std::string_view eid) {
    return eid.find('[') != std::string_view::npos;
}

void apply(const EntityItem& item, int word, SentenceMentions& out,
           std::vector<OpenMention>& open) {
    switch (item.kind) {
        case EntityItem::Kind::kSingle:
            out.spans.push_back({item.eid, word, word});
            return;
        case EntityItem::Kind::kOpen:
            open.push_back({item.eid, out.spans.size()});
            out.spans.push_back({item.eid, word, 0});
            return;
        case EntityItem::Kind::kClose:
            // The most recently opened mention of this eid (R2).
            for (auto it = open.rbegin(); it != open.rend(); ++it) {
                if (it->eid == item.eid) {
                    out.spans[it->slot].last = word;
                    open.erase(std::next(it).base());
                    return;
                }
            }
            ++out.unmatched;
            return;
    }
}

SentenceMentions readSentence(const Sentence& sentence, const std::string& file) {
    SentenceMentions out;
    std::vector<OpenMention> open;
    for (const Word& w : sentence.words) {
        const std::string where = file + ":" + std::to_string(w.line) + ": ";
        const auto value = entityValue(w.misc, where);
        if (!value) {
            continue;
        }
        for (const EntityItem& item : parseEntityValue(std::string(*value), where)) {
            apply(item, w.id, out, open);
        }
    }
    return out;
}

class Collector {
public:
    explicit Collector(CorefResult& result) : m_result(result) {}

    void startDocument(std::string id, int sentence) {
        if (!m_result.documents.empty()) {
            m_result.documents.back().endSentence = sentence;
        }
        m_result.documents.push_back({std::move(id), sentence, sentence});
    }

    void finish(int sentences) {
        if (!m_result.documents.empty()) {
            m_result.documents.back().endSentence = sentences;
        }
    }

    void add(SentenceMentions found, int sentence) {
        m_result.unmatched += found.unmatched;
        const int document = static_cast<int>(m_result.documents.size()) - 1;
        // D7: by first word, then longer first; stable, so equal spans keep their reading order.
        std::stable_sort(found.spans.begin(), found.spans.end(), [](const Span& a, const Span& b) {
            return a.first != b.first ? a.first < b.first : a.last > b.last;
        });
        for (const Span& span : found.spans) {
            // D2: a part counts once as it opens, closed or not.
            if (isDiscontinuousPart(span.eid)) {
                ++m_result.discontinuous;
            } else if (span.last == 0) {
                ++m_result.unclosed;
            } else {
                m_result.mentions.push_back(
                    {entityIndex(document, span.eid), document, sentence, span.first, span.last});
            }
        }
    }

private:
    int entityIndex(int document, const std::string& eid) {
        const auto [it, added] =
            m_entities.try_emplace({document, eid}, static_cast<int>(m_result.entityIds.size()));
        if (added) {
            m_result.entityIds.push_back(eid);
        }
        return it->second;
    }

    CorefResult& m_result;
    std::map<std::pair<int, std::string>, int> m_entities;  // (document, eid) -> entity
};

}  // namespace

std::vector<EntityItem> parseEntityValue(const std::string& value, const std::string& where) {
    if (value.empty()) {
        throw FormatError(where + "empty Entity= value");
    }
    std::vector<EntityItem> items;
    const std::string_view v = value;
    std::size_t pos = 0;
    while (pos < v.size()) {
        if (v[pos] == '(') {
            const std::size_t end = std::min(v.find_first_of(kEidEnd, pos + 1), v.size());
            const std::string_view eid = v.substr(pos + 1, end - pos - 1);
            checkEid(eid, v, where);
            // Attributes after the '-' run to the next '(' (another item) or ')' (single word).
            const std::size_t stop = end < v.size() && v[end] == '-'
                                         ? std::min(v.find_first_of("()", end), v.size())
                                         : end;
            const bool single = stop < v.size() && v[stop] == ')';
            items.push_back(
                {single ? EntityItem::Kind::kSingle : EntityItem::Kind::kOpen, std::string(eid)});
            pos = single ? stop + 1 : stop;
        } else {
            const std::size_t end = v.find_first_of(kEidEnd, pos);
            if (end == std::string_view::npos || v[end] != ')') {
                throw FormatError(where + "Entity value '" + clipped(v) +
                                  "': " + notACloser(v.substr(pos)));
            }
            const std::string_view eid = v.substr(pos, end - pos);
            checkEid(eid, v, where);
            items.push_back({EntityItem::Kind::kClose, std::string(eid)});
            pos = end + 1;
        }
    }
    return items;
}

CorefResult readCoref(const std::vector<Sentence>& sentences, const std::string& file,
                      const CorefOptions& options) {
    CorefResult result;
    Collector collector(result);
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        const Sentence& s = sentences[i];
        const int index = static_cast<int>(i);
        if (i == 0 || s.newDocument) {
            collector.startDocument(s.newDocument ? s.documentId : std::string(), index);
        }
        try {
            collector.add(readSentence(s, file), index);
        } catch (const FormatError& e) {
            if (options.strict) {
                throw;
            }
            ++result.malformedSentences;
            result.warnings.emplace_back(e.what());
        }
    }
    collector.finish(static_cast<int>(sentences.size()));
    return result;
}

int mentionHead(const Sentence& sentence, const Mention& mention) {
    const int n = static_cast<int>(sentence.words.size());
    if (mention.first < 1 || mention.last < mention.first || mention.last > n) {
        throw InvalidArgument("mention words " + std::to_string(mention.first) + ".." +
                              std::to_string(mention.last) + " outside a sentence of " +
                              std::to_string(n) + " words");
    }
    if (!sentence.hasTree()) {
        return mention.last;
    }
    for (int id = mention.first; id <= mention.last; ++id) {
        const int head = sentence.words[static_cast<std::size_t>(id - 1)].head;
        if (head < mention.first || head > mention.last) {  // HEAD 0 is outside too
            return id;
        }
    }
    // Only a hand-built sentence with a head cycle inside the span gets here: a validated tree
    // leads every word to 0, so some word of the span has its head outside it.
    return mention.last;
}

}  // namespace attnscope::text
