#include "attnscope/text/sentence_file.h"

#include <fstream>
#include <optional>
#include <sstream>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"
#include "attnscope/text/conllu.h"
#include "attnscope/tokenize/unicode.h"

namespace attnscope::text {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::stringstream in(line);
    std::string field;
    while (std::getline(in, field, sep)) {
        out.push_back(field);
    }
    return out;
}

class ConlluSentences {
public:
    explicit ConlluSentences(std::string file) : m_file(std::move(file)) {}

    void line(const std::string& l, int number) {
        if (l.empty()) {
            flush();
        } else if (l.rfind("# text =", 0) == 0) {
            m_text = l.substr(8);
            m_text.erase(0, m_text.find_first_not_of(' '));
        } else if (l[0] != '#') {
            token(l, number);
        }
    }

    std::vector<std::string> finish() {
        flush();
        return std::move(m_out);
    }

private:
    void token(const std::string& l, int number) {
        const auto cols = split(l, '\t');
        if (cols.size() != 10) {
            throw FormatError(m_file + ":" + std::to_string(number) +
                              ": expected 10 tab-separated "
                              "columns, found " +
                              std::to_string(cols.size()));
        }
        const std::string& id = cols[0];
        if (id.find('.') != std::string::npos) {
            return;  // empty node: not part of the surface text
        }
        const auto dash = id.find('-');
        if (dash != std::string::npos) {
            m_rangeEnd = std::stoi(id.substr(dash + 1));
        } else if (std::stoi(id) <= m_rangeEnd) {
            return;  // a word inside a multiword token: the range line gave its surface form
        }
        m_words += cols[1];
        if (cols[9].find("SpaceAfter=No") == std::string::npos) {
            m_words += ' ';
        }
    }

    void flush() {
        std::string s = m_text.empty() ? m_words : m_text;
        while (!s.empty() && s.back() == ' ') {
            s.pop_back();
        }
        if (!s.empty()) {
            m_out.push_back(s);
        }
        m_text.clear();
        m_words.clear();
        m_rangeEnd = 0;
    }

    std::string m_file;
    std::vector<std::string> m_out;
    std::string m_text;
    std::string m_words;
    int m_rangeEnd = 0;
};

}  // namespace

bool isTreebankPath(const fs::path& path) {
    return path.extension() == ".conllu" || path.extension() == ".conll";
}

std::vector<std::string> readSentences(const fs::path& path) {
    std::ifstream in = io::openTextFile(path);
    const std::string file = path.string();
    const bool conllu = isTreebankPath(path);
    ConlluSentences treebank(file);
    std::vector<std::string> plain;
    std::string l;
    int number = 0;
    // Bounded lines (issue 30): a 5 MB "sentence" would cost gigabytes in the tokenizer later.
    while (const std::optional<std::size_t> length = readBoundedLine(in, l)) {
        ++number;
        if (*length > kMaxConlluLineBytes) {
            throw FormatError(file + ":" + std::to_string(number) + ": the line is " +
                              std::to_string(*length) + " bytes long, more than the " +
                              std::to_string(kMaxConlluLineBytes) +
                              " a sentence line may have (one sentence a line)");
        }
        if (!l.empty() && l.back() == '\r') {
            l.pop_back();
        }
        if (tokenize::findInvalidUtf8(l)) {
            throw FormatError(file + ":" + std::to_string(number) + ": not valid UTF-8");
        }
        if (conllu) {
            try {
                treebank.line(l, number);
            } catch (const std::logic_error&) {  // std::stoi on a non-numeric ID
                throw FormatError(file + ":" + std::to_string(number) +
                                  ": ID column is not a number");
            }
        } else if (l.find_first_not_of(" \t") != std::string::npos) {
            plain.push_back(l);
        }
    }
    return conllu ? treebank.finish() : plain;
}

}  // namespace attnscope::text
