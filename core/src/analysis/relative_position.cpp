#include "attnscope/analysis/relative_position.h"

#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/base/head_id.h"
#include "size_check.h"

namespace attnscope::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string sizeMismatch(const char* what, std::size_t found, std::size_t expected) {
    return detail::sizeMismatch("relative position", what, found, expected);
}

bool isSet(std::span<const std::uint8_t> flags, int i) {
    return !flags.empty() && flags[static_cast<std::size_t>(i)] != 0;
}

// Is r a better mode than `best` at equal frequency? Smaller |r| first: an adjacent-token
// head is the more likely reading; then the negative (previous-token) side.
bool preferredOffset(int r, int best) {
    const int a = std::abs(r);
    const int b = std::abs(best);
    return a != b ? a < b : r < best;
}

}  // namespace

RelativePositionAccumulator::RelativePositionAccumulator(const RelativePositionOptions& options)
    : m_options(options) {}

void RelativePositionAccumulator::grow(int maxOffset) {
    if (maxOffset <= m_maxOffset) {
        return;
    }
    // Re-centre: the old bins keep their offsets in the wider vector.
    std::vector<Bin> wider(static_cast<std::size_t>(2 * maxOffset + 1));
    const auto shift = static_cast<std::size_t>(maxOffset - m_maxOffset);
    for (std::size_t i = 0; i < m_bins.size(); ++i) {
        wider[i + shift] = m_bins[i];
    }
    m_bins = std::move(wider);
    m_maxOffset = maxOffset;
}

void RelativePositionAccumulator::add(std::span<const float> probs, int n,
                                      std::span<const std::uint8_t> special,
                                      std::span<const std::uint8_t> allowed) {
    if (n < 0) {
        throw InvalidArgument("relative position: " + std::to_string(n) + " tokens");
    }
    const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    if (probs.size() != cells) {
        throw InvalidArgument(sizeMismatch("the attention map", probs.size(), cells));
    }
    if (!special.empty() && special.size() != static_cast<std::size_t>(n)) {
        throw InvalidArgument(
            sizeMismatch("the special-token flags", special.size(), static_cast<std::size_t>(n)));
    }
    if (!allowed.empty() && allowed.size() != cells) {
        throw InvalidArgument(sizeMismatch("the mask", allowed.size(), cells));
    }
    grow(n - 1);
    ++m_sentences;
    for (int q = 0; q < n; ++q) {
        const auto rowStart = static_cast<std::size_t>(q) * static_cast<std::size_t>(n);
        addRow(probs.data() + rowStart, q, n, special,
               allowed.empty() ? nullptr : allowed.data() + rowStart);
    }
}

void RelativePositionAccumulator::addRow(const float* row, int q, int n,
                                         std::span<const std::uint8_t> special,
                                         const std::uint8_t* allowedRow) {
    if (m_options.skipSpecialQueries && isSet(special, q)) {
        ++m_skipped;
        return;
    }
    // The argmax over eligible keys, first maximum on ties (strict >). A row of zeros has no
    // distribution: a fully masked row, or a head someone switched off (methods.md §9.6).
    int best = -1;
    bool anyWeight = false;
    for (int k = 0; k < n; ++k) {
        const float w = row[k];
        anyWeight = anyWeight || w != 0.0f;
        const bool eligible = (allowedRow == nullptr || allowedRow[k] != 0) &&
                              !(m_options.skipSpecialKeys && isSet(special, k));
        if (eligible && (best < 0 || w > row[best])) {
            best = k;
        }
    }
    if (!anyWeight || best < 0) {
        ++m_skipped;
        return;
    }
    ++m_queries;
    m_confidenceSum.add(row[best]);
    ++bin(best - q).argmax;
    for (int k = 0; k < n; ++k) {
        if (m_options.skipSpecialKeys && isSet(special, k)) {
            continue;
        }
        Bin& b = bin(k - q);
        b.sum.add(row[k]);
        ++b.queries;
        if (allowedRow == nullptr || allowedRow[k] != 0) {
            ++b.allowed;
        }
    }
}

void RelativePositionAccumulator::add(const forward::ForwardResult& result, HeadId head,
                                      std::span<const std::uint8_t> special) {
    if (head.layer < 0 || head.head < 0 || head.layer >= result.nLayers ||
        head.head >= result.nHeads) {
        throw InvalidArgument("relative position: head " + head.toString() +
                              " is not in the result");
    }
    const auto map = result.attention(head);
    const auto n = result.nTokens;
    const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    std::span<const std::uint8_t> allowed;
    const BoolMatrix& mask = result.allowedFor(head.layer);
    if (mask.rows() == n && mask.cols() == n) {
        allowed = {mask.data(), cells};
    }
    add(std::span<const float>(map.data(), cells), n, special, allowed);
}

void RelativePositionAccumulator::merge(const RelativePositionAccumulator& other) {
    if (!(other.m_options == m_options)) {
        throw InvalidArgument("relative position: merging accumulators with different options");
    }
    grow(other.m_maxOffset);
    for (int d = -other.m_maxOffset; d <= other.m_maxOffset; ++d) {
        const Bin& from = other.m_bins[static_cast<std::size_t>(d + other.m_maxOffset)];
        Bin& to = bin(d);
        to.sum.add(from.sum);
        to.queries += from.queries;
        to.allowed += from.allowed;
        to.argmax += from.argmax;
    }
    m_confidenceSum.add(other.m_confidenceSum);
    m_queries += other.m_queries;
    m_skipped += other.m_skipped;
    m_sentences += other.m_sentences;
}

