// Fuzzes tokenizer_config.json, which configures the tokenizer of a model folder (do_lower_case,
// strip_accents, add_prefix_space, trim_offsets, add_bos_token / add_eos_token, legacy, the
// special tokens, added_tokens_decoder). The first input byte picks the folder's fixed tokenizer
// files and the model_type passed in; the rest is tokenizer_config.json. Drives
// tokenize::loadTokenizer (then encodes as in fuzz_support.h) and tokenize::loadTokenVocabulary.
//
//   byte % 6: 0 vocab.txt (WordPiece)          1 vocab.json + merges.txt, config.json "roberta"
//             2 tokenizer.json (WordPiece)     3 tokenizer.json (Llama 2, byte fallback)
//             4 tokenizer.model (SentencePiece) 5 tokenizer.json (RoBERTa byte-level BPE)
//   byte / 6 % 5: model_type "", "bert", "roberta", "gpt2", "llama"
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/tokenize/token_vocabulary.h"
#include "attnscope/tokenize/tokenizer.h"
#include "fuzz_support.h"

using namespace attnscope;

namespace {

namespace fs = std::filesystem;

// Each base is a folder with its fixed files: {file name in the folder, file in the source tree}.
std::vector<fs::path> makeBases() {
    using Files = std::vector<std::pair<std::string, std::string>>;
    const std::array<Files, 6> kBases = {{
        {{"vocab.txt", "tests/data/tokenize/tiny_bert/vocab.txt"}},
        {{"vocab.json", "tests/data/tokenize/tiny_bytelevel/vocab.json"},
         {"merges.txt", "tests/data/tokenize/tiny_bytelevel/merges.txt"}},
        {{"tokenizer.json", "tests/data/tokenize/tiny_bert/tokenizer.json"}},
        {{"tokenizer.json", "tests/fuzz/fixtures/llama2_tokenizer.json"}},
        {{"tokenizer.model", "tests/fuzz/fixtures/tiny_bpe.model"}},
        {{"tokenizer.json", "tests/data/tokenize/tiny_bytelevel/roberta_tokenizer.json"}},
    }};
    std::vector<fs::path> dirs;
    for (std::size_t i = 0; i < kBases.size(); ++i) {
        const auto dir = fuzz::scratchDir("tokenizer_config/base" + std::to_string(i));
        for (const auto& [name, source] : kBases[i]) {
            fuzz::writeFile(dir, name, fuzz::readSourceFile(source));
        }
        dirs.push_back(dir);
    }
    fuzz::writeFile(dirs[1], "config.json", R"({"model_type": "roberta"})");
    return dirs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::vector<fs::path> bases = makeBases();
    static const std::array<const char*, 5> kModelTypes = {"", "bert", "roberta", "gpt2", "llama"};
    if (size == 0) {
        return 0;
    }
    const fs::path& dir = bases[data[0] % bases.size()];
    const std::string modelType = kModelTypes[data[0] / bases.size() % kModelTypes.size()];
    const auto config = fuzz::asText(data + 1, size - 1);
    fuzz::writeFile(dir, "tokenizer_config.json", config);
    fuzz::expectErrors([&] {
        const auto tok = tokenize::loadTokenizer(dir, modelType);
        if (tok == nullptr) {
            fuzz::fail("loadTokenizer found no tokenizer in " + dir.string());
        }
        fuzz::exerciseTokenizer(*tok, config);
    });
    fuzz::exerciseVocabulary(dir, "anything in " + dir.string());
    return 0;
}
