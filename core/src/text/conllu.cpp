#include "attnscope/text/conllu.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/base/trim.h"
#include "attnscope/io/input_file.h"
#include "attnscope/tokenize/unicode.h"

namespace attnscope::text {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kColumns = 10;
constexpr std::array<std::string_view, kColumns> kColumnNames = {
    "ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"};

using Columns = std::array<std::string_view, kColumns>;

std::string where(const std::string& file, int line) {
    std::string out = file;
    out.append(":").append(std::to_string(line)).append(": ");
    return out;
}

[[noreturn]] void fail(const std::string& file, int line, const std::string& reason) {
    throw FormatError(where(file, line) + reason);
}

// A value from the file in a message, cut short: a hostile line can be megabytes long.
std::string quoted(std::string_view s) {
    std::string out = "'";
    out.append(clipped(s)).append("'");
    return out;
}

// A non-negative decimal integer using the whole of `s` (no sign, no spaces), else nullopt.
std::optional<int> parseNumber(std::string_view s) {
    if (s.empty() || s.front() < '0' || s.front() > '9') {
        return std::nullopt;
    }
    int value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return value;
}

// Why parseNumber refused `s`: digits beyond int's range are a number, only too large.
std::string notANumber(std::string_view s) {
    const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
    return digits
               ? " is too large (at most " + std::to_string(std::numeric_limits<int>::max()) + ")"
               : " is not a number";
}

// Splits at tabs; returns the number of columns found (which may exceed kColumns, in which
// case `out` holds only the first ones).
std::size_t splitColumns(std::string_view line, Columns& out) {
    std::size_t count = 0;
    std::size_t start = 0;
    while (true) {
        const std::size_t tab = line.find('\t', start);
        const std::size_t end = tab == std::string_view::npos ? line.size() : tab;
        if (count < kColumns) {
            out[count] = line.substr(start, end - start);
        }
        ++count;
        if (tab == std::string_view::npos) {
            return count;
        }
        start = tab + 1;
    }
}

std::string field(std::string_view s) {
    return s == "_" ? std::string() : std::string(s);
}

bool hasSpaceAfterNo(std::string_view misc) {
    return findMiscAttribute(misc, [](std::string_view a) { return a == "SpaceAfter=No"; });
}

// Collects the lines of one sentence and checks them; throws FormatError naming file and line.
class SentenceBuilder {
public:
    explicit SentenceBuilder(const std::string& file) : m_file(file) {}

    bool started() const { return m_sentence.line != 0; }

    void start(int line) {
        m_sentence = Sentence();
        m_sentence.line = line;
        m_rangeEnd = 0;
        m_sawToken = false;
    }

    void add(std::string_view line, int number) {
        if (const auto bad = tokenize::findInvalidUtf8(line)) {
            fail(m_file, number,
                 "invalid UTF-8 at byte " + std::to_string(*bad + 1) + " of the line");
        }
        if (line.front() == '#') {
            comment(line, number);
        } else {
            token(line, number);
        }
    }

    Sentence finish() {
        checkStructure();
        checkTree();
        return std::move(m_sentence);
    }

    // The `# newdoc` id of the sentence being read, if it had one (kept when it is skipped).
    std::optional<std::string> document() const {
        if (!m_sentence.newDocument) {
            return std::nullopt;
        }
        return m_sentence.documentId;
    }

private:
    void comment(std::string_view line, int number) {
        if (m_sawToken) {
            fail(m_file, number,
                 "comment line after token lines (a blank line must end each sentence)");
        }
        const std::size_t eq = line.find('=');
        // `# newdoc` may come without `=`; every other comment we keep is `key = value`.
        const std::string_view key =
            trimmed(line.substr(1, eq == std::string_view::npos ? eq : eq - 1));
        if (key == "newdoc" || key == "newdoc id") {
            m_sentence.newDocument = true;
            m_sentence.documentId = eq == std::string_view::npos
                                        ? std::string()
                                        : std::string(trimmed(line.substr(eq + 1)));
            return;
        }
        if (eq == std::string_view::npos) {
            return;
        }
        if (key == "sent_id") {
            m_sentence.sentId = std::string(trimmed(line.substr(eq + 1)));
        } else if (key == "text") {
            m_sentence.text = std::string(trimmed(line.substr(eq + 1)));
        }
    }

