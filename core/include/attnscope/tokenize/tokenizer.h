// The tokenizer interface: text in, tokens with ids and character spans out.
//
// Implementations (WordPiece, BPE, SentencePiece) reproduce Hugging Face `tokenizers` exactly, ids
// and offsets, and are checked against it on every sentence of the UD treebanks
// (tests/core/tokenize/tokenizer_parity_test.cpp). The pipeline itself is in hf_tokenizer.h.
// A Tokenizer is immutable after loading; `encode` is const and safe to call from any thread.
// Errors: loading throws FormatError naming the file and JSON path / line, or UnsupportedModel
// for a tokenizer.json part not implemented here; `encode` throws InvalidArgument for text that
// is not valid UTF-8, naming the byte offset, and FormatError naming the file when the model
// needs an unknown token it lacks (a WordLevel unk_token absent from its vocabulary, a Unigram
// model without unk_id), where Hugging Face fails too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/tokenize/token_vocabulary.h"

namespace attnscope::tokenize {

// WordPiece (BERT); ByteLevelBpe (GPT-2, RoBERTa, Llama 3, Qwen2); Bpe: character-level BPE with
// byte fallback from a tokenizer.json (Llama 2, Mistral, TinyLlama: Metaspace or Prepend +
// Replace); SentencePiece: a tokenizer.model run by libsentencepiece; Unigram: a tokenizer.json
// Unigram model (T5, ALBERT, XLM-R); WordLevel: a tokenizer.json WordLevel model.
enum class TokenizerKind { WordPiece, ByteLevelBpe, Bpe, SentencePiece, Unigram, WordLevel };

struct Token {
    std::string text;  // the vocabulary piece as stored: "##ing", "Ġthe", "[CLS]"
    std::int32_t id = 0;
    // Span of the input text this token came from, [begin, end). Byte offsets into the UTF-8
    // input, and the same span counted in Unicode code points (what Python's str indexing
    // uses, and what the HDF5 export stores). Special tokens added around the text have an
    // empty span at 0, as in Hugging Face.
    std::size_t byteBegin = 0;
    std::size_t byteEnd = 0;
    std::size_t charBegin = 0;
    std::size_t charEnd = 0;
    bool special = false;  // added by the post-processor or matched as a special added token
};

// A vocabulary (token_vocabulary.h: vocabSize, tokenToId, idToToken, specialId) that can also
// turn text into tokens.
class Tokenizer : public TokenVocabulary {
public:
    virtual TokenizerKind kind() const = 0;
    // "WordPiece", "byte-level BPE", "BPE ... byte fallback", "SentencePiece", "Unigram (32100
    // pieces, ...)" or "WordLevel", with sizes and the source file, for `attnscope-cli info`.
    virtual std::string describe() const = 0;
    // `addSpecialTokens` adds [CLS]/[SEP] or <s>/</s> as the model's post-processor says.
    virtual std::vector<Token> encode(std::string_view text,
                                      bool addSpecialTokens = true) const = 0;
};

std::vector<std::int32_t> ids(const std::vector<Token>& tokens);

// Loads a Hugging Face `tokenizer.json` holding a WordPiece model (BertNormalizer,
// BertPreTokenizer), a byte-level BPE model (ByteLevel pre-tokenizer, optionally after a Split
// regex and an NFC normalizer: GPT-2, RoBERTa, Llama 3, Qwen2) or a character-level BPE model
// with byte fallback (Metaspace, or Prepend + Replace normalizers: Llama 2, Mistral), a Unigram
// model (Precompiled, Strip, Replace, Lowercase, NFKD, StripAccents normalizers; WhitespaceSplit
// and Metaspace pre-tokenizers: T5, ALBERT, XLM-R) or a WordLevel model; files without a model
// "type" are recognised by their keys, as the crate does. Throws FormatError "<file>: <JSON
// path>: <reason>" for a malformed file and UnsupportedModel for a pipeline part AttnScope does
// not implement (e.g. an NFKC normalizer or BPE dropout).
std::unique_ptr<Tokenizer> loadTokenizerJson(const std::filesystem::path& file);

// How BERT's vocab.txt is used; tokenizer_config.json supplies these in a model folder.
struct WordPieceFilesOptions {
    bool lowercase = true;             // do_lower_case
    std::optional<bool> stripAccents;  // strip_accents; unset: follows `lowercase`
    bool handleChineseChars = true;    // tokenize_chinese_chars
    std::string unkToken = "[UNK]";
    std::string clsToken = "[CLS]";
    std::string sepToken = "[SEP]";
    std::string padToken = "[PAD]";
    std::string maskToken = "[MASK]";
};

// A WordPiece tokenizer from vocab.txt (one piece per line, id = line number), set up as
// Hugging Face's BertTokenizerFast converts it. Throws FormatError naming file and line.
std::unique_ptr<Tokenizer> loadWordPieceVocab(const std::filesystem::path& vocabTxt,
                                              const WordPieceFilesOptions& options = {});

// GPT-2 adds no special tokens around the text and keeps offsets as they are; RoBERTa (also
// BART, Longformer) wraps the text in <s> ... </s> and trims spaces off the offsets. Auto picks
// RoBERTa when the vocabulary has both <s> and </s>, else GPT-2.
enum class ByteLevelStyle { Auto, Gpt2, Roberta };

struct ByteLevelBpeFilesOptions {
    ByteLevelStyle style = ByteLevelStyle::Auto;
    bool addPrefixSpace = false;  // add_prefix_space
    bool trimOffsets = true;      // trim_offsets (RoBERTa style only)
};

// A byte-level BPE tokenizer from vocab.json + merges.txt, set up as Hugging Face's
// GPT2TokenizerFast / RobertaTokenizerFast convert them. Throws FormatError naming the file and
// the JSON path or line.
std::unique_ptr<Tokenizer> loadByteLevelBpeFiles(const std::filesystem::path& vocabJson,
                                                 const std::filesystem::path& mergesTxt,
                                                 const ByteLevelBpeFilesOptions& options = {});

// Like loadTokenizer, but ignores tokenizer.json: vocab.txt, or vocab.json + merges.txt,
// configured by tokenizer_config.json (do_lower_case, strip_accents, tokenize_chinese_chars,
// add_prefix_space, trim_offsets, special tokens). Returns nullptr when those files are absent.
std::unique_ptr<Tokenizer> loadTokenizerFromVocabFiles(const std::filesystem::path& modelDir,
                                                       std::string_view modelType);

// Like loadTokenizer, but only `tokenizer.model` (SentencePiece, run by libsentencepiece),
// configured by tokenizer_config.json as transformers' LlamaTokenizerFast would be: legacy,
// add_prefix_space, add_bos_token (default true), add_eos_token (default false), the special
// tokens and added_tokens_decoder. Returns nullptr when the file is absent; a corrupt file throws
// FormatError naming it and the reason libsentencepiece gives.
std::unique_ptr<Tokenizer> loadSentencePieceTokenizer(const std::filesystem::path& modelDir);

// Like loadTokenizer, but only the SentencePiece files transformers' slow tokenizers read
// (slow_spm_tokenizer.h): a Marian folder (model_type "marian", a Marian tokenizer_class, or
// source.spm + vocab.json present) gives MarianTokenizer's source side (source.spm, ids through
// vocab.json, "x </s>"); `spiece.model` is run as AlbertTokenizer ("[CLS] x [SEP]") or
// T5Tokenizer ("x </s>", <extra_id_N> appended) as tokenizer_config.json's tokenizer_class says,
// else `modelType`, else config.json's model_type (UnsupportedModel for any other). Returns
// nullptr when the folder holds none of these files. Errors (prefixed "loading tokenizer: ")
// name the file and reason: a corrupt .spm / spiece.model, a vocab.json that is not an object of
// ids, or whose ids are out of range [0, pieces) or repeated.
std::unique_ptr<Tokenizer> loadSpmConventionTokenizer(const std::filesystem::path& modelDir,
                                                      std::string_view modelType);

// The tokenizer of an encoder-decoder model's TARGET (decoder) side, for a folder whose two sides
// tokenize differently: Marian's target.spm with the same vocab.json (target_vocab.json when
// tokenizer_config.json says separate_vocabs), as MarianTokenizer(text_target=...) runs it.
// Returns nullptr when the folder's one tokenizer serves both sides (every other model: use
// loadTokenizer). `modelType` is config.json's model_type ("" reads nothing more than
// loadTokenizer does). Errors are prefixed with "loading target tokenizer: ".
std::unique_ptr<Tokenizer> loadTargetTokenizer(const std::filesystem::path& modelDir,
                                               std::string_view modelType);

// Loads the tokenizer of a Hugging Face model folder. `tokenizer.json` wins; otherwise
// `vocab.txt` (WordPiece) or `vocab.json` + `merges.txt` (byte-level BPE), then Marian's
// source.spm or `spiece.model` (loadSpmConventionTokenizer), and failing those
// `tokenizer.model` (SentencePiece, see loadSentencePieceTokenizer), configured by
// `tokenizer_config.json` and `config.json` when present. With a Llama tokenizer_class in
// tokenizer_config.json, add_bos_token / add_eos_token decide <s> / </s> around the text, as
// LlamaTokenizerFast rebuilds its post-processor from them. `modelType` is config.json's
// `model_type`: "roberta", "bart" and "longformer" get <s> ... </s> and trimmed offsets, "gpt2"
// nothing around the text; when empty, config.json's model_type is read, and failing that the
// vocabulary decides (<s> and </s> present: RoBERTa style). vocab.txt is lower-cased as
// tokenizer_config.json's do_lower_case says, else unless the folder name says "cased" but not
// "uncased" (BertTokenizer's own default is to lower-case). Special roles (specialId) come from
// tokenizer_config.json when it names them, else from the post-processor and the conventional
// names ([CLS], <s>, <|endoftext|>, ...). Returns nullptr when the folder holds no tokenizer
// files. Errors are prefixed with "loading tokenizer: ".
std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& modelDir,
                                         std::string_view modelType);

}  // namespace attnscope::tokenize
