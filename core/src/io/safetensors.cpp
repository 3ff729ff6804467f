#include "attnscope/io/safetensors.h"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "attnscope/base/eigen_core.h"
#include "attnscope/base/error.h"
#include "attnscope/io/checked_read.h"
#include "attnscope/io/json_text.h"

namespace attnscope::io {

namespace {

using nlohmann::json;

// The header of a real checkpoint is a few hundred KB; anything much larger is corrupt.
constexpr std::uint64_t kMaxHeaderBytes = 100ull * 1024 * 1024;

struct DTypeEntry {
    const char* name;
    DType dtype;
    std::size_t size;
};

constexpr DTypeEntry kDTypes[] = {
    {"F64", DType::F64, 8},   {"F32", DType::F32, 4}, {"F16", DType::F16, 2},
    {"BF16", DType::BF16, 2}, {"I64", DType::I64, 8}, {"I32", DType::I32, 4},
    {"I16", DType::I16, 2},   {"I8", DType::I8, 1},   {"U8", DType::U8, 1},
    {"BOOL", DType::Bool, 1},
};

DType parseDType(const std::string& name, const std::string& where) {
    for (const DTypeEntry& e : kDTypes) {
        if (name == e.name) {
            return e.dtype;
        }
    }
    throw FormatError(where + ": unknown dtype '" + clipped(name) +
                      "' (expected one of F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL)");
}

std::uint64_t readHeaderLength(std::span<const std::byte> bytes, const std::string& file) {
    if (bytes.size() < 8) {
        throw FormatError(file + ": byte 0: file is " + std::to_string(bytes.size()) +
                          " bytes, too short for the 8-byte safetensors header length");
    }
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) {  // little-endian regardless of the host
        n = (n << 8) | static_cast<std::uint64_t>(bytes[static_cast<std::size_t>(i)]);
    }
    if (n > kMaxHeaderBytes || n > bytes.size() - 8) {
        throw FormatError(file + ": byte 0: header length " + std::to_string(n) +
                          " exceeds the file size (" + std::to_string(bytes.size()) +
                          " bytes) or the 100 MB limit");
    }
    return n;
}

std::vector<std::int64_t> parseShape(const json& j, const std::string& where) {
    if (!j.is_array()) {
        throw FormatError(where + ".shape: expected an array of sizes");
    }
    std::vector<std::int64_t> shape;
    for (const json& d : j) {
        if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<std::int64_t>() >= 0)) {
            throw FormatError(where + ".shape: expected non-negative integers, found " +
                              quoteJson(d));
        }
        shape.push_back(d.get<std::int64_t>());
    }
    return shape;
}

TensorInfo parseEntry(const std::string& name, const json& j, std::span<const std::byte> data,
                      const std::string& file) {
    const std::string where = file + ": " + clipped(name);
    if (!j.is_object() || !j.contains("dtype") || !j.contains("shape") ||
        !j.contains("data_offsets")) {
        throw FormatError(where + ": expected an object with dtype, shape and data_offsets");
    }
    if (!j["dtype"].is_string()) {
        throw FormatError(where + ".dtype: expected a string");
    }
    TensorInfo t;
    t.name = name;
    t.dtype = parseDType(j["dtype"].get<std::string>(), where);
    t.shape = parseShape(j["shape"], where);
    const json& off = j["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() ||
        !off[1].is_number_unsigned()) {
        throw FormatError(where + ".data_offsets: expected [begin, end] as non-negative integers");
    }
    const auto begin = off[0].get<std::uint64_t>();
    const auto end = off[1].get<std::uint64_t>();
    std::uint64_t expected = dtypeSize(t.dtype);
    for (std::int64_t d : t.shape) {
        expected = checkedMul(expected, static_cast<std::uint64_t>(d), where + ".shape");
    }
    if (end < begin || end - begin != expected) {
        throw FormatError(where + ": data_offsets [" + std::to_string(begin) + ", " +
                          std::to_string(end) + ") hold " +
                          std::to_string(end >= begin ? end - begin : 0) +
                          " bytes but dtype and shape need " + std::to_string(expected));
    }
    t.bytes = checkedSlice(data, begin, end, where + ": data_offsets (data area)");
    return t;
}