    void token(std::string_view line, int number) {
        m_sawToken = true;
        Columns cols;
        const std::size_t count = splitColumns(line, cols);
        if (count != kColumns) {
            fail(m_file, number,
                 "expected 10 tab-separated columns, found " + std::to_string(count));
        }
        for (std::size_t c = 0; c < kColumns; ++c) {
            if (cols[c].empty()) {
                std::string reason = "column ";
                reason.append(std::to_string(c + 1)).append(" (").append(kColumnNames[c]);
                reason.append(") is empty; '_' marks an unspecified value");
                fail(m_file, number, reason);
            }
        }
        const std::string_view id = cols[0];
        if (id.find('-') != std::string_view::npos) {
            multiword(cols, number);
        } else if (id.find('.') != std::string_view::npos) {
            emptyNode(id, number);
        } else {
            word(cols, number);
        }
    }

    int nextWordId() const { return static_cast<int>(m_sentence.words.size()) + 1; }

    void word(const Columns& cols, int number) {
        const auto id = parseNumber(cols[0]);
        if (!id) {
            const std::string why = notANumber(cols[0]);
            fail(m_file, number,
                 "ID " + quoted(cols[0]) + why +
                     (why == " is not a number" ? ", a range (3-4) or an empty node (3.1)" : ""));
        }
        if (*id != nextWordId()) {
            fail(m_file, number,
                 "word ID " + std::to_string(*id) + " out of order: expected " +
                     std::to_string(nextWordId()));
        }
        Word w;
        w.id = *id;
        w.line = number;
        if (cols[6] != "_") {
            const auto head = parseNumber(cols[6]);
            if (!head) {
                fail(m_file, number,
                     "HEAD " + quoted(cols[6]) + " of word " + std::to_string(w.id) +
                         notANumber(cols[6]));
            }
            if (*head == w.id) {
                fail(m_file, number, "word " + std::to_string(w.id) + " has itself as HEAD");
            }
            w.head = *head;
        }
        w.form = std::string(cols[1]);  // always verbatim: see the header on underscores
        w.lemma = cols[2] == "_" && cols[1] != "_" ? std::string() : std::string(cols[2]);
        w.upos = field(cols[3]);
        w.xpos = field(cols[4]);
        w.feats = field(cols[5]);
        w.deprel = field(cols[7]);
        w.deps = field(cols[8]);
        w.misc = field(cols[9]);
        w.spaceAfter = !hasSpaceAfterNo(w.misc);
        m_sentence.words.push_back(std::move(w));
    }

    void multiword(const Columns& cols, int number) {
        const std::string_view id = cols[0];
        const std::size_t dash = id.find('-');
        const auto first = parseNumber(id.substr(0, dash));
        const auto last = parseNumber(id.substr(dash + 1));
        if (!first || !last) {
            fail(m_file, number, "multiword range " + quoted(id) + " is not of the form 3-4");
        }
        const std::string range = std::string(id);
        if (*first >= *last) {
            fail(
                m_file, number,
                "multiword range " + range + " is malformed: its first word must precede its last");
        }
        if (*first <= m_rangeEnd) {
            fail(m_file, number,
                 "multiword range " + range + " overlaps the previous range, which ends at word " +
                     std::to_string(m_rangeEnd));
        }
        if (*first != nextWordId()) {
            fail(m_file, number,
                 "multiword range " + range + " must start at the next word, " +
                     std::to_string(nextWordId()));
        }
        m_rangeEnd = *last;
        MultiwordToken t;
        t.first = *first;
        t.last = *last;
        t.form = std::string(cols[1]);
        t.spaceAfter = !hasSpaceAfterNo(cols[9]);
        t.line = number;
        m_sentence.multiwords.push_back(std::move(t));
    }

    void emptyNode(std::string_view id, int number) {
        const std::size_t dot = id.find('.');
        const auto major = parseNumber(id.substr(0, dot));
        const auto minor = parseNumber(id.substr(dot + 1));
        if (!major || !minor || *minor == 0) {
            fail(m_file, number, "empty node ID " + quoted(id) + " is not of the form 3.1");
        }
        if (*major != nextWordId() - 1) {
            fail(m_file, number,
                 "empty node " + std::string(id) + " must follow word " + std::to_string(*major) +
                     ", but the last word is " + std::to_string(nextWordId() - 1));
        }
        ++m_sentence.emptyNodes;
    }

