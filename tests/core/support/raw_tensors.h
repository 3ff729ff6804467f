// A checkpoint's tensors as RawTensor values, for tests that add, drop or rename tensors of a
// generated checkpoint and write it back with safetensorsBytes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/io/safetensors.h"
#include "test_files.h"

namespace attnscope::testing {

// `t` (a tensor of an open SafetensorsFile) as a RawTensor called `name`.
template <class Tensor>
RawTensor rawTensor(const std::string& name, const Tensor& t) {
    return {name, std::string(io::dtypeName(t.dtype)), t.shape,
            std::string(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size())};
}

// Every tensor of `file`, in the file's order.
inline std::vector<RawTensor> readRawTensors(const std::filesystem::path& file) {
    const io::SafetensorsFile f(file);
    std::vector<RawTensor> tensors;
    for (const auto& [name, t] : f.tensors()) {
        tensors.push_back(rawTensor(name, t));
    }
    return tensors;
}

}  // namespace attnscope::testing
