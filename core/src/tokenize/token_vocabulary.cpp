// A vocabulary read alone from a model folder's tokenizer files: pieces, added tokens and special
// roles, never the normalizers, pre-tokenizers or model behind them (whose unsupported kinds are
// what makes loadTokenizer throw).
#include "attnscope/tokenize/token_vocabulary.h"

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"
#include "attnscope/tokenize/sentencepiece_model.h"
#include "loader_internal.h"
#include "piece_lookup.h"

namespace attnscope::tokenize {
namespace {

using detail::Json;
using detail::JsonAt;

class PieceVocabulary final : public TokenVocabulary {
public:
    PieceVocabulary(Vocab pieces, std::vector<AddedToken> added)
        : m_pieces(std::move(pieces)), m_added(std::move(added)) {}

    std::size_t vocabSize() const override { return detail::sizeWithAdded(m_pieces, m_added); }

    std::optional<std::int32_t> tokenToId(std::string_view token) const override {
        return detail::idOfToken(m_pieces, m_added, token);
    }

    std::string idToToken(std::int32_t id) const override {
        return detail::tokenOfId(m_pieces, m_added, id);
    }

    std::optional<std::int32_t> specialId(SpecialRole role) const override {
        const auto it = m_roles.find(role);
        return it == m_roles.end() ? std::nullopt : std::optional(it->second);
    }

    // The roles loadTokenizer would find: post-processor, conventional names, then the config.
    void findRoles(const PostProcessorSpec& post, const std::filesystem::path& modelDir) {
        const detail::FindToken find = [this](std::string_view t) { return tokenToId(t); };
        detail::addConventionalRoles(find, post, m_roles);
        const auto configFile = modelDir / "tokenizer_config.json";
        if (const auto config = detail::readOptionalJson(configFile)) {
            detail::addConfigRoles(find, *config, JsonAt{configFile.string()}, m_roles);
        }
    }

private:
    Vocab m_pieces;
    std::vector<AddedToken> m_added;
    detail::SpecialRoles m_roles;
};

// model.vocab: {"piece": id, ...} for WordPiece, BPE and WordLevel; [["piece", score], ...] for
// Unigram, where the id is the position.
Vocab modelPieces(const Json& root, const JsonAt& rootAt) {
    const Json* model = detail::optionalMember(root, "model");
    const Json* vocab = model != nullptr ? detail::optionalMember(*model, "vocab") : nullptr;
    const JsonAt at = rootAt["model"]["vocab"];
    if (vocab == nullptr) {
        detail::failAt(at, "missing, expected the model's vocabulary");
    }
    if (!vocab->is_array()) {
        return detail::vocabFromJson(*vocab, at);
    }
    Vocab out;
    for (std::size_t i = 0; i < vocab->size(); ++i) {
        const Json& entry = (*vocab)[i];
        detail::expectArray(entry, at[i]);
        if (entry.empty() || i > static_cast<std::size_t>(detail::kMaxTokenId)) {
            detail::failAt(at[i], "expected [piece, score] within 2^24 entries");
        }
        out.add(detail::asString(entry[0], at[i][0]), static_cast<std::int32_t>(i));
    }
    return out;
}

std::unique_ptr<PieceVocabulary> fromTokenizerJson(const std::filesystem::path& file) {
    const Json root = detail::readJsonFile(file);
    const JsonAt at{file.string()};
    detail::expectObject(root, at);
    auto vocab = std::make_unique<PieceVocabulary>(modelPieces(root, at),
                                                   detail::parseAddedTokens(root, at));
    PostProcessorSpec post;
    if (const Json* processor = detail::optionalMember(root, "post_processor")) {
        try {
            detail::parsePostProcessor(*processor, at["post_processor"], post);
        } catch (const UnsupportedModel&) {
            post = {};  // only its [CLS] / [SEP] were wanted; the names still find them
        }
    }
    vocab->findRoles(post, file.parent_path());
    return vocab;
}

std::unique_ptr<PieceVocabulary> fromVocabTxt(const std::filesystem::path& file) {
    auto vocab =
        std::make_unique<PieceVocabulary>(detail::readVocabTxt(file), std::vector<AddedToken>{});
    vocab->findRoles({}, file.parent_path());
    return vocab;
}

std::unique_ptr<PieceVocabulary> fromVocabJson(const std::filesystem::path& file) {
    auto vocab = std::make_unique<PieceVocabulary>(
        detail::vocabFromJson(detail::readJsonFile(file), JsonAt{file.string()}),
        std::vector<AddedToken>{});
    vocab->findRoles({}, file.parent_path());
    return vocab;
}

std::unique_ptr<PieceVocabulary> fromSentencePiece(const std::filesystem::path& file) {
    const SentencePieceModel model(file);
    auto vocab = std::make_unique<PieceVocabulary>(model.vocab(), std::vector<AddedToken>{});
    vocab->findRoles({}, file.parent_path());
    return vocab;
}

}  // namespace

std::unique_ptr<const TokenVocabulary> loadTokenVocabulary(const std::filesystem::path& modelDir) {
    namespace fs = std::filesystem;
    return withContext("reading vocabulary", [&]() -> std::unique_ptr<const TokenVocabulary> {
        if (io::pathKind(modelDir / "tokenizer.json").exists()) {
            return fromTokenizerJson(modelDir / "tokenizer.json");
        }
        if (io::pathKind(modelDir / "vocab.txt").exists()) {
            return fromVocabTxt(modelDir / "vocab.txt");
        }
        if (io::pathKind(modelDir / "vocab.json").exists()) {
            return fromVocabJson(modelDir / "vocab.json");
        }
        if (io::pathKind(modelDir / "tokenizer.model").exists()) {
            return fromSentencePiece(modelDir / "tokenizer.model");
        }
        return nullptr;
    });
}

}  // namespace attnscope::tokenize
