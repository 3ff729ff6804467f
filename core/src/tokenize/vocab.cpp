#include "attnscope/tokenize/vocab.h"

#include "attnscope/base/error.h"

namespace attnscope::tokenize {
namespace {

// Far above any real vocabulary (the largest are ~260k), low enough that a corrupt id cannot
// make us allocate gigabytes.
constexpr std::int32_t kMaxId = 1 << 24;

}  // namespace

void Vocab::add(std::string piece, std::int32_t id) {
    if (id < 0 || id >= kMaxId) {
        throw InvalidArgument("token id " + std::to_string(id) + " out of range, expected 0 to " +
                              std::to_string(kMaxId - 1));
    }
    const auto index = static_cast<std::size_t>(id);
    if (index >= m_pieces.size()) {
        m_pieces.resize(index + 1);
    }
    if (m_pieces[index].empty()) {
        m_pieces[index] = piece;
    }
    m_ids.insert_or_assign(std::move(piece), id);
}

const std::string& Vocab::piece(std::int32_t id) const {
    static const std::string kEmpty;
    if (id < 0 || static_cast<std::size_t>(id) >= m_pieces.size()) {
        return kEmpty;
    }
    return m_pieces[static_cast<std::size_t>(id)];
}

}  // namespace attnscope::tokenize
