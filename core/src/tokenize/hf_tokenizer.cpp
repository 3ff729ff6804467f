#include "attnscope/tokenize/hf_tokenizer.h"

#include <algorithm>

#include "attnscope/base/error.h"
#include "piece_lookup.h"
#include "word_bytes.h"

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

std::vector<NormalizedText> cut(const NormalizedText& text, const std::vector<CharRange>& ranges) {
    std::vector<NormalizedText> out;
    out.reserve(ranges.size());
    for (const CharRange& r : ranges) {
        out.emplace_back(text.begin() + static_cast<std::ptrdiff_t>(r.begin),
                         text.begin() + static_cast<std::ptrdiff_t>(r.end));
    }
    return out;
}

// One pre-tokenizer on one word, as HF's PreTokenizedString::split runs it.
std::vector<NormalizedText> preTokenize(const PreTokenizerStep& step, NormalizedText word) {
    switch (step.kind) {
        case PreTokenizerKind::Bert:
            return cut(word, bertPreTokenize(word));
        case PreTokenizerKind::ByteLevel:
            if (step.byteLevel.addPrefixSpace && word.front().cp != U' ') {
                prependText(word, U" ");
            }
            if (step.pattern) {
                return cut(word, step.pattern->split(word));
            }
            break;
        case PreTokenizerKind::Metaspace:
            return metaspace(word, step.metaspace);
        case PreTokenizerKind::Split:
            return cut(word, splitPieces(step.pattern->find(word), step.behavior, step.invert));
    }
    std::vector<NormalizedText> out;
    out.push_back(std::move(word));
    return out;
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
    const int models = (m_spec.wordPiece ? 1 : 0) + (m_spec.bpe ? 1 : 0) +
                       (m_spec.sentencePiece ? 1 : 0) + (m_spec.unigram ? 1 : 0) +
                       (m_spec.wordLevel ? 1 : 0);
    if (models != 1) {
        throw FormatError(m_spec.source +
                          ": model: expected exactly one WordPiece, BPE, Unigram, "
                          "WordLevel or SentencePiece model");
    }
    const bool byteLevel = std::any_of(
        m_spec.preTokenizers.begin(), m_spec.preTokenizers.end(),
        [](const PreTokenizerStep& s) { return s.kind == PreTokenizerKind::ByteLevel; });
    if (m_spec.bpe && m_spec.bpe->options().byteLevel != byteLevel) {
        throw FormatError(m_spec.source + ": model: a " +
                          (byteLevel ? "character-level" : "byte-level") + " BPE model " +
                          (byteLevel ? "with" : "without") + " a ByteLevel pre-tokenizer");
    }
    m_added = AddedVocabulary(m_spec.addedTokens, [this](const NormalizedText& t) {
        return normalize(t, m_spec.normalizers);
    });
    if (m_spec.post.trimOffsets) {
        const Vocab& vocab = modelVocab();
        // Stray ids far above the rest (Vocab keeps them apart) get no trimming rather than a
        // table sized by them.
        m_trimLead.resize(vocab.denseIdLimit());
        m_trimTrail.resize(vocab.denseIdLimit());
        for (std::size_t id = 0; id < vocab.denseIdLimit(); ++id) {
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
    if (m_spec.wordPiece) {
        return TokenizerKind::WordPiece;
    }
    if (m_spec.sentencePiece) {
        return TokenizerKind::SentencePiece;
    }
    if (m_spec.unigram) {
        return TokenizerKind::Unigram;
    }
    if (m_spec.wordLevel) {
        return TokenizerKind::WordLevel;
    }
    return m_spec.bpe->options().byteLevel ? TokenizerKind::ByteLevelBpe : TokenizerKind::Bpe;
}

std::string HfTokenizer::describe() const {
    const std::string tokens = std::to_string(vocabSize()) + " tokens";
    switch (kind()) {
        case TokenizerKind::WordPiece:
            return "WordPiece (" + tokens + ") from " + m_spec.source;
        case TokenizerKind::SentencePiece:
            return "SentencePiece (" + tokens + ", run by libsentencepiece) from " + m_spec.source;
        case TokenizerKind::Unigram:
            return "Unigram (" + std::to_string(m_spec.unigram->vocab().size()) + " pieces" +
                   (m_spec.unigram->options().byteFallback ? ", byte fallback" : "") + ", " +
                   tokens + ") from " + m_spec.source;
        case TokenizerKind::WordLevel:
            return "WordLevel (" + tokens +
                   (m_spec.wordLevel->hasUnk() ? "" : ", no unknown token") + ") from " +
                   m_spec.source;
        case TokenizerKind::ByteLevelBpe:
        case TokenizerKind::Bpe:
            break;
    }
    const BpeOptions& o = m_spec.bpe->options();
    return std::string(o.byteLevel ? "byte-level BPE" : "BPE") + " (" + tokens + ", " +
           std::to_string(m_spec.bpe->mergeCount()) + " merges" +
           (o.byteFallback ? ", byte fallback" : "") + ") from " + m_spec.source;
}

const Vocab& HfTokenizer::modelVocab() const {
    if (m_spec.wordPiece) {
        return m_spec.wordPiece->vocab();
    }
    if (m_spec.unigram) {
        return m_spec.unigram->vocab();
    }
    if (m_spec.wordLevel) {
        return m_spec.wordLevel->vocab();
    }
    return m_spec.sentencePiece ? m_spec.sentencePiece->vocab() : m_spec.bpe->vocab();
}

std::size_t HfTokenizer::vocabSize() const {
    return detail::sizeWithAdded(modelVocab(), m_added.tokens());
}

std::optional<std::int32_t> HfTokenizer::tokenToId(std::string_view token) const {
    return detail::idOfToken(modelVocab(), m_added.tokens(), token);
}

std::string HfTokenizer::idToToken(std::int32_t id) const {
    return detail::tokenOfId(modelVocab(), m_added.tokens(), id);
}

std::optional<std::int32_t> HfTokenizer::specialId(SpecialRole role) const {
    const auto it = m_spec.roles.find(role);
    if (it == m_spec.roles.end()) {
        return std::nullopt;
    }
    return it->second;
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
        const NormalizedText normalized =
            normalize(NormalizedText(slice.begin(), slice.end()), m_spec.normalizers);
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
    std::vector<NormalizedText> words;
    if (!segment.empty()) {
        words.push_back(segment);
    }
    for (const PreTokenizerStep& step : m_spec.preTokenizers) {
        std::vector<NormalizedText> next;
        for (NormalizedText& word : words) {
            for (NormalizedText& piece : preTokenize(step, std::move(word))) {
                if (!piece.empty()) {
                    next.push_back(std::move(piece));
                }
            }
        }
        words = std::move(next);
    }
    for (const NormalizedText& word : words) {
        encodeWord(word, out);
    }
}

void HfTokenizer::encodeWord(std::span<const NormalizedChar> word,
                             std::vector<RawToken>& out) const {
    if (m_spec.bpe) {
        encodeBpe(word, out);
        return;
    }
    std::vector<ModelToken> pieces;
    if (m_spec.wordPiece) {
        m_spec.wordPiece->tokenize(word, pieces);
    } else if (m_spec.unigram) {
        m_spec.unigram->tokenize(word, pieces);
    } else if (m_spec.wordLevel) {
        m_spec.wordLevel->tokenize(word, pieces);
    } else {
        m_spec.sentencePiece->tokenize(word, pieces);
    }
    for (const ModelToken& p : pieces) {
        pushModelToken(p.id, word.subspan(p.begin, p.end - p.begin), out);
    }
}

void HfTokenizer::encodeBpe(std::span<const NormalizedChar> word,
                            std::vector<RawToken>& out) const {
    const detail::WordBytes w = detail::wordBytes(word);
    std::vector<ModelToken> pieces;
    m_spec.bpe->tokenize(w.bytes, pieces);
    for (const ModelToken& p : pieces) {
        // A piece holding part of a character's bytes spans that whole character, as in HF.
        const std::size_t first = w.byteToChar[p.begin];
        const std::size_t last = w.byteToChar[p.end - 1];
        pushModelToken(p.id, word.subspan(first, last - first + 1), out);
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
