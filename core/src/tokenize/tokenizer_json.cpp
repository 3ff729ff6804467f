// Reads Hugging Face's tokenizer.json into a TokenizerSpec. Only the parts BERT, GPT-2, RoBERTa,
// Llama 2/3, Mistral, Qwen2, T5, ALBERT, XLM-R and WordLevel tokenizers use are accepted (the
// normalizers and pre-tokenizers are read in tokenizer_json_pipeline.cpp); anything else is
// UnsupportedModel, naming its path.
#include <algorithm>
#include <cmath>

#include "attnscope/base/error.h"
#include "loader_internal.h"

namespace attnscope::tokenize::detail {
namespace {

std::shared_ptr<const WordPieceModel> parseWordPiece(const Json& model, const JsonAt& at) {
    Vocab vocab = vocabFromJson(member(model, at, "vocab"), at["vocab"]);
    WordPieceOptions options;
    options.unkToken = optionalString(model, at, "unk_token").value_or(options.unkToken);
    options.continuingSubwordPrefix = optionalString(model, at, "continuing_subword_prefix")
                                          .value_or(options.continuingSubwordPrefix);
    if (const Json* max = optionalMember(model, "max_input_chars_per_word")) {
        const std::int64_t n = asInt(*max, at["max_input_chars_per_word"]);
        if (n < 0) {
            failAt(at["max_input_chars_per_word"], "expected a non-negative integer");
        }
        options.maxInputCharsPerWord = static_cast<std::size_t>(n);
    }
    if (!vocab.find(options.unkToken)) {
        failAt(at["unk_token"], "\"" + options.unkToken + "\" is not in the vocabulary");
    }
    return std::make_shared<WordPieceModel>(std::move(vocab), std::move(options));
}

std::vector<BpeMerge> parseMerges(const Json& merges, const JsonAt& at) {
    expectArray(merges, at);
    std::vector<BpeMerge> out;
    out.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
        const Json& m = merges[i];
        const JsonAt where = at[i];
        BpeMerge merge;
        merge.where = where.path;
        if (m.is_string()) {  // "Ġ t"
            const std::string text = m.get<std::string>();
            const auto space = text.find(' ');
            if (space == std::string::npos || space == 0 || space + 1 == text.size() ||
                text.find(' ', space + 1) != std::string::npos) {
                failAt(where, "merge \"" + text + "\" is not two pieces separated by one space");
            }
            merge.left = text.substr(0, space);
            merge.right = text.substr(space + 1);
        } else {  // ["Ġ", "t"], the newer format
            expectArray(m, where);
            if (m.size() != 2) {
                failAt(where, "expected 2 pieces, found " + std::to_string(m.size()));
            }
            merge.left = asString(m[0], where[0]);
            merge.right = asString(m[1], where[1]);
        }
        out.push_back(std::move(merge));
    }
    return out;
}

void expectEmptyAffix(const Json& model, const JsonAt& at, std::string_view key) {
    if (const auto affix = optionalString(model, at, key); affix && !affix->empty()) {
        unsupported(at[key], "BPE with a \"" + *affix + "\" affix is not supported");
    }
}

std::shared_ptr<const BpeModel> parseBpe(const Json& model, const JsonAt& at, bool byteLevel) {
    Vocab vocab = vocabFromJson(member(model, at, "vocab"), at["vocab"]);
    const std::vector<BpeMerge> merges = parseMerges(member(model, at, "merges"), at["merges"]);
    BpeOptions options;
    options.unkToken = optionalString(model, at, "unk_token");
    options.fuseUnk = optionalBool(model, at, "fuse_unk").value_or(false);
    options.ignoreMerges = optionalBool(model, at, "ignore_merges").value_or(false);
    options.byteLevel = byteLevel;
    options.byteFallback = optionalBool(model, at, "byte_fallback").value_or(false);
    if (options.byteFallback && byteLevel) {
        unsupported(at["byte_fallback"],
                    "byte_fallback with a ByteLevel pre-tokenizer is not supported");
    }
    if (const Json* dropout = optionalMember(model, "dropout");
        dropout != nullptr && dropout->is_number() && dropout->get<double>() > 0.0) {
        unsupported(at["dropout"], "BPE dropout is random at inference time; not supported");
    }
    expectEmptyAffix(model, at, "continuing_subword_prefix");
    expectEmptyAffix(model, at, "end_of_word_suffix");
    // BpeModel names the merge ("model.merges[5]: ..."); add the file in front.
    return withContext(at.file, [&] {
        return std::make_shared<const BpeModel>(std::move(vocab), merges, std::move(options));
    });
}

// [["▁the", -3.3], ...]: each piece with its score.
std::vector<std::pair<std::string, double>> parseUnigramPieces(const Json& vocab,
                                                               const JsonAt& at) {
    expectArray(vocab, at);
    if (vocab.size() > static_cast<std::size_t>(kMaxTokenId) + 1) {
        failAt(at, std::to_string(vocab.size()) + " pieces is implausibly many");
    }
    std::vector<std::pair<std::string, double>> pieces;
    pieces.reserve(vocab.size());
    for (std::size_t i = 0; i < vocab.size(); ++i) {
        const JsonAt where = at[i];
        const Json& entry = vocab[i];
        expectArray(entry, where);
        if (entry.size() != 2) {
            failAt(where,
                   "expected [piece, score], found " + std::to_string(entry.size()) + " elements");
        }
        std::string piece = asString(entry[0], where[0]);
        const double score = asNumber(entry[1], where[1]);
        if (!std::isfinite(score)) {
            failAt(where[1], "the score is not a finite number");
        }
        pieces.emplace_back(std::move(piece), score);
    }
    return pieces;
}

std::shared_ptr<const UnigramModel> parseUnigram(const Json& model, const JsonAt& at) {
    std::vector<std::pair<std::string, double>> pieces =
        parseUnigramPieces(member(model, at, "vocab"), at["vocab"]);
    UnigramOptions options;
    options.source = at.file + ": " + at.path;
    if (const Json* unk = optionalMember(model, "unk_id")) {
        if (pieces.empty()) {
            failAt(at["unk_id"], "an unknown id with an empty vocabulary");
        }
        options.unkId = static_cast<std::int32_t>(
            asInt(*unk, at["unk_id"], 0, static_cast<std::int64_t>(pieces.size()) - 1,
                  "an id of the " + std::to_string(pieces.size()) + "-piece vocabulary"));
    }
    options.byteFallback = optionalBool(model, at, "byte_fallback").value_or(false);
    return std::make_shared<const UnigramModel>(std::move(pieces), std::move(options));
}

std::shared_ptr<const WordLevelModel> parseWordLevel(const Json& model, const JsonAt& at) {
    Vocab vocab = vocabFromJson(member(model, at, "vocab"), at["vocab"]);
    WordLevelOptions options;
    // The crate requires the key even though the file need not have the token.
    options.unkToken = asString(member(model, at, "unk_token"), at["unk_token"]);
    options.source = at.file + ": " + at.path;
    return std::make_shared<const WordLevelModel>(std::move(vocab), std::move(options));
}

// Files written before models had a "type" are recognised as the crate's untagged ModelWrapper
// does, trying BPE (vocab and merges), WordPiece (unk_token, continuing_subword_prefix,
// max_input_chars_per_word and vocab), WordLevel (unk_token and a vocab object), then Unigram
// (a vocab list) in that order.
std::string inferModelType(const Json& model) {
    const Json* vocab = optionalMember(model, "vocab");
    const bool vocabObject = vocab != nullptr && vocab->is_object();
    if (vocabObject && model.contains("merges")) {
        return "BPE";
    }
    if (vocabObject && model.contains("unk_token") && model.contains("continuing_subword_prefix") &&
        model.contains("max_input_chars_per_word")) {
        return "WordPiece";
    }
    if (vocabObject && model.contains("unk_token")) {
        return "WordLevel";
    }
    if (vocab != nullptr && vocab->is_array()) {
        return "Unigram";
    }
    if (model.contains("merges")) {
        return "BPE";  // its parser says what is wrong with the vocabulary
    }
    return model.contains("max_input_chars_per_word") ? "WordPiece" : "";
}

void parseModel(const Json& root, const JsonAt& rootAt, TokenizerSpec& spec) {
    const JsonAt at = rootAt["model"];
    const Json& model = member(root, rootAt, "model");
    expectObject(model, at);
    const std::string type =
        optionalMember(model, "type") != nullptr ? typeOf(model, at) : inferModelType(model);
    if (type == "Unigram") {
        spec.unigram = parseUnigram(model, at);
    } else if (type == "WordLevel") {
        spec.wordLevel = parseWordLevel(model, at);
    } else if (type == "WordPiece") {
        spec.wordPiece = parseWordPiece(model, at);
    } else if (type == "BPE") {
        const bool byteLevel = std::any_of(
            spec.preTokenizers.begin(), spec.preTokenizers.end(),
            [](const PreTokenizerStep& s) { return s.kind == PreTokenizerKind::ByteLevel; });
        spec.bpe = parseBpe(model, at, byteLevel);
    } else if (type.empty()) {
        failAt(at, "no \"type\", and its keys match no model (BPE, WordPiece, WordLevel, Unigram)");
    } else {
        unsupported(at["type"], "model \"" + type +
                                    "\" is not supported, expected WordPiece, BPE, Unigram or "
                                    "WordLevel");
    }
}

SpecialPiece parsePair(const Json& pair, const JsonAt& at) {  // ["</s>", 2]
    expectArray(pair, at);
    if (pair.size() != 2) {
        failAt(at, "expected [token, id], found " + std::to_string(pair.size()) + " elements");
    }
    return {asString(pair[0], at[0]), asTokenId(pair[1], at[1])};
}

void parseTemplate(const Json& post, const JsonAt& at, PostProcessorSpec& out) {
    const Json& single = member(post, at, "single");
    expectArray(single, at["single"]);
    const Json& specials = member(post, at, "special_tokens");
    bool seenSequence = false;
    for (std::size_t i = 0; i < single.size(); ++i) {
        const JsonAt itemAt = at["single"][i];
        if (const Json* seq = optionalMember(single[i], "Sequence")) {
            if (seenSequence) {
                failAt(itemAt, "the single template uses the sequence twice");
            }
            asString(member(*seq, itemAt["Sequence"], "id"), itemAt["Sequence"]["id"]);
            seenSequence = true;
            continue;
        }
        const JsonAt tokAt = itemAt["SpecialToken"];
        const std::string name =
            asString(member(member(single[i], itemAt, "SpecialToken"), tokAt, "id"), tokAt["id"]);
        const JsonAt defAt = at["special_tokens"][name];
        const Json& def = member(specials, at["special_tokens"], name);
        const Json& ids = member(def, defAt, "ids");
        const Json& tokens = member(def, defAt, "tokens");
        expectArray(ids, defAt["ids"]);
        expectArray(tokens, defAt["tokens"]);
        if (ids.size() != tokens.size()) {
            failAt(defAt, "ids and tokens differ in length");
        }
        auto& target = seenSequence ? out.suffix : out.prefix;
        for (std::size_t k = 0; k < ids.size(); ++k) {
            target.push_back(
                {asString(tokens[k], defAt["tokens"][k]), asTokenId(ids[k], defAt["ids"][k])});
        }
    }
    if (!seenSequence) {
        failAt(at["single"], "the single template has no $A sequence");
    }
}

}  // namespace