void checkNoOverlap(const std::map<std::string, TensorInfo>& tensors, const std::string& file) {
    std::vector<const TensorInfo*> sorted;
    for (const auto& [name, t] : tensors) {
        sorted.push_back(&t);
    }
    std::sort(sorted.begin(), sorted.end(), [](const TensorInfo* a, const TensorInfo* b) {
        return a->bytes.data() < b->bytes.data();
    });
    // A tensor with no elements owns no bytes: the safetensors writer gives it [x, x] where x
    // may be the start of the next tensor, so it cannot overlap anything.
    std::erase_if(sorted, [](const TensorInfo* t) { return t->bytes.empty(); });
    for (std::size_t i = 1; i < sorted.size(); ++i) {
        const TensorInfo& prev = *sorted[i - 1];
        if (prev.bytes.data() + prev.bytes.size() > sorted[i]->bytes.data()) {
            throw FormatError(file + ": " + clipped(sorted[i]->name) + ": data overlaps tensor " +
                              clipped(prev.name));
        }
    }
}

}  // namespace

std::string_view dtypeName(DType dtype) {
    for (const DTypeEntry& e : kDTypes) {
        if (e.dtype == dtype) {
            return e.name;
        }
    }
    return "?";
}

std::size_t dtypeSize(DType dtype) {
    for (const DTypeEntry& e : kDTypes) {
        if (e.dtype == dtype) {
            return e.size;
        }
    }
    return 0;
}

std::int64_t TensorInfo::numel() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape) {
        n *= d;  // cannot overflow: checked against the byte size when parsed
    }
    return n;
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path) : m_file(path) {
    const std::string file = path.string();
    const std::span<const std::byte> bytes = m_file.bytes();
    const std::uint64_t n = readHeaderLength(bytes, file);
    const auto* text = reinterpret_cast<const char*>(bytes.data() + 8);
    const json header = parseJson(std::string_view(text, n),
                                  file + ": header (bytes 8.." + std::to_string(8 + n) + ")");
    if (!header.is_object()) {
        throw FormatError(file + ": bytes 8.." + std::to_string(8 + n) +
                          ": header is not a JSON object");
    }
    const std::span<const std::byte> data = bytes.subspan(8 + n);
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) {
                throw FormatError(file + ": __metadata__: expected an object of strings");
            }
            for (const auto& [k, v] : entry.items()) {
                if (!v.is_string()) {
                    throw FormatError(file + ": __metadata__." + clipped(k) +
                                      ": expected a string, found " + quoteJson(v));
                }
                m_metadata[k] = v.get<std::string>();
            }
            continue;
        }
        m_tensors.emplace(name, parseEntry(name, entry, data, file));
    }
    checkNoOverlap(m_tensors, file);
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
    auto it = m_tensors.find(name);
    return it == m_tensors.end() ? nullptr : &it->second;
}

void widenToFloat(const TensorInfo& tensor, std::span<float> out, const std::string& file) {
    const auto n = static_cast<std::size_t>(tensor.numel());
    if (out.size() != n) {
        throw InvalidArgument(file + ": " + tensor.name + ": destination holds " +
                              std::to_string(out.size()) + " values, tensor has " +
                              std::to_string(n));
    }
    if (n == 0) {
        return;  // a zero-size tensor may have no data pointer; memcpy(nullptr, …) is undefined
    }
    const std::byte* src = tensor.bytes.data();
    switch (tensor.dtype) {
        case DType::F32:
            std::memcpy(out.data(), src, n * sizeof(float));
            return;
        case DType::F16:
            for (std::size_t i = 0; i < n; ++i) {
                std::uint16_t bits = 0;
                std::memcpy(&bits, src + 2 * i, 2);  // unaligned-safe
                out[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
            }
            return;
        case DType::BF16:
            for (std::size_t i = 0; i < n; ++i) {
                std::uint16_t bits = 0;
                std::memcpy(&bits, src + 2 * i, 2);
                out[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
            }
            return;
        default:
            throw UnsupportedModel(file + ": " + tensor.name + ": dtype " +
                                   std::string(dtypeName(tensor.dtype)) +
                                   " is not a weight type (expected F32, F16 or BF16)");
    }
}

}  // namespace attnscope::io