    void checkStructure() const {
        const auto n = static_cast<int>(m_sentence.words.size());
        if (n == 0) {
            fail(m_file, m_sentence.line, "sentence has no words");
        }
        for (const MultiwordToken& t : m_sentence.multiwords) {
            if (t.last > n) {
                fail(m_file, t.line,
                     "multiword range " + std::to_string(t.first) + "-" + std::to_string(t.last) +
                         " covers word " + std::to_string(t.last) + ", but the sentence has " +
                         std::to_string(n) + " words");
            }
        }
        const bool tree = m_sentence.words.front().head != kNoHead;
        for (const Word& w : m_sentence.words) {
            if ((w.head != kNoHead) != tree) {
                std::string reason = "HEAD of word ";
                reason.append(std::to_string(w.id))
                    .append(tree ? " is '_' although word 1 has one"
                                 : " is set although word 1 has '_'");
                fail(m_file, w.line, reason);
            }
            if (w.head > n) {
                fail(m_file, w.line,
                     "HEAD " + std::to_string(w.head) + " of word " + std::to_string(w.id) +
                         " out of range [0, " + std::to_string(n) + "]");
            }
        }
    }

    // Follows heads from every word; a walk that meets a word of its own path is a cycle.
    void checkTree() const {
        const std::vector<Word>& words = m_sentence.words;
        if (words.front().head == kNoHead) {
            return;
        }

        enum : std::uint8_t { kUnseen, kOnPath, kRooted };

        std::vector<std::uint8_t> state(words.size() + 1, kUnseen);
        state[0] = kRooted;
        std::vector<int> path;
        for (const Word& start : words) {
            path.clear();
            int j = start.id;
            while (state[static_cast<std::size_t>(j)] == kUnseen) {
                state[static_cast<std::size_t>(j)] = kOnPath;
                path.push_back(j);
                j = words[static_cast<std::size_t>(j - 1)].head;
            }
            if (state[static_cast<std::size_t>(j)] == kOnPath) {
                std::string cycle = std::to_string(j);
                for (int k = words[static_cast<std::size_t>(j - 1)].head; k != j;
                     k = words[static_cast<std::size_t>(k - 1)].head) {
                    cycle.append(" -> ").append(std::to_string(k));
                }
                cycle.append(" -> ").append(std::to_string(j));
                fail(m_file, words[static_cast<std::size_t>(j - 1)].line,
                     "word " + std::to_string(j) + " has no path to the root (HEAD cycle " + cycle +
                         ")");
            }
            for (const int k : path) {
                state[static_cast<std::size_t>(k)] = kRooted;
            }
        }
    }

    const std::string& m_file;
    Sentence m_sentence;
    int m_rangeEnd = 0;  // last word of the latest multiword range
    bool m_sawToken = false;
};

}  // namespace

SurfaceText Sentence::surfaceText() const {
    SurfaceText out;
    const std::size_t n = words.size();
    out.wordSpans.resize(n);
    std::size_t m = 0;  // next multiword token to consider
    std::size_t i = 0;  // index of the next word
    while (i < n) {
        // Hand-built sentences may hold ranges that start before i: skip them, never index
        // past the words.
        while (m < multiwords.size() && multiwords[m].first <= static_cast<int>(i)) {
            ++m;
        }
        const Span span{out.text.size(), 0};
        bool space = true;
        if (m < multiwords.size() && multiwords[m].first == static_cast<int>(i) + 1 &&
            multiwords[m].last > multiwords[m].first) {
            const MultiwordToken& t = multiwords[m++];
            out.text += t.form;
            const std::size_t last = std::min(n, static_cast<std::size_t>(t.last));
            for (; i < last; ++i) {
                out.wordSpans[i] = {span.begin, out.text.size()};
            }
            space = t.spaceAfter;
        } else {
            out.text += words[i].form;
            out.wordSpans[i] = {span.begin, out.text.size()};
            space = words[i].spaceAfter;
            ++i;
        }
        if (space && i < n) {
            out.text += ' ';
        }
    }
    return out;
}

ConlluReader::ConlluReader(const fs::path& path, ConlluOptions options)
    : m_file(path.string()), m_options(std::move(options)), m_in(io::openTextFile(path)) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    m_fileSize = ec ? 0 : static_cast<std::size_t>(size);
    m_options.checkEvery = std::max(1, m_options.checkEvery);
}

