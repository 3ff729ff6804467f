// Test helper: reads a reference_<k>.safetensors written by tests/reference/torch_reference.py.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
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
