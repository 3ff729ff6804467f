#include "attnscope/io/gguf.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "attnscope/base/error.h"
#include "attnscope/io/checked_read.h"
#include "gguf_cursor.h"

namespace attnscope::io {

namespace {

constexpr std::uint64_t kHeaderBytes = 24;     // magic, version, two counts
constexpr std::uint64_t kMinKeyValue = 14;     // key length, one key byte, type, one byte
constexpr std::uint64_t kMinTensorInfo = 24;   // name length, n_dims, type, offset
constexpr std::uint64_t kMaxKeyBytes = 65535;  // gguf.md: keys are at most 2^16 − 1 bytes
constexpr std::uint64_t kMaxNameBytes = 63;    // ggml's GGML_MAX_NAME, its NUL excluded
constexpr std::uint32_t kMaxDims = 4;          // GGML_MAX_DIMS
constexpr std::uint64_t kMaxStringBytes = 1ull << 30;
constexpr auto kMaxInt64 = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

bool startsWith(std::span<const std::byte> bytes, std::string_view prefix) {
    return bytes.size() >= prefix.size() &&
           std::memcmp(bytes.data(), prefix.data(), prefix.size()) == 0;
}

bool looksLikeHtml(std::span<const std::byte> bytes) {
    std::string head(reinterpret_cast<const char*>(bytes.data()),
                     std::min<std::size_t>(bytes.size(), 512));
    std::transform(head.begin(), head.end(), head.begin(),
                   [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); });
    return head.find("<!doctype html") != std::string::npos ||
           head.find("<html") != std::string::npos;
}

// The four magic bytes as text where printable, else as hex: "'GGML'" or "0x00 0x01 …".
std::string showMagic(std::span<const std::byte> bytes) {
    std::string text;
    bool printable = true;
    for (std::size_t i = 0; i < 4; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        printable = printable && c >= 0x20 && c < 0x7f;
        text += static_cast<char>(c);
    }
    if (printable) {
        return "'" + text + "'";
    }
    std::string hex;
    for (std::size_t i = 0; i < 4; ++i) {
        static const char* digits = "0123456789abcdef";
        const auto c = static_cast<unsigned char>(bytes[i]);
        hex += std::string(hex.empty() ? "" : " ") + "0x" + digits[c >> 4] + digits[c & 15];
    }
    return hex;
}

void checkMagic(std::span<const std::byte> bytes, const std::string& file) {
    if (startsWith(bytes, "version https://git-lfs")) {
        throw FormatError(file +
                          ": byte 0: this is a Git LFS pointer, not the model's data "
                          "(fetch the file itself, e.g. with `git lfs pull`)");
    }
    if (looksLikeHtml(bytes)) {
        throw FormatError(file +
                          ": byte 0: this is an HTML page (a download that saved a web "
                          "page instead of the model?), not a GGUF file");
    }
    if (bytes.size() < kHeaderBytes) {
        throw FormatError(file + ": byte 0: file is " + std::to_string(bytes.size()) +
                          " bytes, too short for a GGUF header (" + std::to_string(kHeaderBytes) +
                          " bytes)");
    }
    if (!startsWith(bytes, "GGUF")) {
        throw FormatError(file + ": byte 0: bad magic " + showMagic(bytes) +
                          ", expected 'GGUF' (not a GGUF file)");
    }
}

void checkVersion(std::uint32_t version, const std::string& file) {
    const std::uint32_t swapped = __builtin_bswap32(version);
    if (version == 1) {
        throw FormatError(file +
                          ": byte 4: GGUF version 1 is not supported (llama.cpp dropped "
                          "it too; convert the model again)");
    }
    if (swapped == 2 || swapped == 3) {
        throw FormatError(file + ": byte 4: a big-endian GGUF file (version " +
                          std::to_string(swapped) +
                          ", byte-swapped); only little-endian files "
                          "are supported");
    }
    if (version != 2 && version != 3) {
        throw FormatError(file + ": byte 4: GGUF version " + std::to_string(version) +
                          " is not supported (expected 2 or 3)");
    }
}

}  // namespace

// Parses one file into a GgufFile; the members it fills are private, hence a friend class.
class GgufParser {
public:
    GgufParser(GgufFile& out, const std::string& file)
        : m_out(out), m_file(file), m_cursor(out.m_file.bytes(), file) {}

