// Pieces of the GGUF vocabulary loader (gguf_vocab.cpp): llama.cpp's pre-tokenizers for
// byte-level vocabularies (gguf_pre_types.cpp), the BPE merges of both BPE vocabulary types
// (gguf_merges.cpp) and the WPM tokenizer of "bert" vocabularies (gguf_wpm.cpp). Private to
// attnscope_tokenize.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/tokenize/added_vocabulary.h"
#include "attnscope/tokenize/bpe.h"
#include "attnscope/tokenize/gguf_vocab.h"
#include "attnscope/tokenize/tokenizer.h"
#include "attnscope/tokenize/vocab.h"

namespace attnscope::tokenize::detail {

// The pre-tokenizer llm_tokenizer_bpe (llama.cpp's src/llama-vocab.cpp) runs for one
// `tokenizer.ggml.pre` value.
struct GgufPreType {
    // Applied in order to every piece the previous ones left; each splits a piece into its
    // matches and the text between them (HF's Split with Isolated behaviour). Written for
    // RegexSplitter: `\s` is the White_Space property, as llama.cpp's own tables have it.
    std::vector<std::string> patterns;
    bool ignoreMerges = false;  // a piece that is itself a token is taken whole (Llama 3)
    bool addBos = false;        // add_bos_token when the file does not say
};

// The pre-tokenizer llama.cpp uses for `pre` ("" when the key is absent: "default"), or
// nullopt when AttnScope does not implement it.
std::optional<GgufPreType> ggufPreType(std::string_view pre);

// The `pre` values ggufPreType knows, for messages.
std::string ggufPreTypeNames();

// A pattern matching every character that holds a byte the byte-level vocabulary has no token
// for, or "" when it has them all. llama.cpp keeps such a byte as a symbol that never merges and
// gives no token, so no merge reaches across it; isolating its character does the same. Exact
// for ASCII bytes (Falcon lacks a few control characters); for a missing lead byte the whole
// character is cut off (in real vocabularies only unassigned planes); a missing continuation
// byte is left alone.
std::string ggufUnmergeablePattern(const Vocab& pieces);

// "<file>: key 'tokenizer.ggml.<key>'", the start of every message about one key.
std::string ggufKeyWhere(const GgufVocab& vocab, std::string_view key);

// A "llama" vocabulary's merges, ranked so that BPE reproduces llama.cpp's SPM merging: every
// split of a token into two tokens, best score of the merged token first; among equal scores
// the longer left part first (llama.cpp merges the leftmost of equal-scored pairs, which on
// runs of one piece means growing the left one), then the shorter right part, then the id.
// `pieces` is the vocabulary the tokens make.
std::vector<BpeMerge> spmMerges(const std::vector<std::string>& tokens,
                                const std::vector<float>& scores, const Vocab& pieces);

// A "gpt2" vocabulary's `tokenizer.ggml.merges`, as llama.cpp reads them: split at the first
// space after the first byte, an entry without one ignored, a repeated pair keeping its first
// rank. FormatError naming the entry when a part, or the two joined, is not a token.
std::vector<BpeMerge> bpeMerges(const GgufVocab& vocab, const Vocab& pieces);

// What a "bert" (WPM) vocabulary is made of once gguf_vocab.cpp has checked its keys: the
// tokens as stored ('▁' word starts), the tokens matched in the raw text, and the special ids
// with llama.cpp's defaults applied.
struct GgufWpmSetup {
    std::vector<std::string> tokens;
    std::vector<AddedToken> added;
    std::int32_t cls = 0;  // the BOS id, put before the text
    std::int32_t sep = 0;  // put after it
    std::optional<std::int32_t> unk;
    std::optional<std::int32_t> pad;
    std::optional<std::int32_t> mask;
    std::optional<std::int32_t> eos;
};

// llama.cpp's WPM tokenizer (gguf_wpm.cpp). FormatError naming the tokens when two of them
// read back to the same WordPiece spelling.
std::unique_ptr<Tokenizer> makeGgufWpmTokenizer(const GgufVocab& vocab, GgufWpmSetup setup);

}  // namespace attnscope::tokenize::detail
