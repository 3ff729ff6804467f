#include "attnscope/tokenize/sentencepiece_model.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <sentencepiece_processor.h>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"

namespace attnscope::tokenize {
namespace {

constexpr char32_t kMetaspace = U'\u2581';    // '▁', SentencePiece's stand-in for a space
constexpr std::int32_t kMaxPieces = 1 << 24;  // a corrupt size must not make us allocate GBs

std::string pieceOrEmpty(const sentencepiece::SentencePieceProcessor& sp, int id) {
    return id >= 0 && id < sp.GetPieceSize() ? sp.IdToPiece(id) : std::string();
}

// Whether a serialized ModelProto has its top-level normalizer_spec (field 3). Every trained model
// has one; a file cut short after some of its pieces still parses, without it, and would run
// with SentencePiece's built-in defaults.
bool hasNormalizerSpec(std::string_view proto) {
    std::size_t i = 0;
    auto varint = [&](std::uint64_t& v) {
        v = 0;
        for (int shift = 0; shift < 64 && i < proto.size(); shift += 7) {
            const auto byte = static_cast<std::uint8_t>(proto[i++]);
            v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if ((byte & 0x80) == 0) {
                return true;
            }
        }
        return false;
    };
    while (i < proto.size()) {
        std::uint64_t key = 0;
        std::uint64_t value = 0;
        if (!varint(key)) {
            return false;
        }
        const std::uint64_t wire = key & 7;
        if (wire == 0 && !varint(value)) {
            return false;
        }
        if (wire == 1 || wire == 5) {
            i += wire == 1 ? 8 : 4;
        } else if (wire == 2) {
            if (!varint(value) || value > proto.size() - i) {
                return false;
            }
            if ((key >> 3) == 3) {
                return true;
            }
            i += static_cast<std::size_t>(value);
        } else if (wire != 0) {
            return false;
        }
    }
    return false;
}

}  // namespace

struct SentencePieceModel::Impl {
    sentencepiece::SentencePieceProcessor sp;
    std::size_t separatorPieces = 0;  // pieces SentencePiece makes of "\n" alone
    std::optional<std::int32_t> metaspaceId;
};

SentencePieceModel::SentencePieceModel(const std::filesystem::path& file)
    : m_impl(std::make_unique<Impl>()), m_file(file.string()) {
    io::requireRegularFile(file);  // SentencePiece would block forever on a FIFO
    sentencepiece::util::Status status;
    try {
        status = m_impl->sp.Load(file.string());
    } catch (const std::exception& e) {
        // Most bad files get a status, but building the trie throws (Darts::Exception, e.g. for
        // an empty piece) straight out of Load.
        throw FormatError(m_file + ": not a readable SentencePiece model: " + e.what());
    }
    if (!status.ok()) {
        throw FormatError(m_file + ": not a readable SentencePiece model: " + status.ToString());
    }
    if (!hasNormalizerSpec(m_impl->sp.serialized_model_proto())) {
        throw FormatError(m_file +
                          ": not a readable SentencePiece model: it has no normalizer_spec "
                          "(a file cut short?)");
    }
    const int size = m_impl->sp.GetPieceSize();
    if (size <= 0 || size > kMaxPieces) {
        throw FormatError(m_file + ": pieces: implausible vocabulary size " + std::to_string(size));
    }
    for (int id = 0; id < size; ++id) {
        const std::string& piece = m_impl->sp.IdToPiece(id);
        if (piece.find('\n') != std::string::npos) {
            // Our prefix trick relies on '\n' never merging with a neighbour (see the header).
            throw UnsupportedModel(m_file + ": piece " + std::to_string(id) +
                                   ": a piece holding a newline is not supported");
        }
        m_vocab.add(piece, id);
    }
    m_unk = pieceOrEmpty(m_impl->sp, m_impl->sp.unk_id());
    m_bos = pieceOrEmpty(m_impl->sp, m_impl->sp.bos_id());
    m_eos = pieceOrEmpty(m_impl->sp, m_impl->sp.eos_id());
    m_impl->separatorPieces = m_impl->sp.EncodeAsImmutableProto("\n").pieces_size();
    std::string metaspace;
    appendUtf8(metaspace, kMetaspace);
    m_impl->metaspaceId = m_vocab.find(metaspace);
}

SentencePieceModel::~SentencePieceModel() = default;

void SentencePieceModel::tokenize(std::span<const NormalizedChar> word,
                                  std::vector<ModelToken>& out) const {
    if (word.empty()) {
        return;
    }
    const bool hasPrefix = word.front().cp == kMetaspace;
    if (hasPrefix && word.size() == 1) {
        // SentencePiece adds no dummy prefix to an empty text; the word is the lone '▁'.
        out.push_back({m_impl->metaspaceId.value_or(m_vocab.find(m_unk).value_or(0)), 0, 1});
        return;
    }
    encodePieces(word, hasPrefix, out);
}

void SentencePieceModel::encodePieces(std::span<const NormalizedChar> word, bool hasPrefix,
                                      std::vector<ModelToken>& out) const {
    // The input SentencePiece sees, and the word character behind each of its bytes. With a
    // leading '▁' that character is left out (SentencePiece's dummy prefix stands for it);
    // without, "\n" goes in front and its pieces are dropped below.
    std::string input = hasPrefix ? "" : "\n";
    std::vector<std::size_t> byteToChar(input.size(), 0);
    for (std::size_t i = hasPrefix ? 1 : 0; i < word.size(); ++i) {
        const std::size_t before = input.size();
        appendUtf8(input, word[i].cp);
        byteToChar.insert(byteToChar.end(), input.size() - before, i);
    }
    const sentencepiece::ImmutableSentencePieceText text = m_impl->sp.EncodeAsImmutableProto(input);
    const std::size_t count = text.pieces_size();
    const std::size_t first = hasPrefix ? 0 : m_impl->separatorPieces;
    const std::size_t lastChar = word.size() - 1;
    for (std::size_t k = first; k < count; ++k) {
        const auto piece = text.pieces(static_cast<int>(k));
        const std::size_t b = std::min<std::size_t>(piece.begin(), input.size());
        const std::size_t e = std::min<std::size_t>(piece.end(), input.size());
        std::size_t charBegin = b < input.size() ? byteToChar[b] : lastChar;
        // A byte-fallback piece comes with an empty span: it is part of the character there.
        std::size_t charEnd = e > b ? byteToChar[e - 1] + 1 : charBegin + 1;
        if (hasPrefix && k == 0) {
            charBegin = 0;  // the dummy prefix is the word's own '▁'
            charEnd = e > b ? charEnd : 1;
        }
        out.push_back(
            {static_cast<std::int32_t>(piece.id()), charBegin, std::max(charEnd, charBegin + 1)});
    }
}

std::vector<SpmPiece> SentencePieceModel::encodeText(std::string_view utf8) const {
    const sentencepiece::ImmutableSentencePieceText text = m_impl->sp.EncodeAsImmutableProto(utf8);
    std::vector<SpmPiece> out;
    out.reserve(text.pieces_size());
    for (int k = 0; k < static_cast<int>(text.pieces_size()); ++k) {
        const auto piece = text.pieces(k);
        const std::size_t b = std::min<std::size_t>(piece.begin(), utf8.size());
        out.push_back({static_cast<std::int32_t>(piece.id()), std::string(piece.piece()), b,
                       std::clamp<std::size_t>(piece.end(), b, utf8.size())});
    }
    return out;
}

std::vector<std::string> SentencePieceModel::encodePieces(std::string_view utf8) const {
    std::vector<std::string> out;
    for (SpmPiece& p : encodeText(utf8)) {
        out.push_back(std::move(p.piece));
    }
    return out;
}

std::int32_t SentencePieceModel::pieceToId(std::string_view piece) const {
    return m_vocab.find(piece).value_or(m_impl->sp.unk_id());
}

}  // namespace attnscope::tokenize
