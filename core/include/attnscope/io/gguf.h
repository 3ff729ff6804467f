// Reader for GGUF, the single-file model format of llama.cpp and Ollama (versions 2 and 3,
// little-endian), memory-mapped.
//
// Layout (ggml's docs/gguf.md): "GGUF", version, tensor count, metadata count, the metadata
// key/value pairs, the tensor infos (name, dims with ne[0] the row length — PyTorch's shape
// reversed —, ggml type, offset), padding to `general.alignment` (default 32), then the data
// section that every offset is relative to.
//
// Opening validates everything before anything is trusted: counts against the bytes left,
// string and array lengths, array nesting (at most kMaxNesting deep), the total metadata size,
// duplicate keys and tensor names, value and tensor types, dims and their product, row lengths
// against the type's block size, offsets against the alignment, sizes against the file, and
// overlaps. Any failure is a FormatError "<file>: <where>: <reason>" where <where> is a byte
// offset, a key or a tensor; parsing is linear in the file's header. Metadata values are views
// into the mapping, decoded when asked for. Immutable after opening; reads are thread-safe.
//
// Hand-written from the format's documentation: no Debian package reads GGUF.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attnscope/io/ggml_types.h"
#include "attnscope/io/mapped_file.h"

namespace attnscope::io {

enum class GgufType : std::uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};

std::string_view ggufTypeName(GgufType type);  // "u32", "string", "array" …

// One metadata value: a view of its bytes in the file, validated when the file was opened.
struct GgufValue {
    GgufType type = GgufType::U8;
    GgufType elementType = GgufType::U8;  // arrays only
    std::uint64_t count = 0;              // arrays only: number of elements
    std::span<const std::byte> bytes;     // scalars: the value; arrays: the elements

    // Integers of any width and sign that fit the result; nullopt for other types or a
    // negative value asked for as unsigned.
    std::optional<std::uint64_t> asUnsigned() const;
    std::optional<std::int64_t> asSigned() const;
    // F32, F64, or any integer.
    std::optional<double> asNumber() const;
    std::optional<bool> asBool() const;
    std::optional<std::string_view> asString() const;

    // "u32 7", "string 'llama'", "array of 32000 string": for messages and `info`.
    std::string describe() const;
};

struct GgufTensor {
    std::string name;
    GgmlType type = GgmlType::F32;
    std::vector<std::int64_t> ne;  // ggml order: ne[0] is the row length
    std::uint64_t offset = 0;      // relative to the data section
    std::span<const std::byte> bytes;

    std::int64_t elements() const;

    std::int64_t rowLength() const { return ne.empty() ? 1 : ne[0]; }

    std::int64_t rows() const;                     // product of ne[1…]
    std::vector<std::int64_t> torchShape() const;  // ne reversed
};

class GgufFile {
public:
    static constexpr int kMaxNesting = 8;                           // arrays inside arrays
    static constexpr std::uint64_t kMaxMetadataBytes = 1ull << 30;  // header up to the data

    explicit GgufFile(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return m_file.path(); }

    std::uint32_t version() const { return m_version; }

    std::uint64_t alignment() const { return m_alignment; }

    std::uint64_t dataOffset() const { return m_dataOffset; }  // from the start of the file

    std::uint64_t fileSize() const { return m_file.bytes().size(); }

    // Keys in file order, each with its value.
    const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return m_metadata; }

    const GgufValue* find(std::string_view key) const;

    const std::vector<GgufTensor>& tensors() const { return m_tensors; }

    const GgufTensor* tensor(std::string_view name) const;

    // Typed reads for loaders; a value of the wrong type throws FormatError naming the file,
    // the key, the type expected and the value found.
    std::optional<std::uint64_t> unsignedAt(std::string_view key) const;
    std::optional<double> numberAt(std::string_view key) const;
    std::optional<bool> boolAt(std::string_view key) const;
    std::optional<std::string_view> stringAt(std::string_view key) const;
    std::vector<std::string_view> stringArray(std::string_view key) const;  // empty if absent
    std::vector<double> numberArray(std::string_view key) const;            // empty if absent

    // "<file>: key '<key>'": the context of an error about one value.
    std::string where(std::string_view key) const;

    void dropPages(const GgufTensor& tensor) const noexcept { m_file.dropPages(tensor.bytes); }

private:
    const GgufValue& arrayOf(std::string_view key, GgufType element, bool numeric,
                             const GgufValue& value) const;

    MappedFile m_file;
    std::uint32_t m_version = 0;
    std::uint64_t m_alignment = 32;
    std::uint64_t m_dataOffset = 0;
    std::vector<std::pair<std::string, GgufValue>> m_metadata;
    std::unordered_map<std::string, std::size_t> m_keyIndex;
    std::vector<GgufTensor> m_tensors;
    std::unordered_map<std::string, std::size_t> m_tensorIndex;

    friend class GgufParser;
};

}  // namespace attnscope::io
