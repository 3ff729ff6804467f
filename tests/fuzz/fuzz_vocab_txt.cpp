// Fuzzes BERT's vocab.txt (one WordPiece piece per line): tokenize::loadWordPieceVocab with
// options chosen by the input's length (lower-casing, accent stripping, Chinese characters),
// encoding as in fuzz_support.h, and tokenize::loadTokenVocabulary on a folder holding only
// that vocab.txt.
#include <cstdint>

#include "attnscope/tokenize/token_vocabulary.h"
#include "attnscope/tokenize/tokenizer.h"
#include "fuzz_support.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("vocab_txt");
    const auto input = fuzz::asText(data, size);
    const auto path = fuzz::writeFile(dir, "vocab.txt", input);
    tokenize::WordPieceFilesOptions options;
    options.lowercase = size % 2 == 0;
    if (size % 3 != 0) {
        options.stripAccents = size % 3 == 1;
    }
    options.handleChineseChars = size % 5 != 0;
    fuzz::expectErrors([&] {
        const auto tok = tokenize::loadWordPieceVocab(path, options);
        fuzz::exerciseTokenizer(*tok, input);
    });
    fuzz::exerciseVocabulary(dir, "vocab.txt");
    return 0;
}
