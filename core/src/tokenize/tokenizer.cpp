#include "attnscope/tokenize/tokenizer.h"

namespace attnscope::tokenize {

std::vector<std::int32_t> ids(const std::vector<Token>& tokens) {
    std::vector<std::int32_t> out;
    out.reserve(tokens.size());
    for (const Token& t : tokens) {
        out.push_back(t.id);
    }
    return out;
}

std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path&, std::string_view) {
    return nullptr;  // TODO(tokenizers helper): implemented in this area
}

}  // namespace attnscope::tokenize
