#include "attnscope/io/ggml_blocks.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "attnscope/base/eigen_core.h"
#include "attnscope/base/error.h"

// Built with -ffp-contract=off (CMakeLists.txt): every expression below rounds each product
// and each sum to fp32, as ggml's C source reads.

namespace attnscope::io {

namespace {

using u8 = std::uint8_t;

float halfAt(const u8* p) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, p, 2);
    return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
}

float bf16At(const u8* p) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, p, 2);
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// Q4_0 / Q4_1: an f16 scale (and f16 min), then 16 bytes: value j in the low nibble of byte j,
// value j + 16 in its high nibble.
void q4Block(const u8* b, float* y, bool withMin) {
    const float d = halfAt(b);
    const float m = withMin ? halfAt(b + 2) : 0.0f;
    const u8* qs = b + (withMin ? 4 : 2);
    for (int j = 0; j < 16; ++j) {
        if (withMin) {
            y[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
            y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
        } else {
            y[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
            y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
        }
    }
}

// Q5_0 / Q5_1: as Q4 with a fifth bit per value in a little-endian uint32 qh (bit j for
// value j).
void q5Block(const u8* b, float* y, bool withMin) {
    const float d = halfAt(b);
    const float m = withMin ? halfAt(b + 2) : 0.0f;
    const u8* p = b + (withMin ? 4 : 2);
    std::uint32_t qh = 0;
    std::memcpy(&qh, p, 4);
    const u8* qs = p + 4;
    for (int j = 0; j < 16; ++j) {
        const int lo = (qs[j] & 0x0F) | static_cast<int>(((qh >> j) << 4) & 0x10);
        const int hi = (qs[j] >> 4) | static_cast<int>((qh >> (j + 12)) & 0x10);
        if (withMin) {
            y[j] = static_cast<float>(lo) * d + m;
            y[j + 16] = static_cast<float>(hi) * d + m;
        } else {
            y[j] = static_cast<float>(lo - 16) * d;
            y[j + 16] = static_cast<float>(hi - 16) * d;
        }
    }
}

void q8_0Block(const u8* b, float* y) {
    const float d = halfAt(b);
    for (int j = 0; j < 32; ++j) {
        y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
    }
}

// Q2_K: scales[16] (low nibble scale, high nibble min), qs[64], f16 d, f16 dmin. Each 32
// bytes of qs hold 128 values, 2 bits each, in four shifts of two 16-value groups.
void q2kBlock(const u8* b, float* y) {
    const u8* scales = b;
    const u8* q = b + 16;
    const float d = halfAt(b + 80);
    const float min = halfAt(b + 82);
    int is = 0;
    for (int n = 0; n < 256; n += 128) {
        for (int shift = 0; shift < 8; shift += 2) {
            for (int half = 0; half < 2; ++half) {
                const u8 sc = scales[is++];
                const float dl = d * static_cast<float>(sc & 0xF);
                const float ml = min * static_cast<float>(sc >> 4);
                for (int l = 0; l < 16; ++l) {
                    *y++ = dl * static_cast<float>((q[l + 16 * half] >> shift) & 3) - ml;
                }
            }
        }
        q += 32;
    }
}

// Q3_K's sixteen 6-bit scales: low 4 bits in bytes 0–7 (two per byte), high 2 bits in bytes
// 8–11 (four per byte), stored minus 32.
void q3kScales(const u8* packed, int* scales) {
    for (int i = 0; i < 16; ++i) {
        const int low = i < 8 ? (packed[i] & 0xF) : (packed[i - 8] >> 4);
        const int high = (packed[8 + i % 4] >> (2 * (i / 4))) & 3;
        scales[i] = (low | (high << 4)) - 32;
    }
}

// Q3_K: hmask[32] (the third bit, cleared meaning −4), qs[64] (low 2 bits), scales[12], f16 d.
// Sixteen values share a scale; the loops run over them so the compiler vectorizes them (the
// nested form took 1.0 ns a weight, more than a long input's product).
void q3kBlock(const u8* b, float* y) {
    const u8* hm = b;
    const u8* q = b + 32;
    const float dAll = halfAt(b + 108);
    int scales[16];
    q3kScales(b + 96, scales);
    for (int group = 0; group < 16; ++group) {
        const int n = group / 8;  // which 32 bytes of qs
        const int shift = 2 * (group / 2 % 4);
        const int half = group % 2;             // which 16 of those bytes
        const int bit = 4 * n + group / 2 % 4;  // which hmask bit
        const float dl = dAll * static_cast<float>(scales[group]);
        const u8* qs = q + 32 * n + 16 * half;
        const u8* hs = hm + 16 * half;
        for (int l = 0; l < 16; ++l) {
            const int v = ((qs[l] >> shift) & 3) - 4 + 4 * ((hs[l] >> bit) & 1);
            y[16 * group + l] = dl * static_cast<float>(v);
        }
    }
}

// The 6-bit scale and min of sub-block j of Q4_K / Q5_K from their 12 packed bytes.
void scaleMinK4(int j, const u8* q, u8& d, u8& m) {
    if (j < 4) {
        d = q[j] & 63;
        m = q[j + 4] & 63;
    } else {
        d = static_cast<u8>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        m = static_cast<u8>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// Q4_K / Q5_K: f16 d, f16 dmin, scales[12], (Q5_K: qh[32]), qs[128]. Each 32 bytes of qs hold
// two 32-value sub-blocks, low nibbles first; Q5_K's fifth bit for pair p is bit 2p / 2p + 1
// of qh.
void q45kBlock(const u8* b, float* y, bool fifthBit) {
    const float d = halfAt(b);
    const float min = halfAt(b + 2);
    const u8* scales = b + 4;
    const u8* qh = b + 16;
    const u8* ql = b + (fifthBit ? 48 : 16);
    for (int pair = 0; pair < 4; ++pair) {
        u8 sc = 0;
        u8 mn = 0;
        scaleMinK4(2 * pair, scales, sc, mn);
        const float d1 = d * static_cast<float>(sc);
        const float m1 = min * static_cast<float>(mn);
        scaleMinK4(2 * pair + 1, scales, sc, mn);
        const float d2 = d * static_cast<float>(sc);
        const float m2 = min * static_cast<float>(mn);
        const u8 u1 = static_cast<u8>(1u << (2 * pair));
        const u8 u2 = static_cast<u8>(2u << (2 * pair));
        for (int l = 0; l < 32; ++l) {
            const int high = fifthBit && (qh[l] & u1) ? 16 : 0;
            *y++ = d1 * static_cast<float>((ql[l] & 0xF) + high) - m1;
        }
        for (int l = 0; l < 32; ++l) {
            const int high = fifthBit && (qh[l] & u2) ? 16 : 0;
            *y++ = d2 * static_cast<float>((ql[l] >> 4) + high) - m2;
        }
        ql += 32;
    }
}

// Q6_K: ql[128] (low 4 bits), qh[64] (high 2 bits), int8 scales[16], f16 d; value minus 32.
// Per 128 values, quarter j takes the low or high nibbles of ql[0..31] or ql[32..63] and bits
// 2j of qh; sixteen values share a scale. Written as runs of sixteen so the compiler vectorizes
// them (the four-values-a-step form took 1.2 ns a weight); the same products, (d · scale) · q.
void q6kBlock(const u8* b, float* y) {
    const u8* ql = b;
    const u8* qh = b + 128;
    const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192);
    const float d = halfAt(b + 208);
    for (int n = 0; n < 2; ++n) {
        for (int quarter = 0; quarter < 4; ++quarter) {
            const u8* lo = ql + 64 * n + 32 * (quarter % 2);
            const int loShift = 4 * (quarter / 2);
            const u8* hi = qh + 32 * n;
            const int hiShift = 2 * quarter;
            for (int half = 0; half < 2; ++half) {
                const float dl = d * static_cast<float>(sc[8 * n + 2 * quarter + half]);
                float* out = y + 128 * n + 32 * quarter + 16 * half;
                for (int l = 0; l < 16; ++l) {
                    const int k = 16 * half + l;
                    const int v = ((lo[k] >> loShift) & 0xF) | (((hi[k] >> hiShift) & 3) << 4);
                    out[l] = dl * static_cast<float>(v - 32);
                }
            }
        }
    }
}

// Q8_K: an fp32 d, int8 qs[256], then 16 int16 group sums that dequantization ignores.
void q8kBlock(const u8* b, float* y) {
    float d = 0;
    std::memcpy(&d, b, 4);
    for (int j = 0; j < 256; ++j) {
        y[j] = d * static_cast<float>(static_cast<std::int8_t>(b[4 + j]));
    }
}

void decodeBlock(GgmlType type, const u8* b, float* y) {
    switch (type) {
        case GgmlType::Q4_0:
            return q4Block(b, y, false);
        case GgmlType::Q4_1:
            return q4Block(b, y, true);
        case GgmlType::Q5_0:
            return q5Block(b, y, false);
        case GgmlType::Q5_1:
            return q5Block(b, y, true);
        case GgmlType::Q8_0:
            return q8_0Block(b, y);
        case GgmlType::Q2_K:
            return q2kBlock(b, y);
        case GgmlType::Q3_K:
            return q3kBlock(b, y);
        case GgmlType::Q4_K:
            return q45kBlock(b, y, false);
        case GgmlType::Q5_K:
            return q45kBlock(b, y, true);
        case GgmlType::Q6_K:
            return q6kBlock(b, y);
        case GgmlType::Q8_K:
            return q8kBlock(b, y);
        case GgmlType::F32:
            std::memcpy(y, b, 4);
            return;
        case GgmlType::F16:
            *y = halfAt(b);
            return;
        case GgmlType::BF16:
            *y = bf16At(b);
            return;
        default:
            return;  // not readable: refused before any block is decoded
    }
}

}  // namespace

void dequantize(GgmlType type, std::span<const std::byte> src, std::span<float> out) {
    const GgmlTypeInfo& info = ggmlTypeInfo(type);
    const std::size_t blocks = out.size() / info.blockElements;
    if (!info.readable || out.size() % info.blockElements != 0 ||
        src.size() != blocks * info.blockBytes) {
        throw InvalidArgument("dequantize: " + std::string(info.name) + ": " +
                              std::to_string(src.size()) + " bytes do not hold " +
                              std::to_string(out.size()) + " readable values");
    }
    if (type == GgmlType::F32 && !out.empty()) {
        std::memcpy(out.data(), src.data(), src.size());
        return;
    }
    const auto* b = reinterpret_cast<const u8*>(src.data());
    float* y = out.data();
    for (std::size_t i = 0; i < blocks; ++i) {
        decodeBlock(type, b + i * info.blockBytes, y + i * info.blockElements);
    }
}

}  // namespace attnscope::io
