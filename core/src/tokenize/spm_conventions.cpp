// Model folders whose tokenizer is a SentencePiece model run the way transformers' slow
// tokenizers run it (slow_spm_tokenizer.h): Marian (source.spm, target.spm, vocab.json), ALBERT
// and T5 (spiece.model), configured by tokenizer_config.json as each class's __init__ and
// PreTrainedTokenizer.__init__ (transformers 4.34 to 4.5x) configure them.
#include <unordered_map>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"
#include "attnscope/tokenize/slow_spm_tokenizer.h"
#include "loader_internal.h"

namespace attnscope::tokenize {
namespace {

namespace fs = std::filesystem;
using detail::FindToken;
using detail::Json;
using detail::JsonAt;

// A special token of tokenizer_config.json ("[MASK]" or {"content": ..., "lstrip": ...}), with
// the class's default when the config has none.
SlowAddedToken configToken(const Json* config, const JsonAt& at, const char* key,
                           std::string fallback, bool lstrip = false) {
    SlowAddedToken t;
    t.content = std::move(fallback);
    t.lstrip = lstrip;
    const Json* entry = config != nullptr ? detail::optionalMember(*config, key) : nullptr;
    if (entry != nullptr && entry->is_object()) {
        t.content =
            detail::asString(detail::member(*entry, at[key], "content"), at[key]["content"]);
        t.lstrip = detail::optionalBool(*entry, at[key], "lstrip").value_or(false);
        t.rstrip = detail::optionalBool(*entry, at[key], "rstrip").value_or(false);
        t.singleWord = detail::optionalBool(*entry, at[key], "single_word").value_or(false);
    } else if (entry != nullptr && !entry->is_null()) {
        t.content = detail::asString(*entry, at[key]);
    }
    return t;
}

// tokenizer_config.json's added_tokens_decoder: {"0": {"content": "<pad>", ...}, ...}.
void readAddedTokensDecoder(const Json* config, const JsonAt& at,
                            std::map<std::int32_t, SlowAddedToken>& added) {
    const Json* decoder =
        config != nullptr ? detail::optionalMember(*config, "added_tokens_decoder") : nullptr;
    if (decoder == nullptr) {
        return;
    }
    const JsonAt dat = at["added_tokens_decoder"];
    detail::expectObject(*decoder, dat);
    for (const auto& [key, item] : decoder->items()) {
        std::int32_t id = 0;
        try {
            std::size_t used = 0;
            const long long value = std::stoll(key, &used);
            if (used != key.size() || value < 0 || value > detail::kMaxTokenId) {
                throw std::out_of_range(key);
            }
            id = static_cast<std::int32_t>(value);
        } catch (const std::logic_error&) {
            detail::failAt(dat[key], "expected a token id as the key, found \"" + key + "\"");
        }
        detail::expectObject(item, dat[key]);
        SlowAddedToken t = configToken(decoder, dat, key.c_str(), "");
        if (t.content.empty()) {
            detail::failAt(dat[key]["content"], "empty token");
        }
        t.id = id;
        added[id] = std::move(t);
    }
}

// PreTrainedTokenizer.__init__'s _add_tokens for the special tokens not added yet: a token the
// vocabulary holds keeps its id, any other is appended after the vocabulary and the tokens
// added so far.
void addSpecialTokens(const std::vector<SlowAddedToken>& specials, const FindToken& findPiece,
                      std::size_t vocabSize, std::map<std::int32_t, SlowAddedToken>& added) {
    std::size_t next = vocabSize;
    for (const auto& [id, t] : added) {
        next += findPiece(t.content) ? 0 : 1;
    }
    for (SlowAddedToken t : specials) {
        const bool present = std::any_of(added.begin(), added.end(), [&](const auto& e) {
            return e.second.content == t.content;
        });
        if (present || t.content.empty()) {
            continue;
        }
        const auto id = findPiece(t.content);
        t.id = id ? *id : static_cast<std::int32_t>(next++);
        added[t.id] = std::move(t);
    }
}

SlowSpmSpec finishSpec(SlowSpmSpec spec, std::map<std::int32_t, SlowAddedToken> added,
                       const FindToken& findPiece, std::size_t pieces) {
    spec.vocabSize = pieces;
    for (auto& [id, t] : added) {
        spec.vocabSize += findPiece(t.content) ? 0 : 1;
        spec.added.push_back(std::move(t));
    }
    return spec;
}

std::int32_t roleId(const SlowSpmSpec& spec, const std::string& token, const FindToken& findPiece,
                    const fs::path& file) {
    for (const SlowAddedToken& t : spec.added) {
        if (t.content == token) {
            return t.id;
        }
    }
    if (const auto id = findPiece(token)) {
        return *id;
    }
    throw FormatError(file.string() + ": \"" + token + "\" is not in the vocabulary");
}

// Marian's vocab.json: every piece's id, dense from 0 (the model's embedding rows).
std::shared_ptr<const Vocab> readMarianVocab(const fs::path& file) {
    const Json root = detail::readJsonFile(file);
    const JsonAt at{file.string()};
    detail::expectObject(root, at);
    if (root.empty()) {
        detail::failAt(at, "no pieces");
    }
    auto vocab = std::make_shared<Vocab>();
    std::unordered_map<std::int32_t, std::string> pieceOfId;
    for (const auto& [piece, value] : root.items()) {
        const std::int32_t id = detail::asTokenId(value, at[piece]);
        if (static_cast<std::size_t>(id) >= root.size()) {
            detail::failAt(at[piece], "id " + std::to_string(id) +
                                          " is out of range: the file has " +
                                          std::to_string(root.size()) + " pieces");
        }
        if (const auto [it, fresh] = pieceOfId.emplace(id, piece); !fresh) {
            detail::failAt(at[piece], "id " + std::to_string(id) + " is also the id of \"" +
                                          it->second + "\"");
        }
        vocab->add(piece, id);
    }
    return vocab;
}

std::unique_ptr<Tokenizer> loadMarian(const fs::path& dir, bool target) {
    const auto configFile = dir / "tokenizer_config.json";
    const auto config = detail::readOptionalJson(configFile);
    const Json* cfg = config ? &*config : nullptr;
    const JsonAt at{configFile.string()};
    const bool separate =
        cfg != nullptr && detail::optionalBool(*cfg, at, "separate_vocabs").value_or(false);
    const fs::path vocabFile = dir / (separate && target ? "target_vocab.json" : "vocab.json");
    const fs::path spmFile = dir / (target ? "target.spm" : "source.spm");
    SlowSpmSpec spec;
    spec.convention = SpmConvention::Marian;
    spec.vocabJson = readMarianVocab(vocabFile);
    const Vocab& vocab = *spec.vocabJson;
    const FindToken findPiece = [&](std::string_view t) { return vocab.find(t); };
    const SlowAddedToken unk = configToken(cfg, at, "unk_token", "<unk>");
    const SlowAddedToken eos = configToken(cfg, at, "eos_token", "</s>");
    const SlowAddedToken pad = configToken(cfg, at, "pad_token", "<pad>");
    if (!vocab.find(unk.content)) {
        throw FormatError(vocabFile.string() + ": the unk_token \"" + unk.content +
                          "\" is not in the vocabulary");
    }
    spec.unkId = *vocab.find(unk.content);
    spec.model = std::make_shared<const SentencePieceModel>(spmFile);
    std::map<std::int32_t, SlowAddedToken> added;
    readAddedTokensDecoder(cfg, at, added);
    addSpecialTokens({eos, unk, pad}, findPiece, vocab.size(), added);
    spec = finishSpec(std::move(spec), std::move(added), findPiece, vocab.size());
    spec.suffix = {roleId(spec, eos.content, findPiece, vocabFile)};
    spec.roles = {{SpecialRole::Eos, spec.suffix.front()},
                  {SpecialRole::Unk, spec.unkId},
                  {SpecialRole::Pad, roleId(spec, pad.content, findPiece, vocabFile)}};
    spec.source =
        std::string(target ? "Marian target side: target.spm" : "Marian: source.spm + target.spm") +
        ", " + vocabFile.filename().string() + " (" + std::to_string(spec.vocabSize) +
        "), run by libsentencepiece, from " + dir.string();
    return std::make_unique<SlowSpmTokenizer>(std::move(spec));
}

struct SpieceFiles {
    fs::path model;
    fs::path configFile;
    std::optional<Json> config;

