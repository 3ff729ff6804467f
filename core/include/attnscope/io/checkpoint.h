// The weight files of a Hugging Face model folder: `model.safetensors`, or the shards listed
// by `model.safetensors.index.json`. Every file is mapped once; tensors are looked up by name
// across all shards. Throws FormatError naming the file and the tensor or JSON path.
// Immutable after opening; reads are thread-safe.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "attnscope/io/safetensors.h"

namespace attnscope::io {

struct TensorRef {
    const TensorInfo* info = nullptr;
    const SafetensorsFile* file = nullptr;
};

class Checkpoint {
public:
    explicit Checkpoint(const std::filesystem::path& modelDir);

    // info == nullptr when no shard holds a tensor of that name.
    TensorRef find(const std::string& name) const;

    std::vector<std::string> tensorNames() const;

    const std::vector<std::unique_ptr<SafetensorsFile>>& files() const { return m_files; }

    // The dtypes of the floating-point tensors, e.g. "F16" or "F32+F16".
    std::string storedDtypes() const;

private:
    void openSharded(const std::filesystem::path& indexPath);

    std::vector<std::unique_ptr<SafetensorsFile>> m_files;
};

}  // namespace attnscope::io
