// llama.cpp's WPM tokenizer for "bert" GGUF vocabularies (llm_tokenizer_wpm_session in
// src/llama-vocab.cpp of the llama.cpp that node-llama-cpp 3.21.1 ships), written anew.
//
// The converter (BertModel.set_vocab) stores BERT's vocab.txt with a '▁' before every word-start
// token and without the "##" of continuation tokens (control tokens as they are). llama.cpp then
// tokenizes each piece of text between special tokens like this:
//   1. per code point: with strip_accents, the code point becomes the FIRST code point of its
//      NFD ("é" -> "e", a Hangul syllable -> its leading jamo); White_Space ends the word;
//      U+0000, U+FFFD and \p{C} except unassigned (Cc, Cf, Co, Cs) are dropped; with
//      strip_accents every \p{M} (Mn, Mc and Me) is dropped; the rest is lower-cased by the
//      simple one-to-one mapping when lowercase is on; \p{P}, ASCII \p{S} and CJK ideographs
//      (the checks made on the code point before lower-casing) stand alone as one-character
//      words;
//   2. each word, '▁' first, is cut into the longest tokens from the left, byte for byte; when
//      some part matches no token the whole word becomes the unknown token.
// Hugging Face's BertTokenizer differs in a few places, which is why this is not its WordPiece
// pipeline: it keeps the whole NFD but for Mn marks (so Mc and Me marks, and a Hangul
// syllable's other jamo, stay), drops U+000B, U+000C and U+0085 where llama.cpp splits words
// there, lower-cases 'İ' to two code points when accents are kept, and makes any word over 100
// characters [UNK]. Categories and decompositions come from utf8proc, whose Unicode version
// may differ from the tables llama.cpp was generated from on recently assigned characters.
#include <algorithm>
#include <unordered_map>

#include <utf8proc.h>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/bert_normalizer.h"
#include "attnscope/tokenize/normalized_text.h"
#include "attnscope/tokenize/unicode.h"
#include "gguf_internal.h"