void parsePostProcessor(const Json& post, const JsonAt& at, PostProcessorSpec& out) {
    const std::string type = typeOf(post, at);
    if (type == "TemplateProcessing") {
        parseTemplate(post, at, out);
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
        out.prefix.push_back(parsePair(member(post, at, "cls"), at["cls"]));
        out.suffix.push_back(parsePair(member(post, at, "sep"), at["sep"]));
        if (type == "RobertaProcessing") {
            out.trimOffsets = optionalBool(post, at, "trim_offsets").value_or(true);
            out.trimAddPrefixSpace = optionalBool(post, at, "add_prefix_space").value_or(true);
        }
    } else if (type == "ByteLevel") {
        out.trimOffsets = optionalBool(post, at, "trim_offsets").value_or(true);
        out.trimAddPrefixSpace = optionalBool(post, at, "add_prefix_space").value_or(true);
    } else if (type == "Sequence") {
        parseSequence(post, at, "processors", out, parsePostProcessor);
    } else {
        unsupported(at["type"], "post-processor \"" + type + "\" is not supported");
    }
}

AddedToken addedTokenFromJson(const Json& item, const JsonAt& at, std::int32_t id,
                              bool specialByDefault) {
    AddedToken t;
    t.id = id;
    t.content = asString(member(item, at, "content"), at["content"]);
    t.special = optionalBool(item, at, "special").value_or(specialByDefault);
    t.singleWord = optionalBool(item, at, "single_word").value_or(false);
    t.lstrip = optionalBool(item, at, "lstrip").value_or(false);
    t.rstrip = optionalBool(item, at, "rstrip").value_or(false);
    t.normalized = optionalBool(item, at, "normalized").value_or(!t.special);
    return t;
}