    void parse() {
        const std::span<const std::byte> bytes = m_out.m_file.bytes();
        checkMagic(bytes, m_file);
        m_cursor.skip(4);
        m_out.m_version = m_cursor.u32("the version");
        checkVersion(m_out.m_version, m_file);
        const std::uint64_t tensorCount = readCount("tensor count", kMinTensorInfo, 1);
        const std::uint64_t keyCount = readCount("metadata count", kMinKeyValue, 0);
        for (std::uint64_t i = 0; i < keyCount; ++i) {
            readKeyValue(i);
        }
        readAlignment();
        for (std::uint64_t i = 0; i < tensorCount; ++i) {
            readTensorInfo(i);
        }
        placeData(bytes);
    }

private:
    // A count read at the cursor, checked against what could possibly follow it: `others`
    // counts still to come in the header (8 bytes each).
    std::uint64_t readCount(const char* what, std::uint64_t minItemBytes, std::uint64_t others) {
        const std::uint64_t at = m_cursor.pos();
        const std::uint64_t n = m_cursor.u64(what);
        const std::uint64_t left = m_cursor.left() - std::min(m_cursor.left(), others * 8);
        if (n > left / minItemBytes) {
            throw FormatError(m_file + ": byte " + std::to_string(at) + ": " + what + " " +
                              std::to_string(n) + " cannot fit in the " + std::to_string(left) +
                              " bytes left (each takes at least " + std::to_string(minItemBytes) +
                              ")");
        }
        return n;
    }

    void readKeyValue(std::uint64_t index) {
        const std::uint64_t at = m_cursor.pos();
        const std::string_view key =
            m_cursor.string("the key of metadata pair #" + std::to_string(index), kMaxKeyBytes);
        if (key.empty()) {
            throw FormatError(m_file + ": byte " + std::to_string(at) + ": metadata pair #" +
                              std::to_string(index) + " has an empty key");
        }
        const std::string label = "key '" + clipped(key) + "'";
        if (m_out.m_keyIndex.contains(std::string(key))) {
            fail(label, "duplicate key (byte " + std::to_string(at) + ")");
        }
        const std::uint32_t type = m_cursor.u32("the type of " + label);
        GgufValue value = readValue(type, label, 0);
        m_out.m_keyIndex.emplace(key, m_out.m_metadata.size());
        m_out.m_metadata.emplace_back(std::string(key), value);
        checkHeaderSize();
    }

    // `label` names the value in errors: "key 'tokenizer.ggml.tokens'[17]".
    GgufValue readValue(std::uint32_t type, const std::string& label, int depth) {
        GgufValue v;
        v.type = knownType(type, label);
        const std::uint64_t at = m_cursor.pos();
        if (v.type == GgufType::Array) {
            readArray(v, label, depth);
        } else if (v.type == GgufType::String) {
            v.bytes = asBytes(m_cursor.string(label, kMaxStringBytes));
        } else {
            v.bytes = m_cursor.take(ggufScalarBytes(v.type), label);
            if (v.type == GgufType::Bool && v.bytes[0] != std::byte{0} &&
                v.bytes[0] != std::byte{1}) {
                fail(label, "byte " + std::to_string(at) + ": boolean is " +
                                std::to_string(static_cast<int>(v.bytes[0])) + ", expected 0 or 1");
            }
        }
        return v;
    }

    // An array's element type and length, then its elements: fixed-size ones taken whole,
    // strings, booleans and inner arrays one by one (each consumes at least one byte, so the
    // walk stays linear in the file).
    void readArray(GgufValue& v, const std::string& label, int depth) {
        if (depth >= GgufFile::kMaxNesting) {
            fail(label,
                 "arrays nested more than " + std::to_string(GgufFile::kMaxNesting) + " deep");
        }
        v.elementType = knownType(m_cursor.u32("the element type of " + label), label);
        const std::uint64_t at = m_cursor.pos();
        v.count = m_cursor.u64("the length of " + label);
        const std::uint64_t minBytes = elementBytes(v.elementType);
        if (v.count > m_cursor.left() / minBytes) {
            fail(label, "byte " + std::to_string(at) + ": array of " + std::to_string(v.count) +
                            " " + std::string(ggufTypeName(v.elementType)) + " cannot fit in the " +
                            std::to_string(m_cursor.left()) + " bytes left");
        }
        const std::uint64_t begin = m_cursor.pos();
        const bool oneByOne = v.elementType == GgufType::String ||
                              v.elementType == GgufType::Array || v.elementType == GgufType::Bool;
        if (!oneByOne) {
            m_cursor.take(v.count * minBytes, label);
        }
        for (std::uint64_t i = 0; oneByOne && i < v.count; ++i) {
            readValue(static_cast<std::uint32_t>(v.elementType),
                      label + "[" + std::to_string(i) + "]", depth + 1);
        }
        v.bytes = m_out.m_file.bytes().subspan(begin, m_cursor.pos() - begin);
    }

