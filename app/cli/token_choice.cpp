#include "cli/token_choice.h"

#include "attnscope/base/error.h"

namespace attnscope::cli {

std::optional<std::int32_t> tokenChoice(const model::Model& m,
                                        const std::optional<std::string>& piece,
                                        const std::optional<std::int64_t>& id,
                                        const std::string& option) {
    if (id) {
        if (*id < 0 || *id >= m.spec.vocabSize) {
            throw InvalidArgument(option + "-id: " + std::to_string(*id) +
                                  " is outside the vocabulary [0, " +
                                  std::to_string(m.spec.vocabSize) + ")");
        }
        return static_cast<std::int32_t>(*id);
    }
    if (!piece) {
        return std::nullopt;
    }
    const tokenize::TokenVocabulary* vocab = m.vocabulary();
    const auto found = vocab ? vocab->tokenToId(*piece) : std::nullopt;
    if (!found) {
        throw InvalidArgument(option + ": '" + *piece +
                              "' is not a piece of the model's vocabulary (give " + option +
                              "-id, or the piece as `attnscope-cli tokenize` prints it)");
    }
    return *found;
}

}  // namespace attnscope::cli
