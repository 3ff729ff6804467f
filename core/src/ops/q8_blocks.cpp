// The weight blocks as ggml's vec_dot functions read them (src/ggml-cpu/quants.c, *_generic):
// codes in element order, integer scales, f16 d and dmin. Block layouts from ggml-common.h.
#include "q8_blocks.h"

#include <cstring>
#include <string>

#include "attnscope/base/eigen_core.h"
#include "attnscope/base/error.h"

namespace attnscope::ops::detail {

namespace {

using u8 = std::uint8_t;
using i8 = std::int8_t;
using io::GgmlType;

const u8* bytesOf(const std::byte* p) {
    return reinterpret_cast<const u8*>(p);
}

float halfAt(const u8* p) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, p, 2);
    return halfToFloat(bits);
}

void unitScales(BlockScales& s) {
    s.scale[0] = 1;
}

// Q4_0: f16 d, 16 bytes; value j in the low nibble of byte j, value j + 16 in its high nibble;
// code = nibble − 8.
void decodeQ4_0(const std::byte* block, i8* codes, BlockScales& s) {
    const u8* b = bytesOf(block);
    s.d = halfAt(b);
    unitScales(s);
    for (int j = 0; j < 16; ++j) {
        codes[j] = static_cast<i8>((b[2 + j] & 0x0F) - 8);
        codes[j + 16] = static_cast<i8>((b[2 + j] >> 4) - 8);
    }
}

