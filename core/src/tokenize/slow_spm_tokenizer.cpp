#include "attnscope/tokenize/slow_spm_tokenizer.h"

#include <algorithm>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/unicode.h"
#include "slow_spm_text.h"

namespace attnscope::tokenize {
namespace {

constexpr char32_t kMetaspace = U'\u2581';

void lstrip(NormalizedText& text) {
    const auto first = std::find_if(text.begin(), text.end(), [](const NormalizedChar& c) {
        return !detail::isPythonSpace(c.cp);
    });
    text.erase(text.begin(), first);
}

void rstrip(NormalizedText& text) {
    while (!text.empty() && detail::isPythonSpace(text.back().cp)) {
        text.pop_back();
    }
}

// The characters SentencePiece was given, by the byte it saw first of each.
std::vector<std::size_t> charOfByte(const NormalizedText& text, std::string& utf8) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const std::size_t before = utf8.size();
        appendUtf8(utf8, text[i].cp);
        out.insert(out.end(), utf8.size() - before, i);
    }
    return out;
}

// A piece's characters [charBegin, charEnd) of `text` back to the user's bytes; a piece with no
// surface gets an empty span where it stands.
template <class Piece>
void setOrigin(const NormalizedText& text, Piece& p) {
    if (p.charBegin >= p.charEnd) {
        const std::size_t at = p.charBegin < text.size() ? text[p.charBegin].origBegin
                               : text.empty()            ? 0
                                                         : text.back().origEnd;
        p.origBegin = at;
        p.origEnd = at;
        return;
    }
    p.origBegin = text[p.charBegin].origBegin;
    p.origEnd = text[p.charEnd - 1].origEnd;
}

}  // namespace

struct SlowSpmTokenizer::Piece {
    std::string text;
    std::int32_t id = 0;
    std::size_t charBegin = 0;  // in the text SentencePiece saw, until mapped back
    std::size_t charEnd = 0;
    std::size_t origBegin = 0;  // bytes of the user's text
    std::size_t origEnd = 0;
    bool special = false;
};

struct SlowSpmTokenizer::Segment {
    NormalizedText text;
    std::optional<std::size_t> added;  // index into m_spec.added
};

SlowSpmTokenizer::SlowSpmTokenizer(SlowSpmSpec spec) : m_spec(std::move(spec)) {
    if (!m_spec.model) {
        throw FormatError(m_spec.source + ": no SentencePiece model");
    }
    for (const SlowAddedToken& t : m_spec.added) {
        if (t.content.empty() || findInvalidUtf8(t.content)) {
            throw FormatError(m_spec.source + ": added token " + std::to_string(t.id) +
                              ": empty or not UTF-8");
        }
        m_addedVocab.add(t.content, t.id);
        m_addedById.emplace(t.id, t.content);
        m_addedChars.push_back(decodeUtf8(t.content, "added token").chars);
        m_addedByFirst[m_addedChars.back().front()].push_back(m_addedChars.size() - 1);
    }
}

std::optional<std::int32_t> SlowSpmTokenizer::tokenToId(std::string_view token) const {
    if (const auto id = m_addedVocab.find(token)) {
        return id;
    }
    return m_spec.vocabJson ? m_spec.vocabJson->find(token) : m_spec.model->vocab().find(token);
}

std::string SlowSpmTokenizer::idToToken(std::int32_t id) const {
    if (const auto it = m_addedById.find(id); it != m_addedById.end()) {
        return it->second;
    }
    return m_spec.vocabJson ? m_spec.vocabJson->piece(id) : m_spec.model->vocab().piece(id);
}

std::optional<std::int32_t> SlowSpmTokenizer::specialId(SpecialRole role) const {
    const auto it = m_spec.roles.find(role);
    return it == m_spec.roles.end() ? std::nullopt : std::optional(it->second);
}

std::int32_t SlowSpmTokenizer::idOfPiece(const std::string& piece) const {
    if (const auto id = m_addedVocab.find(piece)) {
        return *id;
    }
    if (m_spec.vocabJson) {
        return m_spec.vocabJson->find(piece).value_or(m_spec.unkId);
    }
    return m_spec.model->pieceToId(piece);
}

