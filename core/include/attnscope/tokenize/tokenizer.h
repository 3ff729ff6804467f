// The tokenizer interface: text in, tokens with ids and character spans out.
//
// Implementations (WordPiece, byte-level BPE) reproduce Hugging Face `tokenizers` exactly, ids
// and offsets, and are checked against it on every sentence of the UD treebanks.
// A Tokenizer is immutable after loading; `encode` is const and safe to call from any thread.
// Errors: loading throws FormatError naming the file and JSON path / line; `encode` throws
// InvalidArgument for text that is not valid UTF-8, naming the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope::tokenize {

enum class TokenizerKind { WordPiece, ByteLevelBpe };

enum class SpecialRole { Cls, Sep, Bos, Eos, Pad, Mask, Unk };

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

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    virtual TokenizerKind kind() const = 0;
    // "WordPiece" or "byte-level BPE", with the source file, for `attnscope-cli info`.
    virtual std::string describe() const = 0;
    // `addSpecialTokens` adds [CLS]/[SEP] or <s>/</s> as the model's post-processor says.
    virtual std::vector<Token> encode(std::string_view text, bool addSpecialTokens = true) const = 0;
    virtual std::size_t vocabSize() const = 0;
    virtual std::optional<std::int32_t> tokenToId(std::string_view token) const = 0;
    // Empty string for an id outside the vocabulary.
    virtual std::string idToToken(std::int32_t id) const = 0;
    virtual std::optional<std::int32_t> specialId(SpecialRole role) const = 0;
};

std::vector<std::int32_t> ids(const std::vector<Token>& tokens);

// Loads the tokenizer of a Hugging Face model folder. `tokenizer.json` wins; otherwise
// `vocab.txt` (WordPiece) or `vocab.json` + `merges.txt` (byte-level BPE), configured by
// `tokenizer_config.json` and `config.json` when present. `modelType` is config.json's
// `model_type` and picks defaults (lower-casing for uncased BERT vocabularies, <s>/</s> for
// RoBERTa). Returns nullptr when the folder holds no tokenizer files.
std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& modelDir,
                                         std::string_view modelType);

}  // namespace attnscope::tokenize
