// A small GGUF writer for tests (tests only): builds files key by key and tensor by tensor, so
// a test can write a valid file and then break exactly one thing in it. Offsets are laid out
// as llama.cpp writes them (each tensor's data at the next multiple of the alignment) unless a
// test gives its own. Written from ggml's docs/gguf.md, independently of core/src/io.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::testing {

class GgufBuilder {
public:
    // GGUF value type ids (docs/gguf.md).
    enum Type : std::uint32_t {
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

    template <class T>
    static std::string raw(T value) {
        std::string s(sizeof(T), '\0');
        std::memcpy(s.data(), &value, sizeof(T));
        return s;
    }

    static std::string str(const std::string& s) { return raw<std::uint64_t>(s.size()) + s; }

    // A key with its type and the value's encoded bytes.
    GgufBuilder& kv(const std::string& key, std::uint32_t type, const std::string& value) {
        m_kv += str(key) + raw(type) + value;
        ++m_kvCount;
        return *this;
    }

    GgufBuilder& u32(const std::string& key, std::uint32_t v) { return kv(key, U32, raw(v)); }

    GgufBuilder& f32(const std::string& key, float v) { return kv(key, F32, raw(v)); }

    GgufBuilder& text(const std::string& key, const std::string& v) {
        return kv(key, String, str(v));
    }

    GgufBuilder& strings(const std::string& key, const std::vector<std::string>& items) {
        std::string v = raw<std::uint32_t>(String) + raw<std::uint64_t>(items.size());
        for (const std::string& s : items) {
            v += str(s);
        }
        return kv(key, Array, v);
    }

    // A tensor of ggml type `type` with dims `ne` (ne[0] the row length) and its data bytes;
    // `offset` overrides the laid-out offset.
    GgufBuilder& tensor(const std::string& name, std::vector<std::uint64_t> ne, std::uint32_t type,
                        std::string data, std::optional<std::uint64_t> offset = {}) {
        m_tensors.push_back({name, std::move(ne), type, std::move(data), offset});
        return *this;
    }

    GgufBuilder& version(std::uint32_t v) {
        m_version = v;
        return *this;
    }

    GgufBuilder& alignment(std::uint64_t a) {  // for layout only; add the key separately
        m_alignment = a;
        return *this;
    }

    std::string bytes() const {
        std::string out = "GGUF" + raw(m_version) + raw<std::uint64_t>(m_tensors.size()) +
                          raw<std::uint64_t>(m_kvCount) + m_kv;
        std::string data;
        for (const Tensor& t : m_tensors) {
            pad(data);
            const std::uint64_t offset = t.offset.value_or(data.size());
            out += str(t.name) + raw<std::uint32_t>(static_cast<std::uint32_t>(t.ne.size()));
            for (std::uint64_t n : t.ne) {
                out += raw(n);
            }
            out += raw(t.type) + raw(offset);
            data += t.data;
        }
        if (!m_tensors.empty()) {
            pad(out);
        }
        return out + data;
    }

private:
    struct Tensor {
        std::string name;
        std::vector<std::uint64_t> ne;
        std::uint32_t type;
        std::string data;
        std::optional<std::uint64_t> offset;
    };

    void pad(std::string& s) const {
        s.resize((s.size() + m_alignment - 1) / m_alignment * m_alignment, '\0');
    }

    std::uint32_t m_version = 3;
    std::uint64_t m_alignment = 32;
    std::uint64_t m_kvCount = 0;
    std::string m_kv;
    std::vector<Tensor> m_tensors;
};

}  // namespace attnscope::testing
