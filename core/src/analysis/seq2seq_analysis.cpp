#include "attnscope/analysis/seq2seq_analysis.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "attnscope/analysis/head_stats.h"
#include "attnscope/analysis/word_alignment.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/by_attention_kind.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/tokenize/detokenize.h"

namespace attnscope::analysis {

using forward::AttentionKind;

const SentenceAnalysis& Seq2SeqAnalysis::of(AttentionKind kind) const {
    return forward::byAttentionKind(kind, encoder, decoder, cross);
}

std::string Seq2SeqAnalysis::targetLabel(int t) const {
    if (t < 0 || static_cast<std::size_t>(t) >= targetTokens.size()) {
        return "→ ?";
    }
    return "→ " + tokenLabel(targetTokens[static_cast<std::size_t>(t)].text);
}

namespace {

const model::Model& decoderOf(const model::Model& m) {
    if (!m.decoder) {
        throw InvalidArgument(m.dir.string() + ": " + m.spec.modelType +
                              " is not an encoder-decoder model");
    }
    return *m.decoder;
}

int startToken(const model::Model& m) {
    const auto start = decoderOf(m).spec.decoderStartTokenId;
    if (!start) {
        throw InvalidArgument(m.dir.string() + ": config.json names no decoder_start_token_id");
    }
    return *start;
}

tokenize::Token tokenOf(const model::Model& m, std::int32_t id, bool special) {
    tokenize::Token t;
    t.id = id;
    t.text = idPiece(m, id);
    t.special = special;
    return t;
}

std::vector<tokenize::Token> tokensOf(const model::Model& m, const std::vector<std::int32_t>& ids) {
    std::vector<tokenize::Token> out;
    for (const std::int32_t id : ids) {
        out.push_back(tokenOf(m, id, false));
    }
    return out;
}

// Runs the pass and spreads it over the three per-kind analyses.
Seq2SeqAnalysis run(const model::Model& m, SentenceAnalysis source, std::string targetText,
                    std::vector<tokenize::Token> target, const forward::ForwardOptions& options) {
    Seq2SeqAnalysis a;
    a.targetText = std::move(targetText);
    // shift_tokens_right: the start token, then every target token but the last.
    std::vector<tokenize::Token> decoderTokens = {tokenOf(m, startToken(m), true)};
    for (std::size_t i = 0; i + 1 < target.size(); ++i) {
        decoderTokens.push_back(target[i]);
    }
    a.targetTokens = std::move(target);
    forward::Seq2SeqInput input{tokenize::ids(source.tokens), tokenize::ids(decoderTokens), 0};
    forward::Seq2SeqResult r = forward::runSeq2Seq(m, input, options);

    a.encoder = std::move(source);
    a.encoder.forward = std::move(r.encoder);
    a.encoder.stats = headStats(a.encoder.forward);
    a.decoder.text = a.targetText;
    a.decoder.tokens = decoderTokens;
    a.decoder.forward = std::move(r.decoder);
    a.decoder.stats = headStats(a.decoder.forward);
    a.cross.text = a.targetText;
    a.cross.tokens = std::move(decoderTokens);
    a.cross.keyText = a.encoder.text;
    a.cross.keyTokens = a.encoder.tokens;
    a.cross.forward = std::move(r.cross);
    a.cross.stats = headStats(a.cross.forward);
    return a;
}

}  // namespace

namespace {

// The target tokenizer, checked as every text entry point needs it.
const tokenize::Tokenizer& textTokenizer(const model::Model& m) {
    decoderOf(m);
    const tokenize::Tokenizer* target = m.targetTextTokenizer();
    if (!m.tokenizer || target == nullptr) {
        throw InvalidArgument(m.dir.string() + ": the model folder has no tokenizer");
    }
    return *target;
}

SentenceAnalysis sourceOf(const model::Model& m, const std::string& text) {
    SentenceAnalysis source;
    source.text = text;
    source.tokens = withContext("source", [&] { return m.tokenizer->encode(text); });
    return source;
}

// The roles decodeIds leaves out; the tokenizer marks the same tokens special when encoding.
bool hasSpecialRole(const tokenize::TokenVocabulary& v, std::int32_t id) {
    using tokenize::SpecialRole;
    for (const SpecialRole role : {SpecialRole::Cls, SpecialRole::Sep, SpecialRole::Bos,
                                   SpecialRole::Eos, SpecialRole::Pad, SpecialRole::Mask}) {
        if (v.specialId(role) == id) {
            return true;
        }
    }
    return false;
}

std::size_t codePoints(const std::string& text, std::size_t bytes) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bytes),
                      [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// How much of `text` `part` spells from its start, ending on a character boundary. Decoding a
// prefix of the ids need not give a prefix of the text: a byte-level piece holding half a
// character decodes to U+FFFD until the rest arrives.
std::size_t sharedPrefix(const std::string& text, const std::string& part) {
    auto n = static_cast<std::size_t>(
        std::mismatch(text.begin(), text.end(), part.begin(), part.end()).first - text.begin());
    while (n > 0 && n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) {
        --n;
    }
    return n;
}

// The decoded ids as tokens of `text` (their decoding): token k spans what decoding ids[0..k]
// adds to decoding ids[0..k-1]. Quadratic in the ids, which greedy decoding keeps to hundreds.
std::vector<tokenize::Token> decodedTokens(const model::Model& m, const tokenize::Tokenizer& t,
                                           const std::vector<std::int32_t>& ids,
                                           const std::string& text) {
    std::vector<tokenize::Token> out;
    std::vector<std::int32_t> prefix;
    std::size_t begin = 0;
    for (const std::int32_t id : ids) {
        prefix.push_back(id);
        const std::size_t end = std::max(begin, sharedPrefix(text, tokenize::decodeIds(t, prefix)));
        tokenize::Token token = tokenOf(m, id, hasSpecialRole(t, id));
        token.byteBegin = begin;
        token.byteEnd = end;
        token.charBegin = codePoints(text, begin);
        token.charEnd = codePoints(text, end);
        out.push_back(std::move(token));
        begin = end;
    }
    return out;
}

}  // namespace

Seq2SeqAnalysis analyzeSeq2SeqText(const model::Model& m, const std::string& sourceText,
                                   const std::string& targetText,
                                   const forward::ForwardOptions& options) {
    const tokenize::Tokenizer& targetTokenizer = textTokenizer(m);
    SentenceAnalysis source = sourceOf(m, sourceText);
    std::vector<tokenize::Token> target;
    if (!targetText.empty()) {
        target = withContext("target", [&] { return targetTokenizer.encode(targetText); });
    }
    return run(m, std::move(source), targetText, std::move(target), options);
}

Seq2SeqAnalysis analyzeSeq2SeqDecoded(const model::Model& m, const std::string& sourceText,
                                      const std::vector<std::int32_t>& targetIds,
                                      const forward::ForwardOptions& options) {
    const tokenize::Tokenizer& targetTokenizer = textTokenizer(m);
    SentenceAnalysis source = sourceOf(m, sourceText);
    std::string text = tokenize::decodeIds(targetTokenizer, targetIds);
    std::vector<tokenize::Token> target = decodedTokens(m, targetTokenizer, targetIds, text);
    return run(m, std::move(source), std::move(text), std::move(target), options);
}

Seq2SeqAnalysis analyzeSeq2SeqIds(const model::Model& m, const std::vector<std::int32_t>& sourceIds,
                                  const std::vector<std::int32_t>& targetIds,
                                  const forward::ForwardOptions& options) {
    SentenceAnalysis source;
    source.tokens = tokensOf(m, sourceIds);
    return run(m, std::move(source), "", tokensOf(m, targetIds), options);
}

std::vector<std::int32_t> greedyTarget(const model::Model& m,
                                       const std::vector<std::int32_t>& sourceIds,
                                       const GreedyOptions& options) {
    const model::Model& dec = decoderOf(m);
    if (!forward::hasPredictionHead(m)) {
        throw InvalidArgument(m.dir.string() + ": the checkpoint has no LM head to decode with");
    }
    forward::ForwardOptions o;
    o.cancel = options.cancel;
    forward::Seq2SeqInput input{sourceIds, {startToken(m)}, 0};
    const forward::ForwardResult encoder = forward::runSeq2Seq(m, input, o).encoder;
    const auto pad = dec.spec.padTokenId;
    const auto eos = dec.spec.eosTokenId;
    std::vector<std::int32_t> target;
    while (static_cast<int>(target.size()) < options.maxTokens) {
        const forward::Seq2SeqResult r = forward::runSeq2Seq(m, input, o, &encoder);
        const Matrix logits = forward::vocabularyLogits(m, r.decoder.hidden.bottomRows(1));
        std::int32_t best = -1;
        float bestLogit = -std::numeric_limits<float>::infinity();
        for (Eigen::Index j = 0; j < logits.cols(); ++j) {
            const auto id = static_cast<std::int32_t>(j);
            if ((pad && id == *pad && pad != eos) || !(logits(0, j) > bestLogit)) {
                continue;  // ties keep the lower id, as argmax does
            }
            best = id;
            bestLogit = logits(0, j);
        }
        if (best < 0) {
            throw InvalidArgument("greedy decoding: the logits are not numbers");
        }
        target.push_back(best);
        input.decoderIds.push_back(best);
        if (options.onToken) {
            options.onToken(target);
        }
        if (eos && best == *eos) {
            break;
        }
    }
    return target;
}

namespace {

// Words are whatever whitespace separates: translation test sets come tokenized that way, and
// it needs no language knowledge.
struct TextWords {
    std::vector<ByteSpan> spans;
    std::vector<std::string> words;
};

TextWords whitespaceWords(const std::string& text) {
    TextWords out;
    const auto space = [&](std::size_t k) {
        return std::isspace(static_cast<unsigned char>(text[k])) != 0;
    };
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && space(i)) {
            ++i;
        }
        const std::size_t begin = i;
        while (i < text.size() && !space(i)) {
            ++i;
        }
        if (i > begin) {
            out.spans.push_back({begin, i});
            out.words.push_back(text.substr(begin, i - begin));
        }
    }
    return out;
}

