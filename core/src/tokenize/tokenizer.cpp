#include "attnscope/tokenize/tokenizer.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"
#include "attnscope/tokenize/hf_tokenizer.h"
#include "loader_internal.h"
#include "piece_lookup.h"

namespace attnscope::tokenize {
namespace detail {
namespace {

// Where each role's token is usually found, in order of preference.
const std::vector<std::pair<SpecialRole, std::vector<std::string>>>& conventionalNames() {
    static const std::vector<std::pair<SpecialRole, std::vector<std::string>>> kNames = {
        {SpecialRole::Cls, {"[CLS]", "<s>"}},
        {SpecialRole::Sep, {"[SEP]", "</s>"}},
        {SpecialRole::Bos, {"<s>", "<|endoftext|>", "<|begin_of_text|>"}},
        {SpecialRole::Eos, {"</s>", "<|endoftext|>", "<|end_of_text|>"}},
        {SpecialRole::Pad, {"[PAD]", "<pad>"}},
        {SpecialRole::Mask, {"[MASK]", "<mask>"}},
        {SpecialRole::Unk, {"[UNK]", "<unk>"}},
    };
    return kNames;
}

std::string lowerAscii(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// HF's BertTokenizer lower-cases unless told otherwise; a folder named "...-cased" is the usual
// sign that it should not.
bool defaultLowercase(const std::filesystem::path& modelDir) {
    const std::string name = lowerAscii(modelDir.filename().string());
    return name.find("uncased") != std::string::npos || name.find("cased") == std::string::npos;
}

WordPieceFilesOptions wordPieceOptions(const std::filesystem::path& dir, const Json* config,
                                       const JsonAt& at) {
    WordPieceFilesOptions o;
    o.lowercase = defaultLowercase(dir);
    if (config == nullptr) {
        return o;
    }
    o.lowercase = optionalBool(*config, at, "do_lower_case").value_or(o.lowercase);
    o.stripAccents = optionalBool(*config, at, "strip_accents");
    o.handleChineseChars = optionalBool(*config, at, "tokenize_chinese_chars").value_or(true);
    o.unkToken = optionalTokenContent(*config, at, "unk_token").value_or(o.unkToken);
    o.clsToken = optionalTokenContent(*config, at, "cls_token").value_or(o.clsToken);
    o.sepToken = optionalTokenContent(*config, at, "sep_token").value_or(o.sepToken);
    o.padToken = optionalTokenContent(*config, at, "pad_token").value_or(o.padToken);
    o.maskToken = optionalTokenContent(*config, at, "mask_token").value_or(o.maskToken);
    return o;
}

ByteLevelBpeFilesOptions bpeOptions(std::string_view modelType, const Json* config,
                                    const JsonAt& at) {
    ByteLevelBpeFilesOptions o;
    if (modelType == "roberta" || modelType == "bart" || modelType == "longformer") {
        o.style = ByteLevelStyle::Roberta;
    } else if (modelType == "gpt2") {
        o.style = ByteLevelStyle::Gpt2;
    }
    if (config != nullptr) {
        o.addPrefixSpace = optionalBool(*config, at, "add_prefix_space").value_or(false);
        o.trimOffsets = optionalBool(*config, at, "trim_offsets").value_or(true);
    }
    return o;
}

std::string modelTypeOf(const std::filesystem::path& dir, std::string_view modelType) {
    if (!modelType.empty()) {
        return std::string(modelType);
    }
    const auto config = readOptionalJson(dir / "config.json");
    if (!config) {
        return {};
    }
    return optionalString(*config, JsonAt{(dir / "config.json").string()}, "model_type")
        .value_or("");
}

std::optional<TokenizerSpec> vocabFileSpec(const std::filesystem::path& dir,
                                           std::string_view modelType, const Json* config,
                                           const JsonAt& configAt) {
    if (io::pathKind(dir / "vocab.txt").exists()) {
        return specFromWordPieceVocab(dir / "vocab.txt", wordPieceOptions(dir, config, configAt));
    }
    if (io::pathKind(dir / "vocab.json").exists() && io::pathKind(dir / "merges.txt").exists()) {
        return specFromByteLevelBpeFiles(dir / "vocab.json", dir / "merges.txt",
                                         bpeOptions(modelTypeOf(dir, modelType), config, configAt));
    }
    return std::nullopt;
}

}  // namespace

std::optional<Json> readOptionalJson(const std::filesystem::path& file) {
    if (!io::pathKind(file).exists()) {
        return std::nullopt;
    }
    Json json = readJsonFile(file);
    // Every reader indexes it by key; a file holding a number or a list is refused here.
    expectObject(json, JsonAt{file.string()});
    return json;
}

std::int32_t asTokenId(const Json& value, const JsonAt& at) {
    return static_cast<std::int32_t>(asInt(value, at, 0, std::numeric_limits<std::int32_t>::max()));
}

std::optional<std::string> optionalTokenContent(const Json& obj, const JsonAt& at,
                                                std::string_view key) {
    const Json* v = optionalMember(obj, key);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (v->is_object()) {
        return asString(member(*v, at[key], "content"), at[key]["content"]);
    }
    return asString(*v, at[key]);
}

std::optional<std::int32_t> findToken(const TokenizerSpec& spec, std::string_view token) {
    static const Vocab kNoModel;  // a spec without a model yet: its added tokens alone
    const Vocab& pieces = spec.wordPiece       ? spec.wordPiece->vocab()
                          : spec.bpe           ? spec.bpe->vocab()
                          : spec.sentencePiece ? spec.sentencePiece->vocab()
                          : spec.unigram       ? spec.unigram->vocab()
                          : spec.wordLevel     ? spec.wordLevel->vocab()
                                               : kNoModel;
    return idOfToken(pieces, spec.addedTokens, token);
}

void addConventionalRoles(const FindToken& find, const PostProcessorSpec& post,
                          SpecialRoles& roles) {
    if (!post.prefix.empty()) {
        roles.try_emplace(SpecialRole::Cls, post.prefix.front().id);
    }
    if (!post.suffix.empty()) {
        roles.try_emplace(SpecialRole::Sep, post.suffix.back().id);
    }
    for (const auto& [role, names] : conventionalNames()) {
        for (const std::string& name : names) {
            if (const auto id = find(name)) {
                roles.try_emplace(role, *id);
                break;
            }
        }
    }
}

void addConfigRoles(const FindToken& find, const Json& config, const JsonAt& at,
                    SpecialRoles& roles) {
    static const std::vector<std::pair<const char*, SpecialRole>> kKeys = {
        {"cls_token", SpecialRole::Cls}, {"sep_token", SpecialRole::Sep},
        {"bos_token", SpecialRole::Bos}, {"eos_token", SpecialRole::Eos},
        {"pad_token", SpecialRole::Pad}, {"mask_token", SpecialRole::Mask},
        {"unk_token", SpecialRole::Unk},
    };
    for (const auto& [key, role] : kKeys) {
        if (const auto name = optionalTokenContent(config, at, key)) {
            if (const auto id = find(*name)) {
                roles[role] = *id;
            }
        }
    }
}

void setConventionalRoles(TokenizerSpec& spec) {
    addConventionalRoles([&](std::string_view t) { return findToken(spec, t); }, spec.post,
                         spec.roles);
}

void applyConfigRoles(TokenizerSpec& spec, const Json& config, const JsonAt& at) {
    addConfigRoles([&](std::string_view t) { return findToken(spec, t); }, config, at, spec.roles);
}

}  // namespace detail

std::vector<std::int32_t> ids(const std::vector<Token>& tokens) {
    std::vector<std::int32_t> out;
    out.reserve(tokens.size());
    for (const Token& t : tokens) {
        out.push_back(t.id);
    }
    return out;
}

std::unique_ptr<Tokenizer> loadTokenizerJson(const std::filesystem::path& file) {
    return std::make_unique<HfTokenizer>(detail::specFromTokenizerJson(file));
}

std::unique_ptr<Tokenizer> loadWordPieceVocab(const std::filesystem::path& vocabTxt,
                                              const WordPieceFilesOptions& options) {
    return std::make_unique<HfTokenizer>(detail::specFromWordPieceVocab(vocabTxt, options));
}

std::unique_ptr<Tokenizer> loadByteLevelBpeFiles(const std::filesystem::path& vocabJson,
                                                 const std::filesystem::path& mergesTxt,
                                                 const ByteLevelBpeFilesOptions& options) {
    return std::make_unique<HfTokenizer>(
        detail::specFromByteLevelBpeFiles(vocabJson, mergesTxt, options));
}

std::unique_ptr<Tokenizer> loadTokenizerFromVocabFiles(const std::filesystem::path& modelDir,
                                                       std::string_view modelType) {
    return withContext("loading tokenizer", [&]() -> std::unique_ptr<Tokenizer> {
        const auto configFile = modelDir / "tokenizer_config.json";
        const auto config = detail::readOptionalJson(configFile);
        const detail::JsonAt at{configFile.string()};
        auto spec = detail::vocabFileSpec(modelDir, modelType, config ? &*config : nullptr, at);
        if (!spec) {
            return nullptr;
        }
        if (config) {
            detail::applyConfigRoles(*spec, *config, at);
        }
        return std::make_unique<HfTokenizer>(std::move(*spec));
    });
}

std::unique_ptr<Tokenizer> loadSentencePieceTokenizer(const std::filesystem::path& modelDir) {
    const auto modelFile = modelDir / "tokenizer.model";
    if (!io::pathKind(modelFile).exists()) {
        return nullptr;
    }
    return withContext("loading tokenizer", [&]() -> std::unique_ptr<Tokenizer> {
        const auto configFile = modelDir / "tokenizer_config.json";
        const auto config = detail::readOptionalJson(configFile);
        const detail::JsonAt at{configFile.string()};
        TokenizerSpec spec =
            detail::specFromSentencePieceModel(modelFile, config ? &*config : nullptr, at);
        if (config) {
            detail::applyConfigRoles(spec, *config, at);
        }
        return std::make_unique<HfTokenizer>(std::move(spec));
    });
}

std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& modelDir,
                                         std::string_view modelType) {
    const auto jsonFile = modelDir / "tokenizer.json";
    if (!io::pathKind(jsonFile).exists()) {
        if (auto tok = loadTokenizerFromVocabFiles(modelDir, modelType)) {
            return tok;
        }
        if (auto tok = loadSpmConventionTokenizer(modelDir, modelType)) {
            return tok;
        }
        return loadSentencePieceTokenizer(modelDir);
    }
    return withContext("loading tokenizer", [&]() -> std::unique_ptr<Tokenizer> {
        TokenizerSpec spec = detail::specFromTokenizerJson(jsonFile);
        const auto configFile = modelDir / "tokenizer_config.json";
        if (const auto config = detail::readOptionalJson(configFile)) {
            const detail::JsonAt at{configFile.string()};
            detail::applyLlamaSpecialTokens(spec, *config, at);
            detail::applyConfigRoles(spec, *config, at);
        }
        return std::make_unique<HfTokenizer>(std::move(spec));
    });
}

}  // namespace attnscope::tokenize