namespace attnscope::tokenize::detail {

namespace {

// U+2581, the phantom space of a word-start token.
constexpr std::string_view kPhantom = "\xE2\x96\x81";
constexpr std::int32_t kControlType = 3;  // llama_token_type LLAMA_TOKEN_TYPE_CONTROL

utf8proc_category_t categoryOf(char32_t cp) {
    return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

// The first code point of cp's NFD (llama.cpp's unicode_cpts_normalize_nfd table). Nothing
// below U+00C0 decomposes canonically.
char32_t nfdFirst(char32_t cp) {
    if (cp < 0xC0) {
        return cp;
    }
    return nfd(makeDetachedText(std::u32string(1, cp))).front().cp;
}

bool isMark(char32_t cp) {
    const utf8proc_category_t c = categoryOf(cp);
    return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

// One word of the text: its code points after step 1, each with the character it came from.
struct Word {
    std::u32string chars;
    std::vector<NormalizedChar> sources;
};

struct Normalization {
    bool lowercase = true;
    bool stripAccents = true;
};

// Step 1 on one piece of text between special tokens.
std::vector<Word> wpmWords(std::span<const NormalizedChar> text, Normalization opts) {
    std::vector<Word> words(1);
    const auto endWord = [&] {
        if (!words.back().chars.empty()) {
            words.emplace_back();
        }
    };
    for (const NormalizedChar& source : text) {
        const char32_t cp = opts.stripAccents ? nfdFirst(source.cp) : source.cp;
        if (isWhiteSpace(cp)) {
            endWord();
            continue;
        }
        if (cp == 0 || cp == 0xFFFD || isBertControl(cp) || (opts.stripAccents && isMark(cp))) {
            continue;
        }
        const char32_t out =
            opts.lowercase
                ? static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp)))
                : cp;
        const bool alone = isBertPunctuation(cp) || isChineseIdeograph(cp);
        if (alone) {
            endWord();
        }
        words.back().chars.push_back(out);
        words.back().sources.push_back(source);
        if (alone) {
            endWord();
        }
    }
    if (words.back().chars.empty()) {
        words.pop_back();
    }
    return words;
}

// Tokens in WordPiece's spelling: the converter's rewrite undone. Control tokens were kept as
// they are, and older converters also kept every "[...]" token whatever its type (llama.cpp's
// own ggml-vocab-bert-bge.gguf stores "[unused0]" so, as a normal token).
std::vector<std::string> wordPieceSpelling(const GgufVocab& vocab,
                                           const std::vector<std::string>& tokens) {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    for (std::size_t id = 0; id < tokens.size(); ++id) {
        const std::string& t = tokens[id];
        const bool control = !vocab.tokenTypes.empty() && vocab.tokenTypes[id] == kControlType;
        if (control || (t.size() >= 2 && t.front() == '[' && t.back() == ']')) {
            out.push_back(t);
        } else if (t.starts_with(kPhantom)) {
            out.push_back(t.substr(kPhantom.size()));
        } else {
            out.push_back("##" + t);
        }
    }
    return out;
}

class GgufWpmTokenizer final : public Tokenizer {
public:
    GgufWpmTokenizer(const GgufVocab& vocab, GgufWpmSetup setup)
        : m_source(vocab.source),
          m_setup(std::move(setup)),
          m_pieces(wordPieceSpelling(vocab, m_setup.tokens)),
          m_added(m_setup.added, [](const NormalizedText& t) { return t; }) {
        m_opts.lowercase = vocab.lowercase.value_or(true);
        m_opts.stripAccents = vocab.stripAccents.value_or(m_opts.lowercase);
        for (std::size_t id = 0; id < m_setup.tokens.size(); ++id) {
            const auto i = static_cast<std::int32_t>(id);
            m_byText.emplace(m_setup.tokens[id], i);
            m_maxTokenBytes = std::max(m_maxTokenBytes, m_setup.tokens[id].size());
            const auto [it, fresh] = m_byPiece.emplace(m_pieces[id], i);
            if (!fresh) {
                throw FormatError(vocab.source + ": key 'tokenizer.ggml.tokens': tokens " +
                                  std::to_string(it->second) + " and " + std::to_string(id) +
                                  " are both the WordPiece token \"" + clipped(m_pieces[id]) +
                                  "\" once the converter's '\u2581' is undone");
            }
        }
    }

    TokenizerKind kind() const override { return TokenizerKind::WordPiece; }

    std::string describe() const override {
        return "WordPiece (" + std::to_string(vocabSize()) +
               " tokens, llama.cpp's WPM rules) from " + m_source;
    }

    std::size_t vocabSize() const override { return m_pieces.size(); }

    std::optional<std::int32_t> tokenToId(std::string_view token) const override {
        const auto it = m_byPiece.find(std::string(token));
        return it == m_byPiece.end() ? std::nullopt : std::optional<std::int32_t>(it->second);
    }

    std::string idToToken(std::int32_t id) const override {
        return id < 0 || static_cast<std::size_t>(id) >= m_pieces.size()
                   ? std::string()
                   : m_pieces[static_cast<std::size_t>(id)];
    }

    std::optional<std::int32_t> specialId(SpecialRole role) const override {
        switch (role) {
            case SpecialRole::Cls:
                return m_setup.cls;
            case SpecialRole::Sep:
                return m_setup.sep;
            case SpecialRole::Unk:
                return m_setup.unk;
            case SpecialRole::Pad:
                return m_setup.pad;
            case SpecialRole::Mask:
                return m_setup.mask;
            case SpecialRole::Eos:
                return m_setup.eos;
            case SpecialRole::Bos:
                break;
        }
        return std::nullopt;
    }

    std::vector<Token> encode(std::string_view text, bool addSpecialTokens) const override;

private:
    Token token(std::int32_t id, const NormalizedChar& first, const NormalizedChar& last,
                bool special) const;
    void encodeWord(const Word& word, std::vector<Token>& out) const;

