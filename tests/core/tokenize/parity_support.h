// What the two parity tests (tokenizer_parity_test.cpp, spm_parity_test.cpp) share: how a case
// loads its tokenizer, reading a reference .jsonl file, counting the UD sentences it must cover,
// printing id lists and checking the tokens' spans against the reference's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attnscope/tokenize/tokenizer.h"
#include "attnscope/tokenize/unicode.h"

namespace attnscope::tokenize {

// The number of "# text = " lines in the treebanks, counted here independently of the scripts.
inline std::size_t countUdSentences(const std::filesystem::path& udDir) {
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(udDir)) {
        if (entry.path().extension() != ".conllu") {
            continue;
        }
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            n += line.starts_with("# text = ") ? 1 : 0;
        }
    }
    return n;
}

// "1 2 3": ids separated by spaces.
inline std::string joinIds(const std::vector<std::int32_t>& v) {
    std::ostringstream out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        out << (i ? " " : "") << v[i];
    }
    return out.str();
}

constexpr std::size_t kMaxReported = 10;  // failures printed in full per vocabulary

// How a parity case gets its tokenizer, given the folder of the shared tokenizers.
using TokenizerLoader =
    std::function<std::unique_ptr<Tokenizer>(const std::filesystem::path& tokenizers)>;

// A loader of tokenizer.h (loadTokenizer, loadTokenizerFromVocabFiles, ...): folder, model type.
using LoadFn = std::unique_ptr<Tokenizer> (*)(const std::filesystem::path&, std::string_view);

// `load` on the shared tokenizer folder `folder`, as model type `modelType`.
inline TokenizerLoader fromShared(std::string folder, std::string modelType,
                                  LoadFn load = loadTokenizer) {
    return [=](const std::filesystem::path& tokenizers) {
        return load(tokenizers / folder, modelType);
    };
}

// `load` on `dir`, a folder outside the shared data (the build tree's generated tokenizers).
inline TokenizerLoader fromFolder(std::filesystem::path dir, std::string modelType,
                                  LoadFn load = loadTokenizer) {
    return [=](const std::filesystem::path&) { return load(dir, modelType); };
}

// Calls each(line) for every non-empty line of a .jsonl file, parsed.
template <typename Each>
void forEachJsonLine(const std::filesystem::path& file, Each each) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty()) {
            each(nlohmann::json::parse(line));
        }
    }
}

// The first token whose code point span differs from offsets[i] ([begin, end]) or whose byte
// span is not the same span as its code point one; nullopt when every token agrees.
inline std::optional<std::size_t> firstSpanMismatch(const std::vector<Token>& tokens,
                                                    const std::string& text,
                                                    const nlohmann::json& offsets) {
    const DecodedText decoded = decodeUtf8(text, "reference sentence");
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const Token& t = tokens[i];
        const auto span = offsets.at(i).get<std::vector<std::size_t>>();
        const bool consistent = t.charEnd <= decoded.chars.size() &&
                                t.byteBegin == decoded.byteOffsets[t.charBegin] &&
                                t.byteEnd == decoded.byteOffsets[t.charEnd];
        if (t.charBegin != span.at(0) || t.charEnd != span.at(1) || !consistent) {
            return i;
        }
    }
    return std::nullopt;
}

// Counts a sentence one of whose tokens does not span the reference's `offsets` in
// `mismatches`, printing the first kMaxReported in full (with the token's byte span when
// `withBytes`).
inline void checkSpans(const std::vector<Token>& tokens, const std::string& text,
                       const nlohmann::json& offsets, const std::string& source, bool withBytes,
                       std::size_t& mismatches) {
    const auto i = firstSpanMismatch(tokens, text, offsets);
    if (!i || ++mismatches > kMaxReported) {
        return;
    }
    const Token& t = tokens[*i];
    const auto span = offsets.at(*i).get<std::vector<std::size_t>>();
    std::ostringstream bytes;
    if (withBytes) {
        bytes << " bytes [" << t.byteBegin << ", " << t.byteEnd << "), reference chars [";
    } else {
        bytes << ", reference [";
    }
    ADD_FAILURE() << source << ": token " << *i << " (" << t.text << ") spans chars ["
                  << t.charBegin << ", " << t.charEnd << ")" << bytes.str() << span.at(0) << ", "
                  << span.at(1) << ")\n  sentence: " << text;
}

}  // namespace attnscope::tokenize
