// Reads the tokenizer.ggml.* keys of a GGUF file into a tokenize::GgufVocab.
#include "gguf_tokenizer.h"

#include <cmath>
#include <limits>

#include "attnscope/base/error.h"

namespace attnscope::model {
namespace {

std::string stringOr(const io::GgufFile& file, std::string_view key) {
    return std::string(file.stringAt(key).value_or(""));
}

std::vector<std::string> strings(const io::GgufFile& file, std::string_view key) {
    const std::vector<std::string_view> views = file.stringArray(key);
    return {views.begin(), views.end()};
}

// llama.cpp keeps scores as float; the file holds f32 (or i32), so nothing is lost.
std::vector<float> scores(const io::GgufFile& file) {
    const std::vector<double> values = file.numberArray("tokenizer.ggml.scores");
    std::vector<float> out;
    out.reserve(values.size());
    for (const double v : values) {
        out.push_back(static_cast<float>(v));
    }
    return out;
}

std::vector<std::int32_t> tokenTypes(const io::GgufFile& file) {
    constexpr std::string_view kKey = "tokenizer.ggml.token_type";
    const std::vector<double> values = file.numberArray(kKey);
    std::vector<std::int32_t> out;
    out.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        if (std::trunc(v) != v || v < std::numeric_limits<std::int32_t>::min() ||
            v > std::numeric_limits<std::int32_t>::max()) {
            throw FormatError(file.where(kKey) + ": entry " + std::to_string(i) +
                              ": expected an integer token type, found " + std::to_string(v));
        }
        out.push_back(static_cast<std::int32_t>(v));
    }
    return out;
}

}  // namespace

tokenize::GgufVocab readGgufVocab(const io::GgufFile& file) {
    tokenize::GgufVocab v;
    v.source = file.path().string();
    v.modelName = stringOr(file, "general.name");
    v.model = stringOr(file, "tokenizer.ggml.model");
    v.pre = stringOr(file, "tokenizer.ggml.pre");
    v.tokens = strings(file, "tokenizer.ggml.tokens");
    v.scores = scores(file);
    v.tokenTypes = tokenTypes(file);
    v.merges = strings(file, "tokenizer.ggml.merges");
    v.bosId = file.unsignedAt("tokenizer.ggml.bos_token_id");
    v.eosId = file.unsignedAt("tokenizer.ggml.eos_token_id");
    v.unkId = file.unsignedAt("tokenizer.ggml.unknown_token_id");
    v.padId = file.unsignedAt("tokenizer.ggml.padding_token_id");
    v.sepId = file.unsignedAt("tokenizer.ggml.seperator_token_id");  // sic, as gguf-py spells it
    v.maskId = file.unsignedAt("tokenizer.ggml.mask_token_id");
    v.addBos = file.boolAt("tokenizer.ggml.add_bos_token");
    v.addEos = file.boolAt("tokenizer.ggml.add_eos_token");
    v.addSpacePrefix = file.boolAt("tokenizer.ggml.add_space_prefix");
    v.lowercase = file.boolAt("tokenizer.ggml.normalizer.lowercase");
    v.stripAccents = file.boolAt("tokenizer.ggml.normalizer.strip_accents");
    return v;
}

std::unique_ptr<tokenize::Tokenizer> loadGgufTokenizer(const io::GgufFile& file) {
    return tokenize::loadGgufTokenizer(readGgufVocab(file));
}

}  // namespace attnscope::model
