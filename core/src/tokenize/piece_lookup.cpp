#include "piece_lookup.h"

namespace attnscope::tokenize::detail {

std::size_t sizeWithAdded(const Vocab& pieces, std::span<const AddedToken> added) {
    std::size_t size = pieces.size();
    for (const AddedToken& t : added) {
        if (!pieces.find(t.content)) {
            ++size;
        }
    }
    return size;
}

std::optional<std::int32_t> idOfToken(const Vocab& pieces, std::span<const AddedToken> added,
                                      std::string_view token) {
    for (const AddedToken& t : added) {
        if (t.content == token) {
            return t.id;
        }
    }
    return pieces.find(token);
}

std::string tokenOfId(const Vocab& pieces, std::span<const AddedToken> added, std::int32_t id) {
    for (const AddedToken& t : added) {
        if (t.id == id) {
            return t.content;
        }
    }
    return pieces.piece(id);
}

}  // namespace attnscope::tokenize::detail