    static std::uint64_t elementBytes(GgufType type) {
        if (type == GgufType::String) {
            return 8;  // its length
        }
        return type == GgufType::Array ? 12 : ggufScalarBytes(type);  // element type and length
    }

    [[noreturn]] void fail(const std::string& label, const std::string& reason) const {
        throw FormatError(m_file + ": " + label + ": " + reason);
    }

    GgufType knownType(std::uint32_t type, const std::string& label) const {
        if (type > static_cast<std::uint32_t>(GgufType::F64)) {
            fail(label, "unknown value type " + std::to_string(type) + " (expected 0–12)");
        }
        return static_cast<GgufType>(type);
    }

    void checkHeaderSize() const {
        if (m_cursor.pos() > GgufFile::kMaxMetadataBytes) {
            throw FormatError(m_file + ": byte " + std::to_string(m_cursor.pos()) +
                              ": metadata and tensor infos exceed 1 GiB");
        }
    }

    void readAlignment() {
        const GgufValue* v = m_out.find("general.alignment");
        if (v == nullptr) {
            return;
        }
        const std::string where = m_file + ": key 'general.alignment'";
        if (v->type != GgufType::U32) {
            throw FormatError(where + ": expected u32, found " + v->describe());
        }
        const std::uint64_t a = *v->asUnsigned();
        if (a == 0 || (a & (a - 1)) != 0) {
            throw FormatError(where + ": alignment " + std::to_string(a) +
                              " is not a power of two");
        }
        m_out.m_alignment = a;
    }

    void readTensorInfo(std::uint64_t index) {
        const std::uint64_t at = m_cursor.pos();
        const std::string label = "tensor #" + std::to_string(index);
        const std::string_view name = m_cursor.string("the name of " + label, kMaxStringBytes);
        if (name.size() > kMaxNameBytes) {
            throw FormatError(m_file + ": byte " + std::to_string(at) + ": " + label +
                              ": name of " + std::to_string(name.size()) +
                              " bytes is longer than ggml's limit of 63");
        }
        GgufTensor t;
        t.name = std::string(name);
        const std::string where = m_file + ": tensor '" + t.name + "'";
        if (m_out.m_tensorIndex.contains(t.name)) {
            throw FormatError(where + ": duplicate tensor name (byte " + std::to_string(at) + ")");
        }
        readShape(t, where);
        const std::uint32_t typeId = m_cursor.u32("the type of tensor '" + t.name + "'");
        const GgmlTypeInfo* info = ggmlTypeInfo(typeId);
        if (info == nullptr) {
            throw FormatError(where + ": unknown ggml type " + std::to_string(typeId));
        }
        t.type = info->type;
        t.offset = m_cursor.u64("the offset of tensor '" + t.name + "'");
        if (t.offset % m_out.m_alignment != 0) {
            throw FormatError(where + ": offset " + std::to_string(t.offset) +
                              " is not a multiple of the alignment " +
                              std::to_string(m_out.m_alignment));
        }
        m_sizes.push_back(byteSize(t, *info, where));
        m_out.m_tensorIndex.emplace(t.name, m_out.m_tensors.size());
        m_out.m_tensors.push_back(std::move(t));
        checkHeaderSize();
    }

    void readShape(GgufTensor& t, const std::string& where) {
        const std::uint32_t dims = m_cursor.u32("the dimension count of tensor '" + t.name + "'");
        if (dims > kMaxDims) {
            throw FormatError(where + ": " + std::to_string(dims) +
                              " dimensions, ggml allows at most 4");
        }
        // Both the element count and the row count (ne[1…], which ne[0] = 0 would hide) must
        // fit in an int64.
        std::uint64_t elements = 1;
        std::uint64_t rows = 1;
        for (std::uint32_t d = 0; d < dims; ++d) {
            const std::uint64_t n =
                m_cursor.u64("dimension " + std::to_string(d) + " of tensor '" + t.name + "'");
            elements = checkedMul(elements, n, where + ": element count");
            rows = d == 0 ? 1 : checkedMul(rows, n, where + ": row count");
            if (std::max(elements, rows) > kMaxInt64) {
                throw FormatError(where + ": " + std::to_string(d + 1) +
                                  " dimensions hold more than 2^63 − 1 values");
            }
            t.ne.push_back(static_cast<std::int64_t>(n));
        }
    }