    const Json* cfg() const { return config ? &*config : nullptr; }
};

// AlbertTokenizer: do_lower_case, remove_space, keep_accents; "[CLS] x [SEP]"; [MASK] eats the
// spaces before it (lstrip) unless the config says otherwise.
std::unique_ptr<Tokenizer> loadAlbert(const SpieceFiles& f) {
    const Json* cfg = f.cfg();
    const JsonAt at{f.configFile.string()};
    auto flag = [&](const char* key, bool fallback) {
        return cfg != nullptr ? detail::optionalBool(*cfg, at, key).value_or(fallback) : fallback;
    };
    SlowSpmSpec spec;
    spec.convention = SpmConvention::Albert;
    spec.model = std::make_shared<const SentencePieceModel>(f.model);
    spec.lowercase = flag("do_lower_case", true);
    spec.removeSpace = flag("remove_space", true);
    spec.keepAccents = flag("keep_accents", false);
    const Vocab& vocab = spec.model->vocab();
    const FindToken findPiece = [&](std::string_view t) { return vocab.find(t); };
    const std::vector<SlowAddedToken> specials = {
        configToken(cfg, at, "bos_token", "[CLS]"),
        configToken(cfg, at, "eos_token", "[SEP]"),
        configToken(cfg, at, "unk_token", "<unk>"),
        configToken(cfg, at, "sep_token", "[SEP]"),
        configToken(cfg, at, "pad_token", "<pad>"),
        configToken(cfg, at, "cls_token", "[CLS]"),
        configToken(cfg, at, "mask_token", "[MASK]", /*lstrip=*/true)};
    std::map<std::int32_t, SlowAddedToken> added;
    readAddedTokensDecoder(cfg, at, added);
    addSpecialTokens(specials, findPiece, vocab.size(), added);
    spec = finishSpec(std::move(spec), std::move(added), findPiece, vocab.size());
    const SpecialRole roles[] = {SpecialRole::Bos, SpecialRole::Eos, SpecialRole::Unk,
                                 SpecialRole::Sep, SpecialRole::Pad, SpecialRole::Cls,
                                 SpecialRole::Mask};
    for (std::size_t k = 0; k < specials.size(); ++k) {
        spec.roles[roles[k]] = roleId(spec, specials[k].content, findPiece, f.model);
    }
    spec.prefix = {spec.roles.at(SpecialRole::Cls)};
    spec.suffix = {spec.roles.at(SpecialRole::Sep)};
    spec.unkId = spec.roles.at(SpecialRole::Unk);
    spec.source = "ALBERT: " + f.model.string() + " (" + std::to_string(spec.vocabSize) +
                  " tokens, run by libsentencepiece)";
    return std::make_unique<SlowSpmTokenizer>(std::move(spec));
}

// T5Tokenizer (legacy, its default): "x </s>"; extra_ids sentinels <extra_id_0> ... appended to
// the vocabulary from the top down (<extra_id_0> last), each eating the spaces around it.
std::unique_ptr<Tokenizer> loadT5(const SpieceFiles& f) {
    const Json* cfg = f.cfg();
    const JsonAt at{f.configFile.string()};
    if (cfg != nullptr && !detail::optionalBool(*cfg, at, "legacy").value_or(true)) {
        detail::unsupported(at["legacy"], "T5Tokenizer with legacy: false");
    }
    SlowSpmSpec spec;
    spec.convention = SpmConvention::T5;
    spec.model = std::make_shared<const SentencePieceModel>(f.model);
    const Vocab& vocab = spec.model->vocab();
    const FindToken findPiece = [&](std::string_view t) { return vocab.find(t); };
    const Json* extra = cfg != nullptr ? detail::optionalMember(*cfg, "extra_ids") : nullptr;
    const std::int64_t extraIds =
        extra != nullptr ? detail::asInt(*extra, at["extra_ids"], 0, 100000) : 100;
    std::size_t sentinels = static_cast<std::size_t>(extraIds);
    std::vector<SlowAddedToken> additional;
    if (const Json* list =
            cfg != nullptr ? detail::optionalMember(*cfg, "additional_special_tokens") : nullptr) {
        detail::expectArray(*list, at["additional_special_tokens"]);
        sentinels = 0;
        for (std::size_t k = 0; k < list->size(); ++k) {
            const JsonAt itemAt = at["additional_special_tokens"][k];
            SlowAddedToken t;
            t.content = (*list)[k].is_object()
                            ? detail::asString(detail::member((*list)[k], itemAt, "content"),
                                               itemAt["content"])
                            : detail::asString((*list)[k], itemAt);
            sentinels += t.content.find("<extra_id_") != std::string::npos ? 1 : 0;
            additional.push_back(std::move(t));
        }
        if (extraIds > 0 && sentinels > 0 && sentinels != static_cast<std::size_t>(extraIds)) {
            detail::failAt(at["additional_special_tokens"],
                           "holds " + std::to_string(sentinels) +
                               " <extra_id_N> tokens, extra_ids says " + std::to_string(extraIds));
        }
        if (sentinels == 0) {
            for (std::int64_t i = 0; i < extraIds; ++i) {
                additional.push_back({"<extra_id_" + std::to_string(i) + ">"});
            }
        }
    }
    std::map<std::int32_t, SlowAddedToken> added;
    const auto top = static_cast<std::int64_t>(vocab.size()) - 1 + extraIds;
    for (std::size_t i = 0; i < sentinels; ++i) {
        const auto id = static_cast<std::int32_t>(top - static_cast<std::int64_t>(i));
        added[id] = {"<extra_id_" + std::to_string(i) + ">", id, true, true, false};
    }
    readAddedTokensDecoder(cfg, at, added);
    std::vector<SlowAddedToken> specials = {configToken(cfg, at, "eos_token", "</s>"),
                                            configToken(cfg, at, "unk_token", "<unk>"),
                                            configToken(cfg, at, "pad_token", "<pad>")};
    specials.insert(specials.end(), additional.begin(), additional.end());
    addSpecialTokens(specials, findPiece, vocab.size(), added);
    spec = finishSpec(std::move(spec), std::move(added), findPiece, vocab.size());
    const SpecialRole roles[] = {SpecialRole::Eos, SpecialRole::Unk, SpecialRole::Pad};
    for (std::size_t k = 0; k < 3; ++k) {
        spec.roles[roles[k]] = roleId(spec, specials[k].content, findPiece, f.model);
    }
    spec.suffix = {spec.roles.at(SpecialRole::Eos)};
    spec.suffixUnlessPresent = true;
    spec.unkId = spec.roles.at(SpecialRole::Unk);
    spec.source = "T5: " + f.model.string() + " (" + std::to_string(spec.vocabSize) +
                  " tokens, run by libsentencepiece)";
    return std::make_unique<SlowSpmTokenizer>(std::move(spec));
}

std::string configString(const fs::path& file, const char* key) {
    const auto json = detail::readOptionalJson(file);
    return json ? detail::optionalString(*json, JsonAt{file.string()}, key).value_or("") : "";
}

// A Marian folder: named so (model_type, tokenizer_class) and holding one of its files, or
// holding source.spm and vocab.json. A missing file of such a folder is then an error naming it,
// never a quiet fall-back to another tokenizer.
bool isMarianFolder(const fs::path& dir, std::string_view modelType) {
    const bool spm = io::pathKind(dir / "source.spm").exists();
    const bool vocab = io::pathKind(dir / "vocab.json").exists();
    if (spm && vocab) {
        return true;
    }
    const std::string cls = configString(dir / "tokenizer_config.json", "tokenizer_class");
    return (modelType == "marian" || cls.starts_with("Marian")) &&
           (spm || vocab || io::pathKind(dir / "target.spm").exists());
}

}  // namespace

std::unique_ptr<Tokenizer> loadSpmConventionTokenizer(const fs::path& modelDir,
                                                      std::string_view modelType) {
    return withContext("loading tokenizer", [&]() -> std::unique_ptr<Tokenizer> {
        if (isMarianFolder(modelDir, modelType)) {
            return loadMarian(modelDir, /*target=*/false);
        }
        SpieceFiles f{modelDir / "spiece.model", modelDir / "tokenizer_config.json", {}};
        if (!io::pathKind(f.model).exists()) {
            return nullptr;
        }
        f.config = detail::readOptionalJson(f.configFile);
        std::string kind = f.config
                               ? detail::optionalString(*f.config, JsonAt{f.configFile.string()},
                                                        "tokenizer_class")
                                     .value_or("")
                               : "";
        if (kind.empty()) {
            kind = !modelType.empty() ? std::string(modelType)
                                      : configString(modelDir / "config.json", "model_type");
        }
        if (kind.starts_with("AlbertTokenizer") || kind == "albert") {
            return loadAlbert(f);
        }
        if (kind.starts_with("T5Tokenizer") || kind == "t5" || kind == "mt5") {
            return loadT5(f);
        }
        throw UnsupportedModel(f.model.string() + ": no known way to run spiece.model for '" +
                               kind + "' (tokenizer_class, else config.json's model_type): " +
                               "AttnScope runs it as ALBERT or T5 does");
    });
}

std::unique_ptr<Tokenizer> loadTargetTokenizer(const fs::path& modelDir,
                                               std::string_view modelType) {
    return withContext("loading target tokenizer", [&]() -> std::unique_ptr<Tokenizer> {
        if (!isMarianFolder(modelDir, modelType)) {
            return nullptr;
        }
        return loadMarian(modelDir, /*target=*/true);
    });
}

}  // namespace attnscope::tokenize
