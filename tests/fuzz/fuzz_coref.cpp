// Fuzzes the CorefUD reader (issue 16). The input is a treebank file: its sentences (read
// leniently) go through text::readCoref lenient and strict, and every mention through
// text::mentionHead; the whole input is also parsed as one Entity= value, so the item parser
// sees bytes the CoNLL-U reader would have refused.
#include <cstdint>
#include <string>
#include <vector>

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
    return 0;
}
