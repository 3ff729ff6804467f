// The 8-bit kernels' operands: activation panels (codes interleaved four at a time across the
// panel's rows, so one vector load takes four codes of every row) and blocks of weight rows
// decoded into contiguous signed codes with their integer scales, the +128 offset's correction
// and the minima as int16 pairs. Decoding runs once per product per weight row, so it is kept
// to byte loops the compiler vectorizes.
#include "q8_panels.h"

#include <algorithm>

namespace attnscope::ops::detail {

namespace {

std::size_t sz(Eigen::Index n) {
    return static_cast<std::size_t>(n);
}

// Two int16 in one int32, `low` first in memory: the pair vpmaddwd / vpdpwssd multiply.
std::int32_t int16Pair(std::int32_t low, std::int32_t high) {
    const auto lo = static_cast<std::uint32_t>(static_cast<std::uint16_t>(low));
    const auto hi = static_cast<std::uint32_t>(static_cast<std::uint16_t>(high));
    return static_cast<std::int32_t>(lo | (hi << 16));
}

// Σ_g scale_g Σ_{k∈g} code_k over a block's groups of N codes (N constant, so the inner sum
// vectorizes: this runs on every weight of every product).
template <int N>
std::int32_t weightedSum(const std::int8_t* codes, const std::int32_t* scale, int groups) {
    std::int32_t total = 0;
    for (int g = 0; g < groups; ++g) {
        std::int32_t sum = 0;
        for (int k = 0; k < N; ++k) {
            sum += codes[g * N + k];
        }
        total += scale[g] * sum;
    }
    return total;
}

}  // namespace

ActPanels::ActPanels(const QuantizedRows& q, int lanes, bool signedCodes)
    : lanes_(lanes),
      rows_(q.rows),
      depth_(q.depth),
      blocks_(q.blocks),
      panels_((q.rows + lanes - 1) / lanes),
      codes_(sz(panels_ * lanes_ * depth_)),
      d_(sz(panels_ * blocks_ * lanes_)),
      sums_(q.type == io::GgmlType::Q8_K ? sz(panels_ * blocks_ * 16 * lanes_) : 0) {
#pragma omp parallel for schedule(static) if (rows_ * depth_ > 65536)
    for (Eigen::Index p = 0; p < panels_; ++p) {
        pack(q, p, signedCodes);
    }
}

void ActPanels::pack(const QuantizedRows& q, Eigen::Index p, bool signedCodes) {
    const Eigen::Index first = p * lanes_;
    const Eigen::Index count = std::min(lanes_, rows_ - first);
    const std::uint8_t flip = signedCodes ? 0x00 : 0x80;  // code + 128 as an unsigned byte
    std::uint8_t* dst = codes_.data() + p * lanes_ * depth_;
    float* d = d_.data() + p * blocks_ * lanes_;
    for (Eigen::Index l = 0; l < lanes_; ++l) {
        const std::int8_t* src = l < count ? q.row(first + l) : nullptr;
        for (Eigen::Index k = 0; k < depth_; ++k) {
            const auto code = src ? static_cast<std::uint8_t>(src[k]) : std::uint8_t{0};
            dst[(k / 4 * lanes_ + l) * 4 + k % 4] = static_cast<std::uint8_t>(code ^ flip);
        }
        for (Eigen::Index b = 0; b < blocks_; ++b) {
            d[b * lanes_ + l] = src ? q.d[sz((first + l) * blocks_ + b)] : 0.0f;
        }
    }
    if (sums_.empty()) {
        return;
    }
    std::int16_t* s = sums_.data() + p * blocks_ * 16 * lanes_;
    for (Eigen::Index l = 0; l < count; ++l) {
        for (Eigen::Index b = 0; b < blocks_; ++b) {
            const std::int16_t* from = q.sums.data() + ((first + l) * blocks_ + b) * 16;
            for (Eigen::Index i = 0; i < 16; ++i) {
                s[((b * 8 + i / 2) * lanes_ + l) * 2 + i % 2] = from[i];
            }
        }
    }
}

Q8ActPanel ActPanels::panel(Eigen::Index p) const {
    return {codes_.data() + p * lanes_ * depth_, d_.data() + p * blocks_ * lanes_,
            sums_.empty() ? nullptr : sums_.data() + p * blocks_ * 16 * lanes_,
            std::min(lanes_, rows_ - p * lanes_)};
}

void DecodedRows::decode(const BlockMatrix& w, const Q8Format& f, Eigen::Index first,
                         Eigen::Index count, Eigen::Index padded, bool signedCodes,
                         bool pairedScales) {
    const Eigen::Index depth = w.cols;
    const Eigen::Index blocks = depth / f.blockElements;
    // Sized, not cleared: every row below `count` is written, only the padding is zeroed.
    const auto fit = [&](auto& v, Eigen::Index perRow) {
        v.resize(sz(padded * perRow));
        std::fill(v.begin() + count * perRow, v.end(), 0);
    };
    fit(codes_, depth);
    fit(d_, blocks);
    fit(dmin_, f.hasMin ? blocks : 0);
    fit(offset_, blocks);
    fit(scales_, blocks * f.groups);
    fit(minima_, f.hasMin ? blocks * 8 : 0);
    for (Eigen::Index r = 0; r < count; ++r) {
        decodeRow(w.bytes.data() + (first + r) * w.rowBytes, f, r, blocks, signedCodes,
                  pairedScales);
    }
    view_ = {codes_.data(),  depth,          d_.data(),      f.hasMin ? dmin_.data() : nullptr,
             offset_.data(), scales_.data(), minima_.data(), blocks,
             padded};
}

void DecodedRows::decodeRow(const std::byte* row, const Q8Format& f, Eigen::Index r,
                            Eigen::Index blocks, bool signedCodes, bool pairedScales) {
    const int elements = f.blockElements;
    const int groupSize = elements / f.groups;
    std::int8_t* codes = codes_.data() + r * blocks * elements;
    BlockScales s;
    for (Eigen::Index b = 0; b < blocks; ++b) {
        std::int8_t* c = codes + b * elements;
        f.decode(row + b * f.blockBytes, c, s);
        const Eigen::Index at = r * blocks + b;
        d_[sz(at)] = s.d;
        for (int g = 0; g < f.groups; ++g) {
            scales_[sz(at * f.groups + g)] =
                pairedScales ? int16Pair(s.scale[g], s.scale[g]) : s.scale[g];
        }
        offset_[sz(at)] = signedCodes
                              ? 0
                              : -128 * (groupSize == 16 ? weightedSum<16>(c, s.scale, f.groups)
                                                        : weightedSum<32>(c, s.scale, f.groups));
        if (!f.hasMin) {
            continue;
        }
        dmin_[sz(at)] = s.dmin;
        // Pair i meets the activation sums of 16 codes 2i and 2i + 1: one group of 32 (Q4_K,
        // Q5_K) or two groups of 16 (Q2_K).
        for (int i = 0; i < 8; ++i) {
            const bool wide = f.groups == 8;
            minima_[sz(at * 8 + i)] =
                int16Pair(s.min[wide ? i : 2 * i], s.min[wide ? i : 2 * i + 1]);
        }
    }
}

}  // namespace attnscope::ops::detail