std::vector<SlowSpmTokenizer::Segment> SlowSpmTokenizer::splitOnAdded(
    const NormalizedText& text) const {
    std::vector<Segment> out;
    std::size_t textStart = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        // Leftmost-longest, as transformers' Trie.split cuts.
        std::optional<std::size_t> best;
        std::size_t bestLength = 0;
        const auto candidates = m_addedByFirst.find(text[i].cp);
        if (candidates == m_addedByFirst.end()) {
            ++i;
            continue;
        }
        for (const std::size_t k : candidates->second) {
            const std::u32string& content = m_addedChars[k];
            if (content.size() > bestLength && content.size() <= text.size() - i &&
                std::equal(content.begin(), content.end(), text.begin() + static_cast<long>(i),
                           [](char32_t a, const NormalizedChar& b) { return a == b.cp; })) {
                best = k;
                bestLength = content.size();
            }
        }
        if (!best) {
            ++i;
            continue;
        }
        const auto at = text.begin() + static_cast<long>(i);
        if (i > textStart) {
            out.push_back({NormalizedText(text.begin() + static_cast<long>(textStart), at), {}});
        }
        out.push_back({NormalizedText(at, at + static_cast<long>(bestLength)), best});
        i += bestLength;
        textStart = i;
    }
    if (textStart < text.size()) {
        out.push_back(
            {NormalizedText(text.begin() + static_cast<long>(textStart), text.end()), {}});
    }
    return out;
}

// PreTrainedTokenizer.tokenize's loop over the cut text: an added token's lstrip / rstrip strip
// the neighbouring text, single_word glues the token to a neighbour that does not end / start
// with ' ' (it is then plain text).
void SlowSpmTokenizer::applyStripping(std::vector<Segment>& segments) const {
    for (std::size_t i = 0; i < segments.size(); ++i) {
        if (!segments[i].added) {
            continue;
        }
        const SlowAddedToken& t = m_spec.added[*segments[i].added];
        Segment* left = i > 0 && !segments[i - 1].text.empty() ? &segments[i - 1] : nullptr;
        Segment* right =
            i + 1 < segments.size() && !segments[i + 1].text.empty() ? &segments[i + 1] : nullptr;
        if (t.rstrip && right != nullptr) {
            lstrip(right->text);
        }
        if (t.lstrip && left != nullptr) {
            rstrip(left->text);
        }
        if (t.singleWord && left != nullptr && left->text.back().cp != U' ') {
            left->text.insert(left->text.end(), segments[i].text.begin(), segments[i].text.end());
            left->added.reset();
            segments[i].text.clear();
        } else if (t.singleWord && right != nullptr && right->text.front().cp != U' ') {
            right->text.insert(right->text.begin(), segments[i].text.begin(),
                               segments[i].text.end());
            right->added.reset();
            segments[i].text.clear();
        }
    }
}

std::vector<Token> SlowSpmTokenizer::encode(std::string_view input, bool addSpecialTokens) const {
    const DecodedText decoded = decodeUtf8(input, "tokenizer input");
    NormalizedText text = makeNormalizedText(decoded, 0, decoded.chars.size());
    if (m_spec.lowercase) {
        NormalizedText lowered;
        lowered.reserve(text.size());
        for (const Segment& s : splitOnAdded(text)) {
            if (s.added) {
                lowered.insert(lowered.end(), s.text.begin(), s.text.end());
            } else {
                // PreTrainedTokenizer.tokenize's do_lower_case pass: str.lower() on one character
                // at a time (its regex takes one character per match, so no Final_Sigma
                // context), which is lowercaseText's per-character rule.
                const NormalizedText low = lowercaseText(s.text);
                lowered.insert(lowered.end(), low.begin(), low.end());
            }
        }
        text = std::move(lowered);
    }
    std::vector<Segment> segments = splitOnAdded(text);
    applyStripping(segments);
    std::vector<Piece> pieces;
    for (const Segment& s : segments) {
        if (s.text.empty()) {
            continue;
        }
        if (s.added) {
            const SlowAddedToken& t = m_spec.added[*s.added];
            pieces.push_back(
                {t.content, t.id, 0, 0, s.text.front().origBegin, s.text.back().origEnd, true});
        } else {
            tokenizeText(s.text, pieces);
        }
    }
    std::vector<std::int32_t> suffix =
        addSpecialTokens ? m_spec.suffix : std::vector<std::int32_t>{};
    if (m_spec.suffixUnlessPresent && suffix.size() == 1 && !pieces.empty() &&
        pieces.back().id == suffix.front()) {
        suffix.clear();
    }
    auto charIndex = [&](std::size_t byte) {
        const auto it =
            std::lower_bound(decoded.byteOffsets.begin(), decoded.byteOffsets.end(), byte);
        return static_cast<std::size_t>(it - decoded.byteOffsets.begin());
    };
    std::vector<Token> tokens;
    tokens.reserve(pieces.size() + m_spec.prefix.size() + suffix.size());
    auto pushSpecial = [&](std::int32_t id) {
        Token t;
        t.text = idToToken(id);
        t.id = id;
        t.special = true;
        tokens.push_back(std::move(t));
    };
    if (addSpecialTokens) {
        std::for_each(m_spec.prefix.begin(), m_spec.prefix.end(), pushSpecial);
    }
    for (Piece& p : pieces) {
        Token t;
        t.text = std::move(p.text);
        t.id = p.id;
        t.special = p.special;
        t.byteBegin = p.origBegin;
        t.byteEnd = p.origEnd;
        t.charBegin = charIndex(p.origBegin);
        t.charEnd = charIndex(p.origEnd);
        tokens.push_back(std::move(t));
    }
    std::for_each(suffix.begin(), suffix.end(), pushSpecial);
    return tokens;
}

