// Reader for the safetensors format (https://huggingface.co/docs/safetensors), memory-mapped.
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON describing every tensor
// (dtype, shape, data_offsets relative to the data area), then the data area. Opening checks
// every offset and shape against the file size and each other before anything is read, so a
// truncated or hostile file gives a FormatError ("<file>: <tensor>: <reason>"), never an
// out-of-bounds read. Objects are immutable after opening; reads are thread-safe.
//
// Hand-written because the safetensors project ships no C/C++ library in Debian; the format
// is a JSON header plus raw bytes, which nlohmann-json and mmap cover.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "attnscope/io/mapped_file.h"

namespace attnscope::io {

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

std::string_view dtypeName(DType dtype);
std::size_t dtypeSize(DType dtype);

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::span<const std::byte> bytes;  // exactly product(shape) * dtypeSize(dtype) bytes

    std::int64_t numel() const;
};

class SafetensorsFile {
public:
    explicit SafetensorsFile(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return m_file.path(); }

    // nullptr when the file holds no tensor of that name.
    const TensorInfo* find(const std::string& name) const;

    const std::map<std::string, TensorInfo>& tensors() const { return m_tensors; }

    const std::map<std::string, std::string>& metadata() const { return m_metadata; }

    // Takes a tensor's pages out of the resident set once it has been copied (MappedFile).
    void dropPages(const TensorInfo& tensor) const noexcept { m_file.dropPages(tensor.bytes); }

private:
    MappedFile m_file;
    std::map<std::string, TensorInfo> m_tensors;
    std::map<std::string, std::string> m_metadata;
};

// Widens a F32/F16/BF16 tensor into `out`, which must hold numel() floats. Other dtypes throw
// UnsupportedModel naming the file and tensor.
void widenToFloat(const TensorInfo& tensor, std::span<float> out, const std::string& file);

}  // namespace attnscope::io
