#include "attnscope/tokenize/vocab.h"

#include <algorithm>

#include "attnscope/base/error.h"

namespace attnscope::tokenize {
namespace {

// Far above any real vocabulary (the largest are ~260k), low enough that a corrupt id cannot
// make us allocate gigabytes.
constexpr std::int32_t kMaxId = 1 << 24;
// Ids up to twice the pieces so far plus this many are kept in the dense table; beyond that an
// id is a stray (one id of 16 M would otherwise cost half a gigabyte of empty strings).
constexpr std::size_t kDenseSlack = 1 << 16;

}  // namespace

void Vocab::add(std::string piece, std::int32_t id) {
    if (id < 0 || id >= kMaxId) {
        throw InvalidArgument("token id " + std::to_string(id) + " out of range, expected 0 to " +
                              std::to_string(kMaxId - 1));
    }
    const auto index = static_cast<std::size_t>(id);
    if (index >= m_pieces.size() && index < 2 * m_ids.size() + kDenseSlack) {
        m_pieces.resize(index + 1);
    }
    if (index < m_pieces.size()) {
        if (m_pieces[index].empty()) {
            m_pieces[index] = piece;
        }
    } else {
        m_sparse.try_emplace(id, piece);
        m_idLimit = std::max(m_idLimit, index + 1);
    }
    m_ids.insert_or_assign(std::move(piece), id);
}

const std::string& Vocab::piece(std::int32_t id) const {
    static const std::string kEmpty;
    if (id < 0) {
        return kEmpty;
    }
    if (static_cast<std::size_t>(id) < m_pieces.size()) {
        return m_pieces[static_cast<std::size_t>(id)];
    }
    const auto it = m_sparse.find(id);
    return it == m_sparse.end() ? kEmpty : it->second;
}

}  // namespace attnscope::tokenize
