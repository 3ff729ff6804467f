// Fuzzes model.safetensors.index.json, read by io::Checkpoint on a model folder: weight_map,
// shard file names (which must stay inside the folder), the tensor-to-shard check. The folder
// also holds two small valid shards, written once, that a mutated index can name.
#include <cstdint>
#include <string>

#include "attnscope/io/checkpoint.h"
#include "fuzz_support.h"

namespace {

using namespace attnscope;

// A safetensors file: 8-byte little-endian header length, the JSON header, then `dataBytes`
// bytes of data.
std::string safetensors(const std::string& header, std::size_t dataBytes) {
    std::string out(8, '\0');
    std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>(n & 0xFF);
        n >>= 8;
    }
    out += header;
    out.append(dataBytes, '\x3C');  // 0x3C3C3C3C: a plain float, half and bfloat16
    return out;
}

std::filesystem::path modelDir() {
    const auto dir = fuzz::scratchDir("shard_index");
    fuzz::writeFile(dir, "model-00001-of-00002.safetensors",
                    safetensors(R"({"__metadata__":{"format":"pt"},)"
                                R"("embeddings.weight":{"dtype":"F32","shape":[2,2],)"
                                R"("data_offsets":[0,16]},)"
                                R"("layer.0.weight":{"dtype":"F16","shape":[2],)"
                                R"("data_offsets":[16,20]}})",
                                20));
    fuzz::writeFile(dir, "model-00002-of-00002.safetensors",
                    safetensors(R"({"layer.1.weight":{"dtype":"BF16","shape":[2,1],)"
                                R"("data_offsets":[0,4]},)"
                                R"("head.bias":{"dtype":"I64","shape":[1],)"
                                R"("data_offsets":[4,12]}})",
                                12));
    return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = modelDir();
    fuzz::writeFile(dir, "model.safetensors.index.json", fuzz::asText(data, size));
    fuzz::expectErrors([&] {
        const io::Checkpoint ckpt(dir);
        (void)ckpt.storedDtypes();
        for (const std::string& name : ckpt.tensorNames()) {
            const io::TensorRef ref = ckpt.find(name);
            if (ref.info == nullptr || ref.file == nullptr) {
                fuzz::fail("Checkpoint::find('" + name + "') finds nothing");
            }
        }
        (void)ckpt.find("no such tensor");
    });
    return 0;
}
