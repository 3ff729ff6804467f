// Tokenizers from a SentencePiece tokenizer.model (Llama 2, Mistral, TinyLlama without a
// tokenizer.json), set up as transformers' LlamaTokenizerFast would convert it: the model itself
// runs in libsentencepiece, the text around it is prepared as the converted tokenizer.json
// prepares it (LlamaConverter in transformers' convert_slow_tokenizer.py):
//   legacy (the default):  normalizers Prepend("▁") (unless add_prefix_space is false) and
//                          Replace(" ", "▁"); no pre-tokenizer;
//   legacy: false:         Metaspace("▁", prepend_scheme first (never without
//                          add_prefix_space), split false); no normalizer.
// Special tokens: <s> before the text unless add_bos_token is false, </s> after it if
// add_eos_token; <unk>, <s>, </s> and tokenizer_config.json's added_tokens_decoder are matched
// in the text as added tokens, normalized or not as the config says (strings: not normalized).
#include "attnscope/base/error.h"
#include "loader_internal.h"

namespace attnscope::tokenize::detail {
namespace {

constexpr char32_t kMetaspace = U'\u2581';

bool configBool(const Json* config, const JsonAt& at, std::string_view key, bool fallback) {
    return config != nullptr ? optionalBool(*config, at, key).value_or(fallback) : fallback;
}

// tokenizer_config.json's {"0": {"content": "<unk>", ...}, ...}.
std::vector<AddedToken> addedTokensDecoder(const Json& decoder, const JsonAt& at) {
    expectObject(decoder, at);
    std::vector<AddedToken> out;
    for (const auto& [key, item] : decoder.items()) {
        std::int32_t id = 0;
        try {
            std::size_t used = 0;
            const long long value = std::stoll(key, &used);
            if (used != key.size() || value < 0 || value > kMaxTokenId) {
                throw std::out_of_range(key);
            }
            id = static_cast<std::int32_t>(value);
        } catch (const std::logic_error&) {
            failAt(at[key], "expected a token id as the key, found \"" + key + "\"");
        }
        expectObject(item, at[key]);
        out.push_back(addedTokenFromJson(item, at[key], id, true));
    }
    return out;
}

// The model's <unk>, <s>, </s>, named (and flagged) by the config's unk_token, bos_token,
// eos_token when it has them.
std::vector<AddedToken> modelSpecials(const SentencePieceModel& model, const Json* config,
                                      const JsonAt& at) {
    std::vector<AddedToken> out;
    const std::pair<const char*, const std::string*> roles[] = {{"unk_token", &model.unkPiece()},
                                                                {"bos_token", &model.bosPiece()},
                                                                {"eos_token", &model.eosPiece()}};
    for (const auto& [key, piece] : roles) {
        AddedToken t;
        t.content = *piece;
        t.special = true;
        const Json* entry = config != nullptr ? optionalMember(*config, key) : nullptr;
        if (entry != nullptr && entry->is_object()) {
            t.content = asString(member(*entry, at[key], "content"), at[key]["content"]);
            t.normalized = optionalBool(*entry, at[key], "normalized").value_or(false);
        } else if (entry != nullptr) {
            t.content = asString(*entry, at[key]);
        }
        const auto id = model.vocab().find(t.content);
        if (t.content.empty() || !id) {
            continue;
        }
        t.id = *id;
        out.push_back(std::move(t));
    }
    return out;
}

void setTextPreparation(TokenizerSpec& spec, const Json* config, const JsonAt& at) {
    const bool legacy = configBool(config, at, "legacy", true);
    const bool prefix = configBool(config, at, "add_prefix_space", true);
    if (legacy) {
        if (prefix) {
            NormalizerStep prepend;
            prepend.kind = NormalizerKind::Prepend;
            prepend.text = std::u32string(1, kMetaspace);
            spec.normalizers.push_back(std::move(prepend));
        }
        NormalizerStep replace;
        replace.kind = NormalizerKind::Replace;
        replace.text = U" ";
        replace.content = std::u32string(1, kMetaspace);
        spec.normalizers.push_back(std::move(replace));
        return;
    }
    PreTokenizerStep step;
    step.kind = PreTokenizerKind::Metaspace;
    step.metaspace.replacement = kMetaspace;
    step.metaspace.prependScheme = prefix ? PrependScheme::First : PrependScheme::Never;
    step.metaspace.split = false;
    spec.preTokenizers.push_back(std::move(step));
}

}  // namespace

TokenizerSpec specFromSentencePieceModel(const std::filesystem::path& modelFile, const Json* config,
                                         const JsonAt& configAt) {
    TokenizerSpec spec;
    spec.source = modelFile.string();
    spec.sentencePiece = std::make_shared<const SentencePieceModel>(modelFile);
    setTextPreparation(spec, config, configAt);
    const Json* decoder =
        config != nullptr ? optionalMember(*config, "added_tokens_decoder") : nullptr;
    spec.addedTokens = decoder != nullptr
                           ? addedTokensDecoder(*decoder, configAt["added_tokens_decoder"])
                           : modelSpecials(*spec.sentencePiece, config, configAt);
    const Json noConfig = Json::object();
    // LlamaTokenizer's defaults apply whatever tokenizer_class says: this is its format.
    Json llama = config != nullptr ? *config : noConfig;
    llama["tokenizer_class"] = "LlamaTokenizer";
    if (!llama.contains("bos_token") && !spec.sentencePiece->bosPiece().empty()) {
        llama["bos_token"] = spec.sentencePiece->bosPiece();
    }
    if (!llama.contains("eos_token") && !spec.sentencePiece->eosPiece().empty()) {
        llama["eos_token"] = spec.sentencePiece->eosPiece();
    }
    applyLlamaSpecialTokens(spec, llama, configAt);
    setConventionalRoles(spec);
    return spec;
}

void applyLlamaSpecialTokens(TokenizerSpec& spec, const Json& config, const JsonAt& at) {
    const std::string cls = optionalString(config, at, "tokenizer_class").value_or("");
    if (!cls.starts_with("LlamaTokenizer") && !cls.starts_with("CodeLlamaTokenizer")) {
        return;
    }
    // LlamaTokenizerFast.update_post_processor: [bos] $A [eos], each as its flag says.
    auto piece = [&](const char* flag, bool fallback,
                     const char* key) -> std::vector<SpecialPiece> {
        if (!optionalBool(config, at, flag).value_or(fallback)) {
            return {};
        }
        const auto name = optionalTokenContent(config, at, key);
        if (!name) {
            failAt(at[flag], std::string(flag) + " is true but there is no " + key);
        }
        const auto id = findToken(spec, *name);
        if (!id) {
            failAt(at[key], "\"" + *name + "\" is not in the vocabulary");
        }
        return {{*name, *id}};
    };
    spec.post.prefix = piece("add_bos_token", true, "bos_token");
    spec.post.suffix = piece("add_eos_token", false, "eos_token");
}

}  // namespace attnscope::tokenize::detail
