// Test helpers: read a reference_<k>.safetensors written by tests/reference/torch_reference.py,
// typed tensors of the other references' outputs, and their corpus files of id lists.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnscope/io/safetensors.h"

namespace attnscope::testing {

struct Reference {
    std::vector<std::int32_t> inputIds;
    std::vector<std::int64_t> attentionShape;  // [layers, heads, n, n]
    std::vector<float> attention;
    std::vector<float> logits;
    std::vector<float> hidden;    // [n, d]
    std::vector<float> lmLogits;  // [n, vocab]; empty when the checkpoint has no head
};

inline std::vector<float> floats(const io::SafetensorsFile& f, const std::string& name) {
    const io::TensorInfo* t = f.find(name);
    if (t == nullptr) {
        throw std::runtime_error(f.path().string() + ": no tensor " + name);
    }
    std::vector<float> out(static_cast<std::size_t>(t->numel()));
    io::widenToFloat(*t, out, f.path().string());
    return out;
}

// Tensor `name` of exactly `dtype`, its bytes copied out as T (of the dtype's width).
template <class T>
std::vector<T> typedTensor(const io::SafetensorsFile& f, const std::string& name, io::DType dtype) {
    const io::TensorInfo* t = f.find(name);
    if (t == nullptr || t->dtype != dtype) {
        throw std::runtime_error(f.path().string() + ": no tensor " + name + " of that type");
    }
    std::vector<T> out(static_cast<std::size_t>(t->numel()));
    std::memcpy(out.data(), t->bytes.data(), out.size() * sizeof(T));
    return out;
}

inline std::vector<double> doubles(const io::SafetensorsFile& f, const std::string& name) {
    return typedTensor<double>(f, name, io::DType::F64);
}

inline std::vector<std::int64_t> int64s(const io::SafetensorsFile& f, const std::string& name) {
    return typedTensor<std::int64_t>(f, name, io::DType::I64);
}

// A corpus file of the references: one comma-separated id list per line; blank lines are
// skipped, as the references skip them.
inline std::vector<std::vector<std::int32_t>> readIdLists(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) {
        throw std::runtime_error(path.string() + ": cannot be read");
    }
    std::vector<std::vector<std::int32_t>> out;
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::int32_t> ids;
        std::stringstream s(line);
        for (std::string item; std::getline(s, item, ',');) {
            ids.push_back(std::stoi(item));
        }
        if (!ids.empty()) {
            out.push_back(std::move(ids));
        }
    }
    return out;
}

inline Reference readReference(const std::filesystem::path& path) {
    const io::SafetensorsFile f(path);
    Reference r;
    const io::TensorInfo* ids = f.find("input_ids");
    if (ids == nullptr || ids->dtype != io::DType::I64) {
        throw std::runtime_error(path.string() + ": input_ids missing or not I64");
    }
    for (std::int64_t i = 0; i < ids->numel(); ++i) {
        std::int64_t v = 0;
        std::memcpy(&v, ids->bytes.data() + 8 * i, 8);
        r.inputIds.push_back(static_cast<std::int32_t>(v));
    }
    r.attentionShape = f.find("attention")->shape;
    r.attention = floats(f, "attention");
    r.logits = floats(f, "logits");
    r.hidden = floats(f, "hidden");
    if (f.find("lm_logits") != nullptr) {
        r.lmLogits = floats(f, "lm_logits");
    }
    return r;
}

}  // namespace attnscope::testing
