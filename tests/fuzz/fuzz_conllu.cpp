// Fuzzes the CoNLL-U reader. The input is a treebank file, read by text::readConllu in lenient
// mode (bad sentences skipped with warnings; every kept sentence's surfaceText() is built and its
// word spans checked against the text), in strict mode (the first bad sentence throws), and
// streamed by text::ConlluReader with cancel checks and progress reports on every line.
#include <cstdint>

#include "attnscope/text/conllu.h"
#include "fuzz_support.h"

using namespace attnscope;

namespace {

void checkSentence(const text::Sentence& s) {
    const text::SurfaceText surface = s.surfaceText();
    if (surface.wordSpans.size() != s.words.size()) {
        fuzz::fail("line " + std::to_string(s.line) + ": " +
                   std::to_string(surface.wordSpans.size()) + " spans for " +
                   std::to_string(s.words.size()) + " words");
    }
    for (const text::Span& span : surface.wordSpans) {
        if (span.begin > span.end || span.end > surface.text.size()) {
            fuzz::fail("line " + std::to_string(s.line) + ": span [" + std::to_string(span.begin) +
                       ", " + std::to_string(span.end) + ") outside a text of " +
                       std::to_string(surface.text.size()) + " bytes");
        }
    }
    (void)s.hasTree();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("conllu");
    const auto path = fuzz::writeFile(dir, "treebank.conllu", fuzz::asText(data, size));
    fuzz::expectErrors([&] {
        const text::ConlluResult result = text::readConllu(path);
        if (result.warnings.size() != static_cast<std::size_t>(result.skipped)) {
            fuzz::fail(std::to_string(result.skipped) + " skipped sentences but " +
                       std::to_string(result.warnings.size()) + " warnings");
        }
        for (const text::Sentence& s : result.sentences) {
            checkSentence(s);
        }
    });
    fuzz::expectErrors([&] {
        text::ConlluOptions strict;
        strict.strict = true;
        (void)text::readConllu(path, strict);
    });
    fuzz::expectErrors([&] {
        text::ConlluOptions options;
        options.checkEvery = 1;
        options.progress = [](double fraction) {
            if (!(fraction >= 0.0 && fraction <= 1.0)) {
                fuzz::fail("progress " + std::to_string(fraction) + " outside [0, 1]");
            }
        };
        text::ConlluReader reader(path, options);
        while (const auto sentence = reader.next()) {
            checkSentence(*sentence);
        }
        (void)reader.linesRead();
    });
    return 0;
}
