// Fuzzes a Marian model folder's vocab.json (issue 20): every piece's id, read by
// tokenize::loadTokenizer for model_type "marian" and by tokenize::loadTargetTokenizer, beside a
// fixed SentencePiece model as both source.spm and target.spm (tests/fuzz/fixtures/tiny_bpe.model);
// both tokenizers are encoded with as in fuzz_support.h, and tokenize::loadTokenVocabulary reads
// the folder.
#include <cstdint>

#include "attnscope/tokenize/token_vocabulary.h"
#include "attnscope/tokenize/tokenizer.h"
#include "fuzz_support.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = [] {
        const auto d = fuzz::scratchDir("marian_vocab");
        const std::string spm = fuzz::readSourceFile("tests/fuzz/fixtures/tiny_bpe.model");
        fuzz::writeFile(d, "source.spm", spm);
        fuzz::writeFile(d, "target.spm", spm);
        return d;
    }();
    const auto input = fuzz::asText(data, size);
    fuzz::writeFile(dir, "vocab.json", input);
    fuzz::expectErrors([&] {
        const auto tok = tokenize::loadTokenizer(dir, "marian");
        if (tok == nullptr) {
            fuzz::fail("loadTokenizer found no Marian tokenizer");
        }
        fuzz::exerciseTokenizer(*tok, input);
    });
    fuzz::expectErrors([&] {
        const auto target = tokenize::loadTargetTokenizer(dir, "marian");
        if (target == nullptr) {
            fuzz::fail("loadTargetTokenizer found no Marian target side");
        }
        fuzz::exerciseTokenizer(*target, input);
    });
    fuzz::exerciseVocabulary(dir, "vocab.json");
    return 0;
}
