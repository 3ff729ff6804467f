// What token ids mean: a vocabulary's pieces and its special tokens, apart from the pipeline that
// turns text into ids. Every Tokenizer is one (tokenizer.h). loadTokenVocabulary reads one alone
// from a model folder's tokenizer files without building that pipeline: all that labelling
// given token ids needs (attnscope-cli --token-ids), and it works for files whose pipeline
// AttnScope cannot run (an unsupported normalizer, a BPE with dropout).
// Immutable after loading; every method is const and safe to call from any thread.
// loadTokenVocabulary throws FormatError naming the file and the JSON path or line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace attnscope::tokenize {

enum class SpecialRole { Cls, Sep, Bos, Eos, Pad, Mask, Unk };

class TokenVocabulary {
public:
    virtual ~TokenVocabulary() = default;

    // As Hugging Face's get_vocab_size(with_added_tokens=true).
    virtual std::size_t vocabSize() const = 0;
    virtual std::optional<std::int32_t> tokenToId(std::string_view token) const = 0;
    // Empty string for an id outside the vocabulary.
    virtual std::string idToToken(std::int32_t id) const = 0;
    virtual std::optional<std::int32_t> specialId(SpecialRole role) const = 0;
};

// The pieces and special tokens of a model folder's tokenizer files, in loadTokenizer's order
// of preference: tokenizer.json (model.vocab of any model type, a Unigram list included, and
// added_tokens), else vocab.txt, else vocab.json, else tokenizer.model. Special roles are found
// as loadTokenizer finds them: the post-processor's tokens around the text, the conventional
// names ([CLS], <s>, <|endoftext|>, ...) and tokenizer_config.json's cls_token, bos_token, ...
// Returns nullptr when the folder holds none of these files. Errors are prefixed with
// "reading vocabulary: ".
std::unique_ptr<const TokenVocabulary> loadTokenVocabulary(const std::filesystem::path& modelDir);

}  // namespace attnscope::tokenize