    std::string m_source;
    GgufWpmSetup m_setup;
    std::vector<std::string> m_pieces;  // WordPiece spelling, by id
    AddedVocabulary m_added;
    Normalization m_opts;
    std::unordered_map<std::string, std::int32_t> m_byText;   // as stored
    std::unordered_map<std::string, std::int32_t> m_byPiece;  // as m_pieces
    std::size_t m_maxTokenBytes = 0;
};

Token GgufWpmTokenizer::token(std::int32_t id, const NormalizedChar& first,
                              const NormalizedChar& last, bool special) const {
    Token t;
    t.id = id;
    t.text = m_pieces[static_cast<std::size_t>(id)];
    t.byteBegin = first.origBegin;
    t.byteEnd = last.origEnd;
    t.special = special;
    return t;
}

// Step 2: the longest token at each byte of "▁" + word, as llama.cpp searches it.
void GgufWpmTokenizer::encodeWord(const Word& word, std::vector<Token>& out) const {
    std::string bytes(kPhantom);
    std::vector<std::size_t> charOf(kPhantom.size(), 0);  // the word character of each byte
    for (std::size_t k = 0; k < word.chars.size(); ++k) {
        appendUtf8(bytes, word.chars[k]);
        charOf.resize(bytes.size(), k);
    }
    const std::size_t first = out.size();
    for (std::size_t i = 0; i < bytes.size();) {
        std::size_t j = std::min(bytes.size(), i + m_maxTokenBytes);
        for (; j > i; --j) {
            const auto it = m_byText.find(bytes.substr(i, j - i));
            if (it != m_byText.end()) {
                out.push_back(
                    token(it->second, word.sources[charOf[i]], word.sources[charOf[j - 1]], false));
                break;
            }
        }
        if (j == i) {
            out.resize(first);
            break;
        }
        i = j;
    }
    if (out.size() == first) {
        if (!m_setup.unk) {
            throw FormatError(m_source +
                              ": key 'tokenizer.ggml.unknown_token_id': the text holds a word "
                              "no token spells, and the vocabulary has no unknown token");
        }
        out.push_back(token(*m_setup.unk, word.sources.front(), word.sources.back(), false));
    }
}

std::vector<Token> GgufWpmTokenizer::encode(std::string_view text, bool addSpecialTokens) const {
    const DecodedText decoded = decodeUtf8(text, "tokenizer input");
    const NormalizedText original = makeNormalizedText(decoded, 0, decoded.chars.size());
    std::vector<Token> out;
    if (addSpecialTokens) {
        out.push_back(token(m_setup.cls, {}, {}, true));
    }
    for (const AddedSplit& split : m_added.split(original, AddedTokenPass::Raw)) {
        const std::span<const NormalizedChar> slice(original.data() + split.range.begin,
                                                    split.range.end - split.range.begin);
        if (split.token) {
            const AddedToken& added = m_added.tokens()[*split.token];
            out.push_back(token(added.id, slice.front(), slice.back(), added.special));
            continue;
        }
        for (const Word& word : wpmWords(slice, m_opts)) {
            encodeWord(word, out);
        }
    }
    if (addSpecialTokens) {
        out.push_back(token(m_setup.sep, {}, {}, true));
    }
    // Code point spans from the byte spans (special tokens around the text keep 0..0).
    for (Token& t : out) {
        const auto at = [&](std::size_t byte) {
            return static_cast<std::size_t>(
                std::lower_bound(decoded.byteOffsets.begin(), decoded.byteOffsets.end(), byte) -
                decoded.byteOffsets.begin());
        };
        t.charBegin = at(t.byteBegin);
        t.charEnd = at(t.byteEnd);
    }
    return out;
}

}  // namespace

std::unique_ptr<Tokenizer> makeGgufWpmTokenizer(const GgufVocab& vocab, GgufWpmSetup setup) {
    return std::make_unique<GgufWpmTokenizer>(vocab, std::move(setup));
}

}  // namespace attnscope::tokenize::detail
