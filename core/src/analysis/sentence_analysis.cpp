#include "attnscope/analysis/sentence_analysis.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "attnscope/base/error.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "attnscope/tokenize/unicode.h"

namespace attnscope::analysis {

namespace {

std::int32_t padId(const model::Model& m) {
    if (const tokenize::TokenVocabulary* vocab = m.vocabulary()) {
        if (auto id = vocab->specialId(tokenize::SpecialRole::Pad)) {
            return *id;
        }
    }
    if (m.spec.padTokenId) {
        return *m.spec.padTokenId;
    }
    throw InvalidArgument(m.dir.string() + ": padding asked for, but the model names no pad token");
}

// A custom mask drawn for an earlier version of the sentence: keep what overlaps, allow the
// rest, so editing the text never throws away the user's mask.
void fitCustomMask(forward::MaskChoice& mask, int n) {
    if (mask.kind != forward::MaskKind::Custom || !mask.custom || mask.custom->rows() == n) {
        return;
    }
    BoolMatrix fitted = BoolMatrix::Ones(n, n);
    const auto keep = std::min<Eigen::Index>(n, mask.custom->rows());
    fitted.topLeftCorner(keep, keep) = mask.custom->topLeftCorner(keep, keep);
    mask.custom = std::move(fitted);
}

SentenceAnalysis run(const model::Model& m, SentenceAnalysis a,
                     const forward::ForwardOptions& options) {
    const int padding = options.mask.paddingTokens;
    if (padding > 0) {
        const std::int32_t pad = padId(m);
        for (int i = 0; i < padding; ++i) {
            tokenize::Token t;
            t.id = pad;
            t.text = idPiece(m, pad);
            t.special = true;
            a.tokens.push_back(t);
        }
    }
    forward::ForwardInput input;
    input.tokenIds = tokenize::ids(a.tokens);
    forward::ForwardOptions fitted = options;
    fitCustomMask(fitted.mask, static_cast<int>(input.tokenIds.size()));
    a.forward = forward::runForward(m, input, fitted);
    a.stats = headStats(a.forward);
    return a;
}

}  // namespace

std::string idPiece(const model::Model& m, std::int32_t id) {
    const tokenize::TokenVocabulary* vocab = m.vocabulary();
    std::string piece = vocab != nullptr ? vocab->idToToken(id) : std::string();
    return piece.empty() ? std::to_string(id) : piece;
}

std::string SentenceAnalysis::label(int i) const {
    return tokenLabel(tokens.at(static_cast<std::size_t>(i)).text);
}

std::string SentenceAnalysis::keyLabel(int j) const {
    return keyTokens.empty() ? label(j)
                             : tokenLabel(keyTokens.at(static_cast<std::size_t>(j)).text);
}

namespace {

// Byte-level vocabularies (GPT-2, RoBERTa, Llama 3, Qwen2) spell each byte as a printable
// character, so a multi-byte character reads as mojibake ("âĢĶ" for "—"). When every character
// of a piece stands for a byte, at least one of them is not plain ASCII, and the bytes are
// valid UTF-8, the piece is shown as the text it encodes. Anything else is left alone (a
// WordPiece "é" stands for the lone byte 0xE9, which is not valid UTF-8).
std::optional<std::string> decodedByteLevel(const std::string& piece) {
    if (tokenize::findInvalidUtf8(piece)) {
        return std::nullopt;
    }
    static const std::unordered_map<char32_t, unsigned char> kByteOf = [] {
        std::unordered_map<char32_t, unsigned char> m;
        const auto& table = tokenize::byteToUnicode();
        for (std::size_t b = 0; b < table.size(); ++b) {
            m.emplace(table[b], static_cast<unsigned char>(b));
        }
        return m;
    }();
    std::string bytes;
    bool nonAscii = false;
    for (const char32_t c : tokenize::decodeUtf8(piece, "token").chars) {
        const auto it = kByteOf.find(c);
        if (it == kByteOf.end()) {
            return std::nullopt;
        }
        nonAscii = nonAscii || c >= 0x80;
        if ((it->second < 0x20 && it->second != '\n') || it->second == 0x7F) {
            return std::nullopt;  // a control byte has no glyph: keep the visible spelling
        }
        bytes.push_back(static_cast<char>(it->second));
    }
    if (!nonAscii || tokenize::findInvalidUtf8(bytes)) {
        return std::nullopt;
    }
    std::string out;
    for (const char b : bytes) {
        out += b == ' '    ? std::string("\xC2\xB7")
               : b == '\n' ? std::string("\xE2\x86\xB5")
                           : std::string(1, b);
    }
    return out;
}

}  // namespace

std::string tokenLabel(std::string s) {
    if (auto decoded = decodedByteLevel(s)) {
        return *decoded;
    }
    // GPT-2's byte-level alphabet shows a leading space as U+0120 'Ġ' and a newline as U+010A;
    // SentencePiece (Llama-2) shows a space as U+2581 '▁'.
    const auto replace = [&](const std::string& from, const std::string& to) {
        for (std::size_t p = s.find(from); p != std::string::npos;
             p = s.find(from, p + to.size())) {
            s.replace(p, from.size(), to);
        }
    };
    replace("\xC4\xA0", "\xC2\xB7");      // Ġ -> ·
    replace("\xC4\x8A", "\xE2\x86\xB5");  // Ċ -> ↵
    replace("\xE2\x96\x81", "\xC2\xB7");  // ▁ -> ·
    return s;
}

void checkTextTokens(const model::Model& m, const std::vector<tokenize::Token>& tokens) {
    if (tokens.empty()) {
        throw InvalidArgument(
            "the text gives no tokens (it is empty, or the tokenizer keeps nothing of it and "
            "adds no special tokens): there is nothing to run the model on");
    }
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].id >= 0 && tokens[i].id < m.spec.vocabSize) {
            continue;
        }
        throw InvalidArgument(
            m.dir.string() + ": the tokenizer (" +
            (m.tokenizer ? m.tokenizer->describe() : std::string("?")) + ") gives token " +
            std::to_string(i) + " ('" + clipped(tokens[i].text, 40) + "') the id " +
            std::to_string(tokens[i].id) + ", but config.json's vocab_size is " +
            std::to_string(m.spec.vocabSize) + ": the tokenizer files do not belong to this model");
    }
}

SentenceAnalysis analyzeText(const model::Model& m, const std::string& text,
                             const forward::ForwardOptions& options) {
    if (!m.tokenizer) {
        throw InvalidArgument(m.dir.string() + ": the model folder has no tokenizer");
    }
    std::vector<tokenize::Token> tokens = m.tokenizer->encode(text);
    checkTextTokens(m, tokens);
    return analyzeTokens(m, text, std::move(tokens), options);
}

SentenceAnalysis analyzeTokens(const model::Model& m, std::string text,
                               std::vector<tokenize::Token> tokens,
                               const forward::ForwardOptions& options) {
    SentenceAnalysis a;
    a.text = std::move(text);
    a.tokens = std::move(tokens);
    return run(m, std::move(a), options);
}

SentenceAnalysis analyzeIds(const model::Model& m, const std::vector<std::int32_t>& ids,
                            const forward::ForwardOptions& options) {
    SentenceAnalysis a;
    for (const std::int32_t id : ids) {
        tokenize::Token t;
        t.id = id;
        t.text = idPiece(m, id);
        a.tokens.push_back(t);
    }
    return run(m, std::move(a), options);
}

}  // namespace attnscope::analysis
