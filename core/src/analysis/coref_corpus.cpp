// Reading a CorefUD treebank for scoring, and cutting its documents into windows (R4).
#include <algorithm>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/base/enum_names.h"
#include "attnscope/base/error.h"

namespace attnscope::analysis {

std::string_view mentionGroupName(MentionGroup g) {
    static constexpr EnumName<MentionGroup> kNames[] = {{MentionGroup::All, "all"},
                                                        {MentionGroup::Pronoun, "pronoun"},
                                                        {MentionGroup::Proper, "proper"},
                                                        {MentionGroup::Nominal, "nominal"}};
    return nameIn(kNames, g, "all");
}

std::string_view corefBaselineName(CorefBaseline b) {
    static constexpr EnumName<CorefBaseline> kNames[] = {{CorefBaseline::Nearest, "nearest"},
                                                         {CorefBaseline::HeadMatch, "head_match"},
                                                         {CorefBaseline::Sieve, "sieve"}};
    return nameIn(kNames, b, "nearest");
}

CorefCorpus CorefCorpus::read(const std::string& path, const text::CorefOptions& options) {
    text::ConlluOptions reading;
    reading.strict = options.strict;
    text::ConlluResult conllu = text::readConllu(path, reading);
    text::requireSentences(conllu, path);
    CorefCorpus corpus;
    corpus.path = path;
    corpus.sentences = std::move(conllu.sentences);
    corpus.conlluWarnings = std::move(conllu.warnings);
    corpus.coref = text::readCoref(corpus.sentences, path, options);
    corpus.gold.reserve(corpus.sentences.size());
    corpus.texts.resize(corpus.sentences.size());
    for (std::size_t i = 0; i < corpus.sentences.size(); ++i) {
        corpus.gold.push_back(goldSentence(corpus.sentences[i], &corpus.texts[i]));
    }
    corpus.mentionHeads.reserve(corpus.coref.mentions.size());
    for (const text::Mention& m : corpus.coref.mentions) {
        corpus.mentionHeads.push_back(
            text::mentionHead(corpus.sentences[static_cast<std::size_t>(m.sentence)], m));
    }
    return corpus;
}

namespace {

// R4 for one document. Tokenizing every candidate prefix would cost k² sentences per window of
// k sentences; instead the per-sentence counts (special tokens removed) guess where the window
// ends, and the joined texts' real counts move the guess until [first, end) fits and
// [first, end + 1) does not. That equals the rule's sentence-by-sentence growth because
// appending a sentence never lowers a text's token count.
class WindowCutter {
public:
    WindowCutter(const CorefCorpus& corpus,
                 const std::function<std::size_t(std::string_view)>& tokenCount, std::size_t limit)
        : m_corpus(corpus),
          m_tokenCount(tokenCount),
          m_limit(limit),
          m_specials(tokenCount(std::string_view())) {}

    void cut(int document, int first, int end, CorefWindows& out) {
        std::vector<std::size_t> alone(static_cast<std::size_t>(end - first));
        for (int s = first; s < end; ++s) {
            alone[static_cast<std::size_t>(s - first)] = m_tokenCount(text(s));
        }
        int a = first;
        while (a < end) {
            if (alone[static_cast<std::size_t>(a - first)] > m_limit) {
                ++out.sentencesSkipped;
                ++a;
                continue;
            }
            int b = guess(alone, first, a, end);
            if (fits(a, b)) {
                while (b < end && fits(a, b + 1)) {
                    ++b;
                }
            } else {
                do {
                    --b;
                } while (b > a + 1 && !fits(a, b));
            }
            out.windows.push_back({document, a, b});
            a = b;
        }
    }

private:
    std::string_view text(int s) const { return m_corpus.texts[static_cast<std::size_t>(s)]; }

    // The last end whose summed per-sentence counts fit, at least a + 1.
    int guess(const std::vector<std::size_t>& alone, int first, int a, int end) const {
        std::size_t total = alone[static_cast<std::size_t>(a - first)];
        int b = a + 1;
        while (b < end) {
            const std::size_t next = alone[static_cast<std::size_t>(b - first)];
            const std::size_t words = next > m_specials ? next - m_specials : 0;
            if (total + words > m_limit) {
                break;
            }
            total += words;
            ++b;
        }
        return b;
    }

    bool fits(int a, int b) {
        m_joined.assign(text(a));
        for (int s = a + 1; s < b; ++s) {
            m_joined.push_back(' ');
            m_joined.append(text(s));
        }
        return m_tokenCount(m_joined) <= m_limit;
    }

    const CorefCorpus& m_corpus;
    const std::function<std::size_t(std::string_view)>& m_tokenCount;
    std::size_t m_limit;
    std::size_t m_specials;  // tokens of the empty text: those every text gets
    std::string m_joined;
};

}  // namespace

CorefWindows makeWindows(const CorefCorpus& corpus,
                         const std::function<std::size_t(std::string_view)>& tokenCount,
                         std::size_t limit) {
    CorefWindows out;
    if (corpus.coref.documents.empty()) {
        return out;
    }
    WindowCutter cutter(corpus, tokenCount, limit);
    for (std::size_t d = 0; d < corpus.coref.documents.size(); ++d) {
        const text::CorefDocument& doc = corpus.coref.documents[d];
        cutter.cut(static_cast<int>(d), doc.firstSentence, doc.endSentence, out);
    }
    return out;
}

WindowText windowText(const CorefCorpus& corpus, const CorefWindow& window) {
    if (window.firstSentence < 0 || window.endSentence < window.firstSentence ||
        static_cast<std::size_t>(window.endSentence) > corpus.sentences.size()) {
        throw InvalidArgument("coreference window: sentences " +
                              std::to_string(window.firstSentence) + ".." +
                              std::to_string(window.endSentence) + " outside a corpus of " +
                              std::to_string(corpus.sentences.size()));
    }
    WindowText out;
    for (int s = window.firstSentence; s < window.endSentence; ++s) {
        const auto i = static_cast<std::size_t>(s);
        const GoldSentence& gold = corpus.gold[i];
        if (s > window.firstSentence) {
            out.text.push_back(' ');
        }
        const std::size_t base = out.text.size();
        out.text.append(corpus.texts[i]);
        out.firstWord.push_back(static_cast<int>(out.forms.size()));
        const std::vector<ByteSpan>& own = gold.ownSpans.empty() ? gold.wordSpans : gold.ownSpans;
        for (std::size_t w = 0; w < gold.words.size(); ++w) {
            out.wordSpans.push_back({gold.wordSpans[w].begin + base, gold.wordSpans[w].end + base});
            out.ownSpans.push_back({own[w].begin + base, own[w].end + base});
            out.forms.push_back(gold.words[w]);
        }
    }
    return out;
}

}  // namespace attnscope::analysis