    std::uint64_t byteSize(const GgufTensor& t, const GgmlTypeInfo& info,
                           const std::string& where) const {
        const auto rowLength = static_cast<std::uint64_t>(t.rowLength());
        if (rowLength % info.blockElements != 0) {
            throw FormatError(where + ": row length " + std::to_string(rowLength) +
                              " is not a multiple of " + std::string(info.name) + "'s block of " +
                              std::to_string(info.blockElements) + " values");
        }
        const std::uint64_t rowBytes =
            checkedMul(rowLength / info.blockElements, info.blockBytes, where + ": byte size");
        return checkedMul(rowBytes, static_cast<std::uint64_t>(t.rows()), where + ": byte size");
    }

    void placeData(std::span<const std::byte> bytes) {
        const std::uint64_t a = m_out.m_alignment;
        const std::uint64_t end = m_cursor.pos();
        m_out.m_dataOffset = checkedAdd(end, (a - end % a) % a, m_file + ": data section");
        if (m_out.m_tensors.empty()) {
            return;
        }
        if (m_out.m_dataOffset > bytes.size()) {
            throw FormatError(m_file + ": byte " + std::to_string(end) +
                              ": the data section would start at byte " +
                              std::to_string(m_out.m_dataOffset) + ", past the end of the " +
                              std::to_string(bytes.size()) + "-byte file (truncated?)");
        }
        const std::span<const std::byte> data = bytes.subspan(m_out.m_dataOffset);
        for (std::size_t i = 0; i < m_out.m_tensors.size(); ++i) {
            GgufTensor& t = m_out.m_tensors[i];
            const std::string where = m_file + ": tensor '" + t.name + "'";
            const std::uint64_t stop = checkedAdd(t.offset, m_sizes[i], where + ": data");
            if (stop > data.size()) {
                throw FormatError(where + ": data [" + std::to_string(t.offset) + ", " +
                                  std::to_string(stop) + ") lies outside the " +
                                  std::to_string(data.size()) +
                                  "-byte data section (truncated file?)");
            }
            t.bytes = data.subspan(t.offset, m_sizes[i]);
        }
        checkNoOverlap();
    }

    void checkNoOverlap() const {
        std::vector<const GgufTensor*> sorted;
        for (const GgufTensor& t : m_out.m_tensors) {
            if (!t.bytes.empty()) {
                sorted.push_back(&t);
            }
        }
        // Stable: of two tensors at one offset, the later one in the file is named.
        std::stable_sort(
            sorted.begin(), sorted.end(),
            [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
        for (std::size_t i = 1; i < sorted.size(); ++i) {
            const GgufTensor& prev = *sorted[i - 1];
            if (prev.offset + prev.bytes.size() > sorted[i]->offset) {
                throw FormatError(m_file + ": tensor '" + sorted[i]->name +
                                  "': data overlaps tensor '" + prev.name + "'");
            }
        }
    }

    static std::span<const std::byte> asBytes(std::string_view s) {
        return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
    }

    GgufFile& m_out;
    const std::string& m_file;
    GgufCursor m_cursor;
    std::vector<std::uint64_t> m_sizes;  // each tensor's byte size, in file order
};

GgufFile::GgufFile(const std::filesystem::path& path) : m_file(path) {
    const std::string file = path.string();
    GgufParser(*this, file).parse();
}

const GgufValue* GgufFile::find(std::string_view key) const {
    const auto it = m_keyIndex.find(std::string(key));
    return it == m_keyIndex.end() ? nullptr : &m_metadata[it->second].second;
}

const GgufTensor* GgufFile::tensor(std::string_view name) const {
    const auto it = m_tensorIndex.find(std::string(name));
    return it == m_tensorIndex.end() ? nullptr : &m_tensors[it->second];
}

std::int64_t GgufTensor::elements() const {
    std::int64_t n = 1;
    for (std::int64_t d : ne) {
        n *= d;  // cannot overflow: checked when the file was opened
    }
    return n;
}

std::int64_t GgufTensor::rows() const {
    std::int64_t n = 1;
    for (std::size_t i = 1; i < ne.size(); ++i) {
        n *= ne[i];
    }
    return n;
}

std::vector<std::int64_t> GgufTensor::torchShape() const {
    return {ne.rbegin(), ne.rend()};
}

}  // namespace attnscope::io