std::optional<std::size_t> readBoundedLine(std::istream& in, std::string& line) {
    line.clear();
    std::streambuf* buffer = in.rdbuf();
    std::size_t length = 0;
    for (int c = buffer->sbumpc();; c = buffer->sbumpc()) {
        if (c == std::char_traits<char>::eof()) {
            in.setstate(std::ios::eofbit);
            return length > 0 ? std::optional(length) : std::nullopt;
        }
        if (c == '\n') {
            return length;
        }
        if (length++ < kMaxConlluLineBytes) {
            line.push_back(static_cast<char>(c));
        }
    }
}

bool ConlluReader::readLine() {
    const std::optional<std::size_t> length = readBoundedLine(m_in, m_line);
    if (!length) {
        return false;
    }
    m_lineBytes = *length;
    ++m_lineNumber;
    m_bytesRead += m_lineBytes + 1;
    if (!m_line.empty() && m_line.back() == '\r') {
        m_line.pop_back();
    }
    if (m_lineNumber == 1 && m_line.rfind("\xEF\xBB\xBF", 0) == 0) {
        m_line.erase(0, 3);  // a UTF-8 byte order mark, which some editors write
    }
    if (m_lineNumber % m_options.checkEvery == 0) {
        m_options.cancel.throwIfCancelled();
        reportProgress();
    }
    return true;
}

void ConlluReader::reportProgress() {
    if (m_options.progress && m_fileSize > 0) {
        const std::size_t done = std::min(m_bytesRead, m_fileSize);
        m_options.progress(static_cast<double>(done) / static_cast<double>(m_fileSize));
    }
}

std::optional<Sentence> ConlluReader::next() {
    SentenceBuilder builder(m_file);
    std::string error;  // first problem of the current sentence; its other lines are skipped
    while (true) {
        const bool more = readLine();
        if (!more || m_line.empty()) {
            if (builder.started()) {
                if (error.empty()) {
                    try {
                        return keepDocument(builder.finish());
                    } catch (const FormatError& e) {
                        if (m_options.strict) {
                            throw;
                        }
                        error = e.what();
                    }
                }
                if (auto document = builder.document()) {
                    m_pendingDocument = std::move(document);
                }
                m_warnings.push_back(std::move(error));
                error.clear();
                builder.start(0);  // back to "between sentences"
            }
            if (!more) {
                m_options.cancel.throwIfCancelled();
                reportProgress();
                return std::nullopt;
            }
            continue;
        }
        if (!builder.started()) {
            builder.start(m_lineNumber);
        }
        if (!error.empty()) {
            continue;
        }
        try {
            if (m_lineBytes > kMaxConlluLineBytes) {
                fail(m_file, m_lineNumber,
                     "the line is " + std::to_string(m_lineBytes) + " bytes long, more than the " +
                         std::to_string(kMaxConlluLineBytes) + " a CoNLL-U line may have");
            }
            builder.add(m_line, m_lineNumber);
        } catch (const FormatError& e) {
            if (m_options.strict) {
                throw;
            }
            error = e.what();
        }
    }
}

Sentence ConlluReader::keepDocument(Sentence sentence) {
    if (m_pendingDocument && !sentence.newDocument) {
        sentence.newDocument = true;
        sentence.documentId = std::move(*m_pendingDocument);
    }
    m_pendingDocument.reset();
    return sentence;
}

ConlluResult readConllu(const fs::path& path, const ConlluOptions& options) {
    ConlluReader reader(path, options);
    ConlluResult result;
    while (auto sentence = reader.next()) {
        if (!sentence->text.empty() && sentence->surfaceText().text != sentence->text) {
            ++result.textMismatches;
        }
        result.sentences.push_back(std::move(*sentence));
    }
    result.warnings = reader.warnings();
    result.skipped = static_cast<int>(result.warnings.size());
    return result;
}

void requireSentences(const ConlluResult& result, const std::string& file) {
    if (!result.sentences.empty()) {
        return;
    }
    if (result.warnings.empty()) {
        throw FormatError(file +
                          ": holds no sentences (expected CoNLL-U: one tab-separated line "
                          "per word, sentences separated by blank lines)");
    }
    throw FormatError(file + ": no usable sentence: all " + std::to_string(result.skipped) +
                      " are malformed, e.g. " + result.warnings.front());
}

}  // namespace attnscope::text
