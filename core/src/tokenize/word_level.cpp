#include "attnscope/tokenize/word_level.h"

#include "attnscope/base/error.h"

namespace attnscope::tokenize {

WordLevelModel::WordLevelModel(Vocab vocab, WordLevelOptions options)
    : m_vocab(std::move(vocab)), m_options(std::move(options)) {
    m_unkId = m_vocab.find(m_options.unkToken);
}

void WordLevelModel::tokenize(std::span<const NormalizedChar> word,
                              std::vector<ModelToken>& out) const {
    const std::string text = toUtf8(word);
    if (const auto id = m_vocab.find(text)) {
        out.push_back({*id, 0, word.size()});
        return;
    }
    if (!m_unkId) {
        throw FormatError(m_options.source + ".unk_token: \"" + clipped(m_options.unkToken) +
                          "\" is not in the vocabulary, so the unknown word \"" + clipped(text) +
                          "\" cannot be encoded (Hugging Face's tokenizers fails the same way: "
                          "\"Missing [UNK] token from the vocabulary\")");
    }
    out.push_back({*m_unkId, 0, word.size()});
}

}  // namespace attnscope::tokenize
