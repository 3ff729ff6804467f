#include "attnscope/tokenize/hf_tokenizer.h"

#include <algorithm>

#include "attnscope/base/error.h"

namespace attnscope::tokenize {
namespace {

// What ByteLevel's offset trimming strips: 'Ġ' (the stand-in for ' ') or real whitespace.
bool isTrimmable(char32_t cp) {
    return cp == 0x120 || isWhiteSpace(cp);
}

template <class Chars>
std::pair<std::uint32_t, std::uint32_t> trimCounts(const Chars& chars) {
    std::uint32_t lead = 0;
    while (lead < chars.size() && isTrimmable(chars[lead])) {
        ++lead;
    }
    std::uint32_t trail = 0;
    while (trail < chars.size() && isTrimmable(chars[chars.size() - 1 - trail])) {
        ++trail;
    }
    return {lead, trail};
}

}  // namespace

struct HfTokenizer::RawToken {
    std::int32_t id = 0;
    const std::string* text = nullptr;
    std::size_t byteBegin = 0;  // in the original input
    std::size_t byteEnd = 0;
    bool special = false;
    std::uint32_t trimLead = 0;  // characters ByteLevel's trim_offsets removes
    std::uint32_t trimTrail = 0;
};

HfTokenizer::HfTokenizer(TokenizerSpec spec) : m_spec(std::move(spec)) {
    if ((m_spec.wordPiece == nullptr) == (m_spec.bpe == nullptr)) {
        throw FormatError(m_spec.source + ": model: expected exactly one WordPiece or BPE model");
    }
    if (m_spec.bpe && m_spec.preTokenizer != PreTokenizerKind::ByteLevel) {
        throw UnsupportedModel(m_spec.source +
                               ": pre_tokenizer: BPE is supported with the ByteLevel "
                               "pre-tokenizer only");
    }
    m_added = AddedVocabulary(m_spec.addedTokens,
                              [this](const NormalizedText& t) { return normalize(t); });
    if (m_spec.preTokenizer == PreTokenizerKind::ByteLevel) {
        m_splitter = std::make_unique<ByteLevelSplitter>();
    }
    if (m_spec.post.trimOffsets) {
        const Vocab& vocab = modelVocab();
        m_trimLead.resize(vocab.idLimit());
        m_trimTrail.resize(vocab.idLimit());
        for (std::size_t id = 0; id < vocab.idLimit(); ++id) {
            const std::string& piece = vocab.piece(static_cast<std::int32_t>(id));
            if (findInvalidUtf8(piece)) {
                continue;
            }
            const auto [lead, trail] = trimCounts(decodeUtf8(piece, "vocabulary").chars);
            m_trimLead[id] = lead;
            m_trimTrail[id] = trail;
        }
    }
}

TokenizerKind HfTokenizer::kind() const {
    return m_spec.wordPiece ? TokenizerKind::WordPiece : TokenizerKind::ByteLevelBpe;
}

std::string HfTokenizer::describe() const {
    if (m_spec.wordPiece) {
        return "WordPiece (" + std::to_string(vocabSize()) + " tokens) from " + m_spec.source;
    }
    return "byte-level BPE (" + std::to_string(vocabSize()) + " tokens, " +
           std::to_string(m_spec.bpe->mergeCount()) + " merges) from " + m_spec.source;
}

const Vocab& HfTokenizer::modelVocab() const {
    return m_spec.wordPiece ? m_spec.wordPiece->vocab() : m_spec.bpe->vocab();
}

std::size_t HfTokenizer::vocabSize() const {
    // As HF's get_vocab_size(with_added_tokens=true): added tokens count when the model lacks them.
    std::size_t size = modelVocab().size();
    for (const AddedToken& t : m_added.tokens()) {
        if (!modelVocab().find(t.content)) {
            ++size;
        }
    }
    return size;
}

std::optional<std::int32_t> HfTokenizer::tokenToId(std::string_view token) const {
    for (const AddedToken& t : m_added.tokens()) {
        if (t.content == token) {
            return t.id;
        }
    }
    return modelVocab().find(token);
}

std::string HfTokenizer::idToToken(std::int32_t id) const {
    for (const AddedToken& t : m_added.tokens()) {
        if (t.id == id) {
            return t.content;
        }
    }
    return modelVocab().piece(id);
}

std::optional<std::int32_t> HfTokenizer::specialId(SpecialRole role) const {
    const auto it = m_spec.roles.find(role);
    if (it == m_spec.roles.end()) {
        return std::nullopt;
    }
    return it->second;
}

NormalizedText HfTokenizer::normalize(const NormalizedText& text) const {
    return m_spec.normalizer ? bertNormalize(text, *m_spec.normalizer) : text;
}

std::vector<Token> HfTokenizer::encode(std::string_view text, bool addSpecialTokens) const {
    const DecodedText decoded = decodeUtf8(text, "tokenizer input");
    const NormalizedText original = makeNormalizedText(decoded, 0, decoded.chars.size());
    std::vector<RawToken> raw;
    for (const AddedSplit& split : m_added.split(original, AddedTokenPass::Raw)) {
        const std::span<const NormalizedChar> slice(original.data() + split.range.begin,
                                                    split.range.end - split.range.begin);
        if (split.token) {
            pushAdded(*split.token, slice, raw);
            continue;
        }
        const NormalizedText normalized = normalize(NormalizedText(slice.begin(), slice.end()));
        for (const AddedSplit& inner : m_added.split(normalized, AddedTokenPass::Normalized)) {
            const std::span<const NormalizedChar> part(normalized.data() + inner.range.begin,
                                                       inner.range.end - inner.range.begin);
            if (inner.token) {
                pushAdded(*inner.token, part, raw);
            } else {
                encodeSegment(NormalizedText(part.begin(), part.end()), raw);
            }
        }
    }
    return finish(decoded, std::move(raw), addSpecialTokens);
}

void HfTokenizer::pushAdded(std::size_t index, std::span<const NormalizedChar> slice,
                            std::vector<RawToken>& out) const {
    const AddedToken& t = m_added.tokens()[index];
    RawToken token;
    token.id = t.id;
    token.text = &t.content;
    token.byteBegin = slice.front().origBegin;
    token.byteEnd = slice.back().origEnd;
    token.special = t.special;
    if (m_spec.post.trimOffsets) {
        // HF trims an added token by the text it matched, spaces swallowed by lstrip included.
        std::tie(token.trimLead, token.trimTrail) = trimCounts(codePoints(slice));
    }
    out.push_back(token);
}

void HfTokenizer::pushModelToken(std::int32_t id, std::span<const NormalizedChar> chars,
                                 std::vector<RawToken>& out) const {
    RawToken token;
    token.id = id;
    token.text = &modelVocab().piece(id);
    token.byteBegin = chars.front().origBegin;
    token.byteEnd = chars.back().origEnd;
    const auto index = static_cast<std::size_t>(id);
    if (index < m_trimLead.size()) {
        token.trimLead = m_trimLead[index];
        token.trimTrail = m_trimTrail[index];
    }
    out.push_back(token);
}

void HfTokenizer::encodeSegment(const NormalizedText& segment, std::vector<RawToken>& out) const {
    if (segment.empty()) {
        return;
    }
    if (m_spec.preTokenizer == PreTokenizerKind::ByteLevel) {
        encodeByteLevel(segment, out);
    } else {
        encodeWords(segment, out);
    }
}

void HfTokenizer::encodeWords(std::span<const NormalizedChar> text,
                              std::vector<RawToken>& out) const {
    std::vector<ModelToken> pieces;
    for (const CharRange& word : bertPreTokenize(text)) {
        const auto chars = text.subspan(word.begin, word.end - word.begin);
        pieces.clear();
        m_spec.wordPiece->tokenize(chars, pieces);
        for (const ModelToken& p : pieces) {
            pushModelToken(p.id, chars.subspan(p.begin, p.end - p.begin), out);
        }
    }
}

void HfTokenizer::encodeByteLevel(NormalizedText text, std::vector<RawToken>& out) const {
    if (m_spec.byteLevel.addPrefixSpace && text.front().cp != U' ') {
        prependChar(text, U' ');
    }
    std::vector<CharRange> words;
    if (m_spec.byteLevel.useRegex) {
        words = m_splitter->split(text);
    } else {
        words.push_back({0, text.size()});
    }
    std::string bytes;
    std::vector<std::size_t> byteToChar;
    std::vector<ModelToken> pieces;
    for (const CharRange& word : words) {
        bytes.clear();
        byteToChar.clear();
        for (std::size_t i = word.begin; i < word.end; ++i) {
            const std::size_t before = bytes.size();
            appendUtf8(bytes, text[i].cp);
            byteToChar.insert(byteToChar.end(), bytes.size() - before, i);
        }
        pieces.clear();
        m_spec.bpe->tokenize(bytes, pieces);
        for (const ModelToken& p : pieces) {
            // A piece holding part of a character's bytes spans that whole character, as in HF.
            const std::size_t first = byteToChar[p.begin];
            const std::size_t last = byteToChar[p.end - 1];
            pushModelToken(p.id, std::span(text).subspan(first, last - first + 1), out);
        }
    }
}

std::vector<Token> HfTokenizer::finish(const DecodedText& text, std::vector<RawToken> raw,
                                       bool addSpecialTokens) const {
    auto charIndex = [&](std::size_t byte) {
        const auto it = std::lower_bound(text.byteOffsets.begin(), text.byteOffsets.end(), byte);
        return static_cast<std::size_t>(it - text.byteOffsets.begin());
    };
    std::vector<Token> tokens;
    tokens.reserve(raw.size() + m_spec.post.prefix.size() + m_spec.post.suffix.size());
    auto pushSpecial = [&](const SpecialPiece& piece) {
        Token t;
        t.text = piece.token;
        t.id = piece.id;
        t.special = true;
        tokens.push_back(std::move(t));
    };
    if (addSpecialTokens) {
        std::for_each(m_spec.post.prefix.begin(), m_spec.post.prefix.end(), pushSpecial);
    }
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const RawToken& r = raw[i];
        Token t;
        t.text = *r.text;
        t.id = r.id;
        t.special = r.special;
        t.charBegin = charIndex(r.byteBegin);
        t.charEnd = charIndex(r.byteEnd);
        if (m_spec.post.trimOffsets) {
            // HF's process_offsets, counted in characters as its Python and Node bindings see
            // them. The first token keeps the single space add_prefix_space put there.
            std::size_t lead = r.trimLead;
            const bool isFirst = i == 0 || t.charBegin == 0;
            if (isFirst && m_spec.post.trimAddPrefixSpace && lead == 1) {
                lead = 0;
            }
            t.charBegin = std::min(t.charBegin + lead, t.charEnd);
            if (r.trimTrail > 0 && t.charEnd >= r.trimTrail) {
                t.charEnd = std::max(t.charEnd - r.trimTrail, t.charBegin);
            }
        }
        t.byteBegin = text.byteOffsets[t.charBegin];
        t.byteEnd = text.byteOffsets[t.charEnd];
        tokens.push_back(std::move(t));
    }
    if (addSpecialTokens) {
        std::for_each(m_spec.post.suffix.begin(), m_spec.post.suffix.end(), pushSpecial);
    }
    return tokens;
}

}  // namespace attnscope::tokenize
