// A tokenizer from the `tokenizer.ggml.*` metadata of a GGUF file (llama.cpp, Ollama), giving
// the token ids llama.cpp's llama_tokenize gives (src/llama-vocab.cpp) with parse_special on:
// control, user-defined and unknown-type tokens written in the text are matched as tokens.
//
// GgufVocab holds what the keys say; the GGUF reader fills it (model/gguf_tokenizer.h), so
// this library stays free of the file format. loadGgufTokenizer builds an HfTokenizer from it:
//   "llama" (llama.cpp's SPM vocabulary, llm_tokenizer_spm): ' ' becomes '▁', a '▁' is put
//       before every stretch of text (add_space_prefix, default on), and the text is merged as
//       one word, the pair whose merged token scores highest first, leftmost among equals;
//       pieces left unknown become their <0xNN> byte tokens. Run as a character-level BPE whose
//       merges are every split of every token into two tokens, ranked by the merged token's
//       score (ties: longer left part first, which reproduces llama.cpp's leftmost rule on the
//       tied '▁' runs of Llama's vocabulary).
//   "gpt2" (byte-level BPE, llm_tokenizer_bpe): the text is split by the regexes llama.cpp
//       keeps for `tokenizer.ggml.pre` (each isolating its matches in every piece), then each
//       piece is merged by the ranks of `tokenizer.ggml.merges`.
//   "bert" (llama.cpp's WPM, llm_tokenizer_wpm; BERT converted by convert_hf_to_gguf.py, whose
//       vocabulary gives word-initial tokens a '▁' and drops the "##" of continuations): the
//       text is split into words and single punctuation / CJK characters and each word, '▁'
//       first, is matched longest token first, as llama.cpp does (gguf_wpm.cpp says where that
//       differs from Hugging Face's BertTokenizer); [CLS] ... [SEP] (BOS and SEP ids) around
//       it. Tokens read back in WordPiece's spelling ("the", "##ing", "[CLS]"); `pre` is
//       ignored, as llama.cpp ignores it for this type.
// Token types (tokenizer.ggml.token_type): 1 normal, 2 unknown, 3 control, 4 user-defined,
// 5 unused, 6 byte. Types 2, 3 and 4 are matched in the raw text before anything else, as are
// the end-of-generation and fill-in-the-middle tokens llama.cpp recognises by their text.
// add_bos_token / add_eos_token put BOS / EOS around the text when encode is asked for special
// tokens; missing keys take llama.cpp's defaults (BOS for "llama" and the Llama 3 family).
//
// Known differences from llama.cpp, all outside its test vocabularies: special tokens are matched
// leftmost-longest (Hugging Face's rule) where llama.cpp takes the longest token first, which
// differs only when one token's end overlaps another's start (Falcon's ">>TITLE<<" before
// "<|endoftext|>"); Phi-3's tokens swallow any Unicode whitespace after them where llama.cpp
// strips ASCII whitespace only; the fill-in-the-middle names count as control tokens even when
// the file names its FIM ids; a continuation byte missing from a byte-level vocabulary does not
// stop merges the way llama.cpp's leftover symbol does.
//
// Errors: FormatError "<file>: key 'tokenizer.ggml.X': <reason>" for missing or inconsistent
// keys (array lengths, duplicate tokens, merges naming unknown pieces, a BOS asked for without
// an id); UnsupportedModel naming the value and the file for a tokenizer.ggml.model other than
// "llama", "gpt2" and "bert", or a `pre` whose regexes are not implemented here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::tokenize {

// llama.cpp's llama_token_type (the values of tokenizer.ggml.token_type).
enum class GgufTokenType : std::int32_t {
    Undefined = 0,
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

struct GgufVocab {
    std::string source;     // the file, for messages and describe()
    std::string modelName;  // general.name: llama.cpp keys Phi-3's special-token rstrip on it
    std::string model;      // tokenizer.ggml.model: "llama", "gpt2", "bert", "t5", ...
    std::string pre;        // tokenizer.ggml.pre; empty when absent ("default")
    std::vector<std::string> tokens;
    std::vector<float> scores;             // empty when absent (all 0)
    std::vector<std::int32_t> tokenTypes;  // empty when absent (all normal)
    std::vector<std::string> merges;       // "left right", by rank
    // Special token ids as stored (u32 in the file); absent keys take llama.cpp's defaults.
    std::optional<std::uint64_t> bosId;
    std::optional<std::uint64_t> eosId;
    std::optional<std::uint64_t> unkId;
    std::optional<std::uint64_t> padId;
    std::optional<std::uint64_t> sepId;
    std::optional<std::uint64_t> maskId;
    std::optional<bool> addBos;
    std::optional<bool> addEos;
    std::optional<bool> addSpacePrefix;
    // tokenizer.ggml.normalizer.lowercase / strip_accents ("bert" vocabularies; llama.cpp's
    // defaults: lower-case, and strip accents when lower-casing).
    std::optional<bool> lowercase;
    std::optional<bool> stripAccents;
};

std::unique_ptr<Tokenizer> loadGgufTokenizer(const GgufVocab& vocab);

}  // namespace attnscope::tokenize
