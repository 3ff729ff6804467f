// Fuzzes a SentencePiece tokenizer.model (a protobuf parsed by libsentencepiece, then read into
// AttnScope's vocabulary and special pieces). The input is the file, in a folder of its own:
// tokenize::loadSentencePieceTokenizer loads it and encodes as in fuzz_support.h, and
// tokenize::loadTokenVocabulary reads its pieces alone.
#include <cstdint>

#include "attnscope/tokenize/token_vocabulary.h"
#include "attnscope/tokenize/tokenizer.h"
#include "fuzz_support.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("sentencepiece");
    const auto input = fuzz::asText(data, size);
    fuzz::writeFile(dir, "tokenizer.model", input);
    fuzz::expectErrors([&] {
        const auto tok = tokenize::loadSentencePieceTokenizer(dir);
        if (tok == nullptr) {
            fuzz::fail("loadSentencePieceTokenizer found no tokenizer.model");
        }
        fuzz::exerciseTokenizer(*tok, input);
    });
    fuzz::exerciseVocabulary(dir, "tokenizer.model");
    return 0;
}
