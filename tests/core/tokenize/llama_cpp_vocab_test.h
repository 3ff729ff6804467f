// llama.cpp's vocabulary tests (its tests/test-tokenizer-0 with models/ggml-vocab-<name>.gguf and
// the .gguf.inp/.gguf.out beside it), run on AttnScope's GGUF tokenizer. Shared by
// gguf_tokenizer_test.cpp (files in ../shared) and gguf_bundled_vocab_test.cpp (files from the
// llama.cpp peer's source bundle).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/test_files.h"
#include "attnscope/io/gguf.h"
#include "attnscope/tokenize/tokenizer.h"
#include "model/gguf/gguf_tokenizer.h"

namespace attnscope::tokenize {

// llama.cpp's tests/test-tokenizer-0: strings separated by "\n__ggml_vocab_test__\n" (the file
// ends with one), ids a line each, tokenized without BOS/EOS (add_special false). It also runs
// with parse_special false; no string holds the text of a control or user-defined token, so it
// makes no difference here.
struct VocabTest {
    std::vector<std::string> texts;
    std::vector<std::vector<std::int32_t>> ids;
};

// `base` + ".inp" and `base` + ".out", e.g. base = .../ggml-vocab-qwen2.gguf.
inline VocabTest readVocabTest(const std::filesystem::path& base) {
    const std::string inp = testing::readFile(base.string() + ".inp");
    const std::string sep = "\n__ggml_vocab_test__\n";
    VocabTest t;
    for (std::size_t pos = 0; pos < inp.size();) {
        const std::size_t next = inp.find(sep, pos);
        if (next == std::string::npos) {
            t.texts.push_back(inp.substr(pos));
            break;
        }
        t.texts.push_back(inp.substr(pos, next - pos));
        pos = next + sep.size();
    }
    std::ifstream out(base.string() + ".out");
    for (std::string line; std::getline(out, line);) {
        std::istringstream numbers(line);
        std::vector<std::int32_t> ids;
        for (std::int32_t id = 0; numbers >> id;) {
            ids.push_back(id);
        }
        t.ids.push_back(std::move(ids));
    }
    return t;
}

inline std::string showIds(const std::vector<std::int32_t>& ids) {
    std::string s;
    for (const std::int32_t id : ids) {
        if (!s.empty()) {
            s += ' ';
        }
        s += std::to_string(id);
    }
    return s;
}

// Every string of `texts`.inp tokenized with the tokenizer of `gguf` gives the ids of
// `texts`.out; prints how many matched under `name`.
inline void expectLlamaCppIds(const std::filesystem::path& gguf, const std::filesystem::path& texts,
                              const std::string& name) {
    const io::GgufFile file(gguf);
    const auto tokenizer = model::loadGgufTokenizer(file);
    const VocabTest test = readVocabTest(texts);
    ASSERT_EQ(test.texts.size(), test.ids.size()) << texts;
    ASSERT_GT(test.texts.size(), 40u);
    std::size_t matched = 0;
    for (std::size_t i = 0; i < test.texts.size(); ++i) {
        const std::vector<std::int32_t> got = ids(tokenizer->encode(test.texts[i], false));
        matched += got == test.ids[i] ? 1 : 0;
        EXPECT_EQ(showIds(got), showIds(test.ids[i]))
            << "string " << i << ": \"" << test.texts[i] << "\"";
    }
    std::cout << "[ gguf     ] " << name << ": " << matched << "/" << test.texts.size()
              << " strings match llama.cpp\n";
}

}  // namespace attnscope::tokenize
