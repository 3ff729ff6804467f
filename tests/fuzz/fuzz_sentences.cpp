// Fuzzes the sentence-list reader text::readSentences, with the input saved both as a .txt file
// (one sentence per line) and as a .conllu file (the `# text` comments, else the forms joined).
#include <cstdint>

#include "attnscope/text/sentence_file.h"
#include "fuzz_support.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("sentences");
    const auto input = fuzz::asText(data, size);
    for (const char* name : {"sentences.txt", "sentences.conllu"}) {
        const auto path = fuzz::writeFile(dir, name, input);
        fuzz::expectErrors([&] {
            for (const std::string& sentence : text::readSentences(path)) {
                if (sentence.empty()) {
                    fuzz::fail(std::string(name) + ": an empty sentence was returned");
                }
            }
        });
    }
    return 0;
}