std::vector<AddedToken> parseAddedTokens(const Json& root, const JsonAt& rootAt) {
    std::vector<AddedToken> out;
    const Json* list = optionalMember(root, "added_tokens");
    if (list == nullptr) {
        return out;
    }
    const JsonAt at = rootAt["added_tokens"];
    expectArray(*list, at);
    for (std::size_t i = 0; i < list->size(); ++i) {
        const Json& item = (*list)[i];
        const JsonAt itemAt = at[i];
        const std::int32_t id = asTokenId(member(item, itemAt, "id"), itemAt["id"]);
        out.push_back(addedTokenFromJson(item, itemAt, id, false));
    }
    return out;
}

Vocab vocabFromJson(const Json& vocab, const JsonAt& at) {
    expectObject(vocab, at);
    Vocab out;
    for (const auto& [piece, value] : vocab.items()) {
        const std::int32_t id = asTokenId(value, at[piece]);
        if (id > kMaxTokenId) {
            failAt(at[piece], "token id " + std::to_string(id) + " is implausibly large");
        }
        out.add(piece, id);
    }
    return out;
}

TokenizerSpec specFromTokenizerJson(const std::filesystem::path& file) {
    const Json root = readJsonFile(file);
    const JsonAt at{file.string()};
    expectObject(root, at);
    TokenizerSpec spec;
    spec.source = file.string();
    if (const Json* normalizer = optionalMember(root, "normalizer")) {
        spec.normalizers = parseNormalizers(*normalizer, at["normalizer"]);
    }
    if (const Json* pre = optionalMember(root, "pre_tokenizer")) {
        spec.preTokenizers = parsePreTokenizers(*pre, at["pre_tokenizer"]);
    }
    parseModel(root, at, spec);
    if (const Json* post = optionalMember(root, "post_processor")) {
        parsePostProcessor(*post, at["post_processor"], spec.post);
    }
    spec.addedTokens = parseAddedTokens(root, at);
    setConventionalRoles(spec);
    return spec;
}

[[noreturn]] void unsupported(const JsonAt& at, const std::string& what) {
    throw UnsupportedModel(at.file + ": " + at.path + ": " + what);
}

std::string typeOf(const Json& obj, const JsonAt& at) {
    return asString(member(obj, at, "type"), at["type"]);
}

}  // namespace attnscope::tokenize::detail