void RelativePositionAccumulator::restore(int maxOffset, std::vector<Bin> bins,
                                          const ExactSum& confidenceSum, const Totals& totals) {
    if (maxOffset < 0 || bins.size() != 2 * static_cast<std::size_t>(maxOffset) + 1) {
        throw InvalidArgument("relative position: restoring " + std::to_string(bins.size()) +
                              " bins for a largest offset of " + std::to_string(maxOffset));
    }
    m_maxOffset = maxOffset;
    m_bins = std::move(bins);
    m_confidenceSum = confidenceSum;
    m_queries = totals.queries;
    m_skipped = totals.skipped;
    m_sentences = totals.sentences;
}

OffsetValue RelativePositionAccumulator::at(int offset) const {
    OffsetValue v;
    v.offset = offset;
    v.meanAttention = kNaN;
    if (std::abs(offset) > m_maxOffset) {
        return v;
    }
    const Bin& b = m_bins[static_cast<std::size_t>(offset + m_maxOffset)];
    v.queries = b.queries;
    v.allowedQueries = b.allowed;
    v.argmaxQueries = b.argmax;
    if (b.queries > 0) {
        v.meanAttention = b.sum.value() / static_cast<double>(b.queries);
    }
    return v;
}

std::vector<OffsetValue> RelativePositionAccumulator::offsets() const {
    std::vector<OffsetValue> out;
    out.reserve(m_bins.size());
    for (int d = -m_maxOffset; d <= m_maxOffset; ++d) {
        out.push_back(at(d));
    }
    return out;
}

PositionalVerdict RelativePositionAccumulator::verdict(double threshold) const {
    PositionalVerdict v;
    v.queries = m_queries;
    if (m_queries == 0) {
        v.frequency = kNaN;
        v.confidence = kNaN;
        return v;
    }
    std::int64_t bestCount = -1;
    for (int d = -m_maxOffset; d <= m_maxOffset; ++d) {
        const std::int64_t c = m_bins[static_cast<std::size_t>(d + m_maxOffset)].argmax;
        if (c > bestCount || (c == bestCount && preferredOffset(d, v.bestOffset))) {
            bestCount = c;
            v.bestOffset = d;
        }
    }
    const auto total = static_cast<double>(m_queries);
    v.frequency = static_cast<double>(bestCount) / total;
    v.positional = v.frequency >= threshold;
    v.confidence = m_confidenceSum.value() / total;
    return v;
}

std::vector<std::uint8_t> specialFlags(const std::vector<tokenize::Token>& tokens) {
    std::vector<std::uint8_t> out;
    out.reserve(tokens.size());
    for (const tokenize::Token& t : tokens) {
        out.push_back(t.special ? 1 : 0);
    }
    return out;
}

ModelPositions::ModelPositions(int nLayers, int nHeads, const RelativePositionOptions& options)
    : m_nLayers(nLayers), m_nHeads(nHeads) {
    if (nLayers <= 0 || nHeads <= 0) {
        throw InvalidArgument("relative position: " + std::to_string(nLayers) + " layers x " +
                              std::to_string(nHeads) + " heads; expected positive counts");
    }
    m_heads.assign(static_cast<std::size_t>(nLayers) * static_cast<std::size_t>(nHeads),
                   RelativePositionAccumulator(options));
}

void ModelPositions::add(const forward::ForwardResult& result,
                         std::span<const std::uint8_t> special) {
    if (result.nLayers != m_nLayers || result.nHeads != m_nHeads) {
        throw InvalidArgument("relative position: result has " + std::to_string(result.nLayers) +
                              " x " + std::to_string(result.nHeads) + " heads; expected " +
                              std::to_string(m_nLayers) + " x " + std::to_string(m_nHeads));
    }
    for (int layer = 0; layer < m_nLayers; ++layer) {
        for (int h = 0; h < m_nHeads; ++h) {
            m_heads[headIndex({layer, h}, m_nHeads)].add(result, {layer, h}, special);
        }
    }
}

void ModelPositions::merge(const ModelPositions& other) {
    if (other.m_nLayers != m_nLayers || other.m_nHeads != m_nHeads) {
        throw InvalidArgument("relative position: merging results of differently shaped models");
    }
    for (std::size_t i = 0; i < m_heads.size(); ++i) {
        m_heads[i].merge(other.m_heads[i]);
    }
}

void ModelPositions::restoreHead(HeadId h, RelativePositionAccumulator acc) {
    (void)head(h);  // throws for a head outside the model
    RelativePositionAccumulator& mine = m_heads[headIndex(h, m_nHeads)];
    if (!(acc.options() == mine.options())) {
        throw InvalidArgument("relative position: restoring a head with other options");
    }
    mine = std::move(acc);
}

const RelativePositionAccumulator& ModelPositions::head(HeadId h) const {
    if (h.layer < 0 || h.head < 0 || h.layer >= m_nLayers || h.head >= m_nHeads) {
        throw InvalidArgument("relative position: head " + h.toString() + " is not in the model");
    }
    return m_heads[headIndex(h, m_nHeads)];
}

}  // namespace attnscope::analysis