void SlowSpmTokenizer::tokenizeText(const NormalizedText& text, std::vector<Piece>& out) const {
    switch (m_spec.convention) {
        case SpmConvention::Marian: {
            detail::LanguageCodeSplit split = detail::removeLanguageCode(text);
            if (split.code) {
                const std::string code = toUtf8(*split.code);
                out.push_back({code, idOfPiece(code), 0, 0, split.code->front().origBegin,
                               split.code->back().origEnd, false});
            }
            encodeSpm(split.rest, out);
            return;
        }
        case SpmConvention::Albert:
            encodeSpm(detail::albertPreprocess(
                          text, {m_spec.removeSpace, m_spec.keepAccents, m_spec.lowercase}),
                      out);
            return;
        case SpmConvention::T5:
            encodeSpm(text, out);
            return;
    }
}

void SlowSpmTokenizer::encodeSpm(const NormalizedText& text, std::vector<Piece>& out) const {
    std::string utf8;
    const std::vector<std::size_t> byteChar = charOfByte(text, utf8);
    for (SpmPiece& sp : m_spec.model->encodeText(utf8)) {
        Piece p;
        p.charBegin = sp.begin < byteChar.size() ? byteChar[sp.begin] : text.size();
        p.charEnd = sp.end > sp.begin ? byteChar[sp.end - 1] + 1 : p.charBegin;
        p.id = idOfPiece(sp.piece);
        p.text = std::move(sp.piece);
        if (m_spec.convention == SpmConvention::Albert) {
            splitDigitComma(text, std::move(p), out);
        } else {
            setOrigin(text, p);
            out.push_back(std::move(p));
        }
    }
}

// AlbertTokenizer._tokenize: a piece ending in a digit and ',' ("▁12,") is encoded again without
// its '▁'s and ',' (keeping a leading '▁' only where the piece had one), then ',' follows.
void SlowSpmTokenizer::splitDigitComma(const NormalizedText& text, Piece piece,
                                       std::vector<Piece>& out) const {
    const std::u32string chars = decodeUtf8(piece.text, "SentencePiece piece").chars;
    if (chars.size() < 2 || chars.back() != U',' ||
        !detail::isPythonDigit(chars[chars.size() - 2])) {
        setOrigin(text, piece);
        out.push_back(std::move(piece));
        return;
    }
    std::u32string digits(chars.begin(), chars.end() - 1);
    std::erase(digits, kMetaspace);
    std::vector<std::string> parts = m_spec.model->encodePieces(toUtf8(digits));
    const std::string metaspace = toUtf8(std::u32string(1, kMetaspace));
    if (chars.front() != kMetaspace && !parts.empty() && parts.front().starts_with(metaspace)) {
        if (parts.front() == metaspace) {
            parts.erase(parts.begin());
        } else {
            parts.front().erase(0, metaspace.size());
        }
    }
    const bool ownComma = piece.charEnd - piece.charBegin >= 2;
    const std::size_t split = ownComma ? piece.charEnd - 1 : piece.charBegin;
    for (std::string& part : parts) {
        Piece p{{}, idOfPiece(part), piece.charBegin, ownComma ? split : piece.charEnd};
        p.text = std::move(part);
        setOrigin(text, p);
        out.push_back(std::move(p));
    }
    Piece comma{",", idOfPiece(","), split, piece.charEnd};
    setOrigin(text, comma);
    out.push_back(std::move(comma));
}

}  // namespace attnscope::tokenize