// The words of a side that got a unit, with those units, in word order.
struct WordSide {
    std::vector<std::string> words;
    std::vector<int> units;
};

WordSide wordSide(const std::string& text, const WordAlignment& alignment) {
    const TextWords words = whitespaceWords(text);
    WordSide side;
    for (std::size_t w = 0; w < words.words.size(); ++w) {
        const int unit = alignment.wordUnit[w];
        if (unit >= 0) {
            side.words.push_back(words.words[w]);
            side.units.push_back(unit);
        }
    }
    return side;
}

}  // namespace

WordAlignment wordsOf(const std::string& text, const std::vector<tokenize::Token>& tokens) {
    const TextWords words = whitespaceWords(text);
    return *alignWords(tokens, words.spans, words.words, {}, MissingWords::NoUnit).alignment;
}

CrossAlignment crossAlignment(const Seq2SeqAnalysis& a, int layer, int head, FromAggregation agg) {
    const forward::ForwardResult& r = a.cross.forward;
    if (a.targetTokens.empty() || a.targetTokens.size() != static_cast<std::size_t>(r.nTokens)) {
        throw InvalidArgument("alignment: no target text to align");
    }
    if (layer < 0 || layer >= r.nLayers || head < -1 || head >= r.nHeads) {
        throw InvalidArgument("alignment: layer " + std::to_string(layer) + " head " +
                              std::to_string(head) + " is outside the decoder's " +
                              std::to_string(r.nLayers) + " x " + std::to_string(r.nHeads));
    }
    Matrix map;
    if (head >= 0) {
        map = r.attention({layer, head});
    } else {
        map = Matrix::Zero(r.nTokens, r.keyCount());
        for (int h = 0; h < r.nHeads; ++h) {
            map += r.attention({layer, h});
        }
        map /= static_cast<float>(r.nHeads);
    }
    const WordAlignment rows = wordsOf(a.targetText, a.targetTokens);
    const WordAlignment columns = wordsOf(a.cross.keyText, a.cross.keyTokens);
    const Matrix units = wordAttention(map, rows.unitTokens(), columns.unitTokens(), agg);
    const WordSide target = wordSide(a.targetText, rows);
    const WordSide source = wordSide(a.cross.keyText, columns);
    CrossAlignment out{target.words, source.words,
                       Matrix(static_cast<Eigen::Index>(target.units.size()),
                              static_cast<Eigen::Index>(source.units.size()))};
    for (std::size_t i = 0; i < target.units.size(); ++i) {
        for (std::size_t j = 0; j < source.units.size(); ++j) {
            out.weights(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
                units(target.units[i], source.units[j]);
        }
    }
    return out;
}

}  // namespace attnscope::analysis