// Q5_0: f16 d, a little-endian uint32 of fifth bits (bit j for value j), then Q4_0's nibbles;
// code = 5-bit value − 16.
void decodeQ5_0(const std::byte* block, i8* codes, BlockScales& s) {
    const u8* b = bytesOf(block);
    s.d = halfAt(b);
    unitScales(s);
    std::uint32_t qh = 0;
    std::memcpy(&qh, b + 2, 4);
    const u8* qs = b + 6;
    for (int j = 0; j < 16; ++j) {
        const int lo = (qs[j] & 0x0F) | static_cast<int>(((qh >> j) & 1u) << 4);
        const int hi = (qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
        codes[j] = static_cast<i8>(lo - 16);
        codes[j + 16] = static_cast<i8>(hi - 16);
    }
}

void decodeQ8_0(const std::byte* block, i8* codes, BlockScales& s) {
    const u8* b = bytesOf(block);
    s.d = halfAt(b);
    unitScales(s);
    std::memcpy(codes, b + 2, 32);
}

// Q2_K: scales[16] (scale in the low nibble, min in the high), qs[64], f16 d, f16 dmin. Each 32
// bytes of qs hold 128 values: value 32·j + l of the half at bits 2j of byte l.
void decodeQ2_K(const std::byte* block, i8* codes, BlockScales& s) {
    const u8* b = bytesOf(block);
    for (int g = 0; g < 16; ++g) {
        s.scale[g] = b[g] & 0x0F;
        s.min[g] = b[g] >> 4;
    }
    s.d = halfAt(b + 80);
    s.dmin = halfAt(b + 82);
    for (int half = 0; half < 2; ++half) {
        const u8* q = b + 16 + 32 * half;
        for (int j = 0; j < 4; ++j) {
            for (int l = 0; l < 32; ++l) {
                codes[128 * half + 32 * j + l] = static_cast<i8>((q[l] >> (2 * j)) & 3);
            }
        }
    }
}

// Q3_K: hmask[32], qs[64], 12 bytes of 6-bit scales (stored + 32), f16 d. Value 32·j + l of
// half h: its two low bits at bits 2j of qs[32h + l]; 4 is subtracted unless bit 4h + j of
// hmask[l] is set.
void decodeQ3_K(const std::byte* block, i8* codes, BlockScales& s) {
    const u8* b = bytesOf(block);
    const u8* sc = b + 96;
    for (int g = 0; g < 16; ++g) {
        const int low = g < 8 ? (sc[g] & 0x0F) : (sc[g - 8] >> 4);
        const int high = (sc[8 + g % 4] >> (2 * (g / 4))) & 3;
        s.scale[g] = (low | (high << 4)) - 32;
    }
    s.d = halfAt(b + 108);
    for (int half = 0; half < 2; ++half) {
        const u8* q = b + 32 + 32 * half;
        for (int j = 0; j < 4; ++j) {
            const int bit = 4 * half + j;
            for (int l = 0; l < 32; ++l) {
                const int low = (q[l] >> (2 * j)) & 3;
                const int sub = ((b[l] >> bit) & 1) ? 0 : 4;
                codes[128 * half + 32 * j + l] = static_cast<i8>(low - sub);
            }
        }
    }
}

// Q4_K and Q5_K's 12 bytes of 6-bit scales and mins (ggml's get_scale_min_k4).
void kScales(const u8* p, BlockScales& s) {
    for (int j = 0; j < 8; ++j) {
        if (j < 4) {
            s.scale[j] = p[j] & 63;
            s.min[j] = p[j + 4] & 63;
        } else {
            s.scale[j] = (p[j + 4] & 0x0F) | ((p[j - 4] >> 6) << 4);
            s.min[j] = (p[j + 4] >> 4) | ((p[j] >> 6) << 4);
        }
    }
}

// Q4_K: f16 d, f16 dmin, 12 scale bytes, qs[128]: chunk c of 64 values takes bytes 32c…32c+31,
// low nibbles first (group 2c), then high nibbles (group 2c + 1).
void decodeQ4_K(const std::byte* block, i8* codes, BlockScales& s) {
    const u8* b = bytesOf(block);
    s.d = halfAt(b);
    s.dmin = halfAt(b + 2);
    kScales(b + 4, s);
    for (int c = 0; c < 4; ++c) {
        const u8* q = b + 16 + 32 * c;
        for (int l = 0; l < 32; ++l) {
            codes[64 * c + l] = static_cast<i8>(q[l] & 0x0F);
            codes[64 * c + 32 + l] = static_cast<i8>(q[l] >> 4);
        }
    }
}

// Q5_K: Q4_K with qh[32] before qs: the fifth bit of value 64c + l is bit 2c of qh[l], of value
// 64c + 32 + l bit 2c + 1.
void decodeQ5_K(const std::byte* block, i8* codes, BlockScales& s) {
    const u8* b = bytesOf(block);
    s.d = halfAt(b);
    s.dmin = halfAt(b + 2);
    kScales(b + 4, s);
    const u8* qh = b + 16;
    for (int c = 0; c < 4; ++c) {
        const u8* q = b + 48 + 32 * c;
        for (int l = 0; l < 32; ++l) {
            const int lowBit = (qh[l] >> (2 * c)) & 1;
            const int highBit = (qh[l] >> (2 * c + 1)) & 1;
            codes[64 * c + l] = static_cast<i8>((q[l] & 0x0F) | (lowBit << 4));
            codes[64 * c + 32 + l] = static_cast<i8>((q[l] >> 4) | (highBit << 4));
        }
    }
}

// Q6_K: ql[128], qh[64], int8 scales[16], f16 d; per half of 128 values, ql + 64h and qh + 32h:
// values l, l + 32, l + 64, l + 96 are low nibbles of ql[l], ql[l + 32], high nibbles of the
// same, each with two high bits from qh[l] at bits 0, 2, 4, 6; code = 6-bit value − 32.
void decodeQ6_K(const std::byte* block, i8* codes, BlockScales& s) {
    const u8* b = bytesOf(block);
    for (int g = 0; g < 16; ++g) {
        s.scale[g] = static_cast<i8>(b[192 + g]);
    }
    s.d = halfAt(b + 208);
    for (int half = 0; half < 2; ++half) {
        const u8* ql = b + 64 * half;
        const u8* qh = b + 128 + 32 * half;
        i8* out = codes + 128 * half;
        for (int l = 0; l < 32; ++l) {
            out[l] = static_cast<i8>(((ql[l] & 0x0F) | ((qh[l] & 3) << 4)) - 32);
            out[l + 32] = static_cast<i8>(((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32);
            out[l + 64] = static_cast<i8>(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
            out[l + 96] = static_cast<i8>(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
        }
    }
}

constexpr Q8Format kFormats[] = {
    {GgmlType::Q4_0, GgmlType::Q8_0, 32, 18, 1, false, 8, &decodeQ4_0},
    {GgmlType::Q5_0, GgmlType::Q8_0, 32, 22, 1, false, 16, &decodeQ5_0},
    {GgmlType::Q8_0, GgmlType::Q8_0, 32, 34, 1, false, 128, &decodeQ8_0},
    {GgmlType::Q2_K, GgmlType::Q8_K, 256, 84, 16, true, 3, &decodeQ2_K},
    {GgmlType::Q3_K, GgmlType::Q8_K, 256, 110, 16, false, 4, &decodeQ3_K},
    {GgmlType::Q4_K, GgmlType::Q8_K, 256, 144, 8, true, 15, &decodeQ4_K},
    {GgmlType::Q5_K, GgmlType::Q8_K, 256, 176, 8, true, 31, &decodeQ5_K},
    {GgmlType::Q6_K, GgmlType::Q8_K, 256, 210, 16, false, 32, &decodeQ6_K},
};

}  // namespace

float halfToFloat(std::uint16_t bits) {
    return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
}

std::uint16_t floatToHalf(float value) {
    return Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(value));
}

const Q8Format* q8Format(io::GgmlType weights) {
    for (const Q8Format& f : kFormats) {
        if (f.weights == weights) {
            return &f;
        }
    }
    return nullptr;
}

const Q8Format& requireQ8Format(io::GgmlType weights) {
    const Q8Format* f = q8Format(weights);
    if (f == nullptr) {
        throw InvalidArgument(std::string(io::ggmlTypeName(weights)) +
                              " weights are not supported in 8-bit mode");
    }
    return *f;
}

}  // namespace attnscope::ops::detail
