// Shared pieces of the tokenizer loaders (tokenizer_json.cpp, vocab_files.cpp, tokenizer.cpp).
// Private to attnscope_tokenize. All functions throw FormatError naming file and location.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/io/json_access.h"
#include "attnscope/io/json_text.h"
#include "attnscope/tokenize/hf_tokenizer.h"

namespace attnscope::tokenize::detail {

// The loaders read JSON through io/json_access.h (FormatError "<file>: <key path>: <reason>").
using io::asBool;
using io::asInt;
using io::asNumber;
using io::asString;
using io::expectArray;
using io::expectObject;
using io::failAt;
using io::Json;
using io::JsonAt;
using io::member;
using io::optionalBool;
using io::optionalMember;
using io::optionalString;
using io::readJsonFile;

// Far above any real vocabulary (the largest are ~260k pieces); keeps a corrupt id from making
// us allocate gigabytes.
constexpr std::int32_t kMaxTokenId = (1 << 24) - 1;

// A token id: an integer in [0, 2^31).
std::int32_t asTokenId(const Json& value, const JsonAt& at);
// A special token in tokenizer_config.json: "[CLS]" or {"content": "[CLS]", ...}.
std::optional<std::string> optionalTokenContent(const Json& obj, const JsonAt& at,
                                                std::string_view key);

// UnsupportedModel "<file>: <JSON path>: <what>", for a pipeline part not implemented here.
[[noreturn]] void unsupported(const JsonAt& at, const std::string& what);

// A "Sequence" object of tokenizer.json's pipeline: each item of its `key` list ("normalizers",
// "pretokenizers", "processors") handed to `parse` in order, with its own JSON path.
template <class Out, class Parse>
void parseSequence(const Json& sequence, const JsonAt& at, const char* key, Out& out,
                   Parse&& parse) {
    const Json& list = member(sequence, at, key);
    expectArray(list, at[key]);
    for (std::size_t i = 0; i < list.size(); ++i) {
        parse(list[i], at[key][i], out);
    }
}

// The "type" member of a tokenizer.json object (model, normalizer, pre-tokenizer, ...).
std::string typeOf(const Json& obj, const JsonAt& at);

// A {"piece": id, ...} object (tokenizer.json's model.vocab, vocab.json).
Vocab vocabFromJson(const Json& vocab, const JsonAt& at);

TokenizerSpec specFromTokenizerJson(const std::filesystem::path& file);
// tokenizer.json's "post_processor" and "added_tokens" (tokenizer_json.cpp).
void parsePostProcessor(const Json& post, const JsonAt& at, PostProcessorSpec& out);
std::vector<AddedToken> parseAddedTokens(const Json& root, const JsonAt& rootAt);
// One added token's object ({"content": ..., "special": ..., "lstrip": ...}) given its id;
// `specialByDefault` when it names no "special" (tokenizer.json's added_tokens: false,
// tokenizer_config.json's added_tokens_decoder: true, as transformers reads them).
AddedToken addedTokenFromJson(const Json& item, const JsonAt& at, std::int32_t id,
                              bool specialByDefault);
// vocab.txt: one piece a line, UTF-8, the id its line number from 0 (vocab_files.cpp).
Vocab readVocabTxt(const std::filesystem::path& file);
// The parsed file (a JSON object, or FormatError), or nullopt when it does not exist.
std::optional<Json> readOptionalJson(const std::filesystem::path& file);
// tokenizer.json's "normalizer" and "pre_tokenizer" (tokenizer_json_pipeline.cpp); a Sequence
// becomes its steps.
std::vector<NormalizerStep> parseNormalizers(const Json& normalizer, const JsonAt& at);
std::vector<PreTokenizerStep> parsePreTokenizers(const Json& preTokenizer, const JsonAt& at);
// A SentencePiece tokenizer.model set up as transformers' LlamaTokenizer(Fast) runs it, with
// tokenizer_config.json (`config`, may be null) for add_bos_token, add_eos_token, legacy,
// add_prefix_space and the added tokens (sentencepiece_files.cpp).
TokenizerSpec specFromSentencePieceModel(const std::filesystem::path& modelFile, const Json* config,
                                         const JsonAt& configAt);
// LlamaTokenizerFast rebuilds its post-processor from tokenizer_config.json's add_bos_token and
// add_eos_token; applies that when `config` names a Llama tokenizer class.
void applyLlamaSpecialTokens(TokenizerSpec& spec, const Json& config, const JsonAt& at);
TokenizerSpec specFromWordPieceVocab(const std::filesystem::path& vocabTxt,
                                     const WordPieceFilesOptions& options);
TokenizerSpec specFromByteLevelBpeFiles(const std::filesystem::path& vocabJson,
                                        const std::filesystem::path& mergesTxt,
                                        const ByteLevelBpeFilesOptions& options);

// The id of `token` among the spec's added tokens or in its model's vocabulary.
std::optional<std::int32_t> findToken(const TokenizerSpec& spec, std::string_view token);

// Looks a token up among added tokens and pieces; how the role rules below see a vocabulary.
using FindToken = std::function<std::optional<std::int32_t>(std::string_view)>;
using SpecialRoles = std::map<SpecialRole, std::int32_t>;

// Adds the roles not yet set: [CLS] / [SEP] from the post-processor's first and last token,
// then the conventional names ([CLS], <s>, <|endoftext|>, ...) the vocabulary contains.
void addConventionalRoles(const FindToken& find, const PostProcessorSpec& post,
                          SpecialRoles& roles);
// Sets the roles tokenizer_config.json names (cls_token, ...) when the vocabulary has them.
void addConfigRoles(const FindToken& find, const Json& config, const JsonAt& at,
                    SpecialRoles& roles);

// The two above applied to a spec.
void setConventionalRoles(TokenizerSpec& spec);
void applyConfigRoles(TokenizerSpec& spec, const Json& config, const JsonAt& at);

}  // namespace attnscope::tokenize::detail
