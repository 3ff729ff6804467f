// Fuzzes the CorefUD reader (issue 16). The input is a treebank file: its sentences (read
// leniently) go through text::readCoref lenient and strict, and every mention through
// text::mentionHead; the whole input is also parsed as one Entity= value, so the item parser
// sees bytes the CoNLL-U reader would have refused. Then the scoring rules that need no model
// (windows by a stand-in token count, window texts, scored mentions with their baselines, which
// case-fold whatever bytes the lemmas and forms hold, and the gold arcs) run on the corpus.
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/analysis/coref_scoring.h"
#include "attnscope/text/coref.h"
#include "fuzz_support.h"

using namespace attnscope;

namespace {

void check(const text::CorefResult& r, const std::vector<text::Sentence>& sentences) {
    if (r.warnings.size() != static_cast<std::size_t>(r.malformedSentences)) {
        fuzz::fail(std::to_string(r.malformedSentences) + " malformed sentences but " +
                   std::to_string(r.warnings.size()) + " warnings");
    }
    // Documents tile the sentences in order.
    int next = 0;
    for (const text::CorefDocument& d : r.documents) {
        if (d.firstSentence != next || d.endSentence <= d.firstSentence) {
            fuzz::fail("document [" + std::to_string(d.firstSentence) + ", " +
                       std::to_string(d.endSentence) + ") after sentence " + std::to_string(next));
        }
        next = d.endSentence;
    }
    if (next != static_cast<int>(sentences.size())) {
        fuzz::fail("documents end at " + std::to_string(next));
    }
    for (const text::Mention& m : r.mentions) {
        if (m.entity < 0 || m.entity >= static_cast<int>(r.entityIds.size()) || m.document < 0 ||
            m.document >= static_cast<int>(r.documents.size())) {
            fuzz::fail("mention with entity " + std::to_string(m.entity) + ", document " +
                       std::to_string(m.document));
        }
        const text::Sentence& s = sentences.at(static_cast<std::size_t>(m.sentence));
        int head = 0;
        try {
            head = text::mentionHead(s, m);
        } catch (const Error& e) {  // the reader made a span outside its sentence
            fuzz::fail(std::string("mentionHead: ") + e.what());
        }
        if (head < m.first || head > m.last) {
            fuzz::fail("head " + std::to_string(head) + " outside mention " +
                       std::to_string(m.first) + ".." + std::to_string(m.last));
        }
    }
}

// R4, R5 and R8 on a corpus, with about one token per three bytes and a 64-token limit.
void checkScoring(const std::string& path) {
    const analysis::CorefCorpus corpus = analysis::CorefCorpus::read(path);
    const auto windows = analysis::makeWindows(
        corpus, [](std::string_view text) { return text.size() / 3 + 2; }, 64);
    for (const analysis::CorefWindow& w : windows.windows) {
        const analysis::WindowText text = analysis::windowText(corpus, w);
        const auto words = static_cast<int>(text.forms.size());
        for (const analysis::ScoredMention& m : analysis::scoredMentions(corpus, w)) {
            if (m.headWord < 0 || m.headWord >= words || m.antecedentWords.empty()) {
                fuzz::fail("scored mention with head word " + std::to_string(m.headWord) + " of " +
                           std::to_string(words));
            }
            for (const int a : m.antecedentWords) {
                if (a < 0 || a >= words || a == m.headWord) {
                    fuzz::fail("antecedent word " + std::to_string(a));
                }
            }
        }
        for (const analysis::CorefArc& arc : analysis::corefArcs(corpus, w)) {
            if (arc.from < 0 || arc.from >= words || arc.to < 0 || arc.to >= words) {
                fuzz::fail("arc " + std::to_string(arc.from) + " -> " + std::to_string(arc.to));
            }
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("coref");
    const std::string input(fuzz::asText(data, size));
    fuzz::expectErrors([&] { (void)text::parseEntityValue(input, "value: "); });
    const auto path = fuzz::writeFile(dir, "treebank.conllu", input);
    fuzz::expectErrors([&] {
        const text::ConlluResult conllu = text::readConllu(path);
        check(text::readCoref(conllu.sentences, "treebank.conllu"), conllu.sentences);
        text::CorefOptions strict;
        strict.strict = true;
        fuzz::expectErrors([&] {
            check(text::readCoref(conllu.sentences, "treebank.conllu", strict), conllu.sentences);
        });
    });
    fuzz::expectErrors([&] { checkScoring(path.string()); });
    return 0;
}
