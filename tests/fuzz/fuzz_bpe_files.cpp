// Fuzzes GPT-2 / RoBERTa's vocab.json + merges.txt. The input is both files: vocab.json, then a
// line "#merges.txt", then merges.txt (without that line the whole input is vocab.json and
// merges.txt holds only its version line). tokenize::loadByteLevelBpeFiles loads them with a
// style and add_prefix_space chosen by the input's length and encodes as in fuzz_support.h;
// tokenize::loadTokenVocabulary reads the same folder.
#include <cstdint>
#include <string_view>

#include "attnscope/tokenize/token_vocabulary.h"
#include "attnscope/tokenize/tokenizer.h"
#include "fuzz_support.h"

using namespace attnscope;

namespace {

constexpr std::string_view kSeparator = "\n#merges.txt\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("bpe_files");
    const auto input = fuzz::asText(data, size);
    const auto cut = input.find(kSeparator);
    const auto vocabJson = fuzz::writeFile(dir, "vocab.json", input.substr(0, cut));
    const auto mergesTxt =
        fuzz::writeFile(dir, "merges.txt",
                        cut == std::string_view::npos ? std::string_view("#version: 0.2\n")
                                                      : input.substr(cut + kSeparator.size()));
    tokenize::ByteLevelBpeFilesOptions options;
    options.style = static_cast<tokenize::ByteLevelStyle>(size % 3);
    options.addPrefixSpace = (size / 3) % 2 == 1;
    options.trimOffsets = (size / 6) % 2 == 0;
    fuzz::expectErrors([&] {
        const auto tok = tokenize::loadByteLevelBpeFiles(vocabJson, mergesTxt, options);
        fuzz::exerciseTokenizer(*tok, input);
    });
    fuzz::exerciseVocabulary(dir, "vocab.json");
    return 0;
}
