// A token vocabulary: pieces to ids and back. Filled by the loaders with `add`, then only read;
// concurrent reads are safe. `add` throws InvalidArgument for an id outside [0, 2^24), so a
// corrupt file cannot make it allocate gigabytes (loaders check first and report the location).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnscope::tokenize {

// Lets unordered_map<std::string, ...> be searched with a string_view without a copy.
struct StringHash {
    using is_transparent = void;

    std::size_t operator()(std::string_view s) const noexcept {
        return std::hash<std::string_view>{}(s);
    }
};

class Vocab {
public:
    Vocab() = default;
    // `pieces[i]` is the piece with id `ids[i]`. When a piece appears twice the later id wins
    // (as Python's dict does when HF reads vocab.txt); when an id appears twice idToToken keeps
    // the first piece.
    void add(std::string piece, std::int32_t id);

    std::optional<std::int32_t> find(std::string_view piece) const {
        const auto it = m_ids.find(piece);
        if (it == m_ids.end()) {
            return std::nullopt;
        }
        return it->second;
    }

    // Empty for an id no piece has.
    const std::string& piece(std::int32_t id) const;

    std::size_t size() const { return m_ids.size(); }

    // One more than the largest id.
    std::size_t idLimit() const { return std::max(m_pieces.size(), m_idLimit); }

    // Ids below this are in one table; a stray id far above the others is stored apart.
    std::size_t denseIdLimit() const { return m_pieces.size(); }

private:
    std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>> m_ids;
    std::vector<std::string> m_pieces;  // indexed by id
    std::unordered_map<std::int32_t, std::string> m_sparse;
    std::size_t m_idLimit = 0;  // of m_sparse
};

}  // namespace attnscope::tokenize
