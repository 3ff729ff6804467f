// Fuzzes tokenizer.json and the pipeline it describes. The input is the file: it is loaded with
// tokenize::loadTokenizerJson (normalizers, pre-tokenizers, WordPiece / BPE model, added tokens,
// post-processor), and the tokenizer then encodes fixed texts, text cut from the input and its
// own first pieces (fuzz_support.h). The same folder is read by tokenize::loadTokenVocabulary,
// which reads pieces and special tokens of any model type without building the pipeline.
#include <cstdint>

#include "attnscope/tokenize/token_vocabulary.h"
#include "attnscope/tokenize/tokenizer.h"
#include "fuzz_support.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("tokenizer_json");
    const auto input = fuzz::asText(data, size);
    const auto path = fuzz::writeFile(dir, "tokenizer.json", input);
    fuzz::expectErrors([&] {
        const auto tok = tokenize::loadTokenizerJson(path);
        fuzz::exerciseTokenizer(*tok, input);
    });
    fuzz::exerciseVocabulary(dir, "tokenizer.json");
    return 0;
}
